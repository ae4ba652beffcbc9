import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"
import { completeAnsweredStatement } from "./ScanRequestsRepo.ts"
import type { Address } from "../../domain/Address.ts"
import { type ScanEvidenceV2, ScanEvidenceV2 as ScanEvidenceV2Schema, valueOfFact } from "../../domain/EvidenceV2.ts"
import { upgradeV1 } from "../../domain/EvidenceUpgrade.ts"
import { scoringView } from "../../domain/EvidenceView.ts"
import {
  assessToken,
  MODEL_VERSION,
  rememberAssessment,
  type TokenAssessment
} from "../../engines/TokenScoring/index.ts"
import { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { notificationPayloads, SCANS_CHANNEL } from "./ScanNotifications.ts"
import { isCurrentVerdict, type StoredVerdict, storedVerdictOf, type VerdictScan } from "./ScanVerdict.ts"
import { compressDocument, documentJson } from "./ScanDocument.ts"

export interface StoredScan {
  readonly id: string
  readonly evidence: ScanEvidence
}

/** What a risk-check answer is made from: a latest scan, or its stored verdict alone (ScanVerdict.ts). */
export type CheckedScan = StoredScan | VerdictScan

const encodeEvidence = Schema.encodeSync(ScanEvidence)
const encodeV2 = Schema.encodeSync(ScanEvidenceV2Schema)

/** What `record` stores: a v1 scan (imports, demo) or a v2 document (the scanner, v2 imports). */
export type RecordedScan = ScanEvidence | ScanEvidenceV2

export const isV2 = (scan: RecordedScan): scan is ScanEvidenceV2 => "version" in scan && scan.version === 2

interface Prepared {
  readonly view: ScanEvidence
  /** The v2 document to store: a v2 scan's own; none for a v1 scan, whose document is its view upgraded. */
  readonly document: unknown
  readonly hash: string
  /** scans.price_usd: the deepest pool's price of a v2 document, else the view's market price (v1 scans). */
  readonly priceUsd: number | null
}

// `evidence` is the scoring view the routes read as stored (no decode on the hot path), `evidence_v2_zstd` the
// full document of a v2 scan, compressed (ScanDocument.ts; `evidence_v2`, jsonb, holds those written before
// sql/0020). A v1 scan keeps its own view exactly and is hashed as before, so re-importing a v1 file stays a no-op; its document is not stored, being its view upgraded (documentOf does it on read:
// storing it doubled such a row for nothing). A v2 document's view is derived and it is hashed whole.
export const prepare = (scan: RecordedScan): Prepared => {
  if (isV2(scan)) {
    const document = encodeV2(scan)
    const view = scoringView(scan)
    const poolPrice =
      scan.liquidity.priceUsd === undefined ? null : (valueOfFact(scan.liquidity.priceUsd)?.value ?? null)
    return { view, document, hash: hashOf(document), priceUsd: poolPrice ?? view.market.priceUsd }
  }
  const view = encodeEvidence(scan)
  return { view: scan, document: null, hash: hashOf(view), priceUsd: scan.market.priceUsd }
}

const hashOf = (encoded: unknown): string =>
  new Bun.CryptoHasher("sha256").update(JSON.stringify(encoded)).digest("hex")

interface Row {
  readonly id: string
  readonly mint: string
  readonly evidence: unknown
  /** Highest liquidity of the mint's scans in the 24 h before this one (latest reads only). */
  readonly peak?: number | null
  /** This scan's price_usd and that of the earliest priced scan of the 24 h before it (latest reads only). */
  readonly price?: number | null
  readonly price_before?: number | null
  /** The stored assessment of this scan with its trends (latest_scans only; null when not computed). */
  readonly assessment?: TokenAssessment | null
  /** The stored verdict of this scan (latest verdict reads only; null when not current, then the row is whole). */
  readonly verdict?: StoredVerdict | null
}

// Rows are written only by `record`, from decoded evidence, so the stored JSON is already the decoded
// form (test/features/Scans/scanEvidence.test.ts holds that invariant); decoding again would cost ~0.5 ms a read.
// The latest scan also carries the trends read from the history: the liquidity's 24 h high (model 2.0's
// liquidity_drop) and, where no market feed gave one, the 24 h price change.
export const toStored = (row: Row): StoredScan => {
  const evidence = row.evidence as ScanEvidence
  const peak = numberOrNull(row.peak)
  const change =
    evidence.market.priceChange24h === null
      ? priceChangePct(numberOrNull(row.price) ?? evidence.market.priceUsd, numberOrNull(row.price_before))
      : null
  const withPeak =
    peak === null || evidence.liquidity.peak24hUsd !== undefined
      ? evidence
      : { ...evidence, liquidity: { ...evidence.liquidity, peak24hUsd: peak } }
  const final = change === null ? withPeak : { ...withPeak, market: { ...withPeak.market, priceChange24h: change } }
  if (row.assessment !== undefined && row.assessment !== null) rememberAssessment(final, row.assessment)
  return { id: String(row.id), evidence: final }
}

const numberOrNull = (value: number | null | undefined): number | null =>
  value === undefined || value === null ? null : Number(value)

/** The change from `before` to `now` in percent, to two decimals (as market feeds give it). */
const priceChangePct = (now: number | null, before: number | null): number | null =>
  now === null || before === null || before <= 0 ? null : Math.round((now / before - 1) * 10_000) / 100

/**
 * The highest liquidity of a mint's scans in the 24 hours before scan `s` (null without any). The column is
 * read from the latest-scan index (INCLUDE liquidity_usd, sql/0009 and 0010), not from a heap page per scan: at a
 * 5-minute refresh that is 288 scans a lookup. Scans stored before the column are read from their
 * evidence, found through the partial index scans_without_liquidity.
 */
const peak24h = (floor: string) => `greatest(
  (select max(p.liquidity_usd) from scans p
    where p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at${floor}),
  (select max(coalesce((p.evidence->'liquidity'->>'liquidityUsd')::float8, (p.evidence->'market'->>'liquidityUsd')::float8))
    from scans p where p.liquidity_usd is null
    and p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at${floor}))`
export const PEAK_24H = peak24h("")

/**
 * The price of the earliest priced scan in the 24 hours before scan `s`, which the 24 h price change is
 * read against: over the part of the day the history covers, as feeds give it for a young token. Read from
 * the latest-scan index (INCLUDE price_usd, sql/0010), and only when scan `s` has a price itself.
 */
const price24hBefore = (floor: string) => `case when s.price_usd is null then null else (
  select p.price_usd from scans p
    where p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at${floor}
    and p.price_usd is not null
    order by p.scanned_at, p.id
    limit 1) end`

/**
 * The trends selected with a latest scan `s` (toStored reads them). `floor`, when given, is a time no scan `s`
 * is older than; the windows then read no scan before it less 24 hours, a bound known when the statement is
 * planned, so PostgreSQL plans and reads only the day partitions of `scans` that can hold them (sql/0018).
 */
const DAY_MS = 86_400_000
const latestTrends = (floor?: Date) => {
  const bound =
    floor === undefined || !Number.isFinite(floor.getTime())
      ? ""
      : ` and p.scanned_at >= '${new Date(floor.getTime() - DAY_MS).toISOString()}'::timestamptz`
  return `${peak24h(bound)} as peak, s.price_usd as price, ${price24hBefore(bound)} as price_before`
}
export const LATEST_TRENDS = latestTrends()

// What a latest scan is read with from latest_scans (sql/0014): the row's columns under the names toStored takes.
export const LATEST_COLUMNS = `scan_id as id, mint, evidence, peak_24h_usd as peak, price_usd as price, price_24h_before_usd as price_before, assessment`

/** The latest-scan lookup: a primary-key probe of latest_scans (sql/0014), however long the history. */
export const latestScanStatement = (sql: SqlClient.SqlClient, mint: string) =>
  sql<Row>`select ${sql.literal(LATEST_COLUMNS)} from latest_scans where mint = ${mint}`

/**
 * The latest scans of many mints: one `= any($1)` probe of latest_scans. Mints never scanned are absent.
 */
const latestScansStatement = (sql: SqlClient.SqlClient, mints: ReadonlyArray<string>) =>
  sql<Row>`select ${sql.literal(LATEST_COLUMNS)} from latest_scans where mint = any(${mints}::text[])`

/**
 * The cold mints of a risk-check batch: one `= any($1)` probe of latest_scans reading each row's stored verdict
 * (sql/0019) when the reader's scoring model made it and the mint is not one of `whole` ($3); any other row
 * is read whole, as latestScansStatement reads it. Mints never scanned are absent.
 */
const LATEST_VERDICT_COLUMNS = `l.scan_id as id, l.mint, case when c.current then l.verdict end as verdict,
  case when c.current then null else l.evidence end as evidence,
  case when c.current then null else l.peak_24h_usd end as peak,
  case when c.current then null else l.price_usd end as price,
  case when c.current then null else l.price_24h_before_usd end as price_before,
  case when c.current then null else l.assessment end as assessment`

/** latestVerdictsStatement's text: $1 the mints, $2 the reader's MODEL_VERSION, $3 the mints read whole. */
export const LATEST_VERDICTS = `select ${LATEST_VERDICT_COLUMNS}
    from latest_scans l,
      lateral (select l.verdict->>'modelVersion' = $2 and not l.mint = any($3::text[]) as current) c
    where l.mint = any($1::text[])`

// Its text as it is, not a template: a batch's cold read is on the hot path, and @effect/sql compiles a
// template on every call (test/bench: about half of the read's own time in the server).
const latestVerdictsStatement = (
  sql: SqlClient.SqlClient,
  mints: ReadonlyArray<string>,
  whole: ReadonlyArray<string>
) => sql.unsafe<Row>(LATEST_VERDICTS, [mints, MODEL_VERSION, whole])

/** A row of latestVerdictsStatement: its stored verdict, or the whole scan when it has no current one. */
const toVerdictOrStored = (row: Row): VerdictScan | StoredScan =>
  isCurrentVerdict(row.verdict) ? { id: String(row.id), verdict: row.verdict } : toStored(row)

/**
 * Brings latest_scans up to date for `mints` after an insert into the history, in the same transaction: each
 * mint's newest scan (scanned_at, id) with the trends the history gives it now. A row is replaced only by a
 * scan at least as new as the one it holds, so of two concurrent writers of a mint the newer scan stays
 * whichever commits first (the second waits on the row and re-checks the condition against the committed
 * row); an older scan recorded late leaves the row on the newer scan but refreshes its trends, which may
 * have gained that scan. Rows are taken in the mints' order, so two writers of overlapping mints wait for
 * each other rather than deadlock.
 *
 * Bounded in time so that it reads only the day partitions that can hold its rows (sql/0018): a mint's newest
 * scan is no older than the scan just inserted (`since`: the newest inserted of the mint, less a millisecond
 * for the driver's rounding), and its trends read the 24 hours before it; the oldest `since` of the batch is
 * also given as a constant, which PostgreSQL prunes by when planning. Same rows as without the bounds.
 */
const upsertLatestStatement = (
  sql: SqlClient.SqlClient,
  inserted: ReadonlyArray<{ readonly mint: string; readonly scanned_at: Date }>
) => {
  const since = new Map<string, number>()
  for (const row of inserted)
    since.set(row.mint, Math.max(since.get(row.mint) ?? -Infinity, row.scanned_at.getTime() - 1))
  const mints = [...since.keys()].sort()
  const floor = new Date([...since.values()].reduce((a, b) => Math.min(a, b)))
  return sql<Row>`
    insert into latest_scans as l (mint, scan_id, scanned_at, evidence, peak_24h_usd, price_usd, price_24h_before_usd)
    select s.mint, s.id, s.scanned_at, s.evidence, ${sql.literal(latestTrends(floor))}
    from unnest(${mints}::text[], ${mints.map((mint) => new Date(since.get(mint)!))}::timestamptz[])
      with ordinality as m(mint, since, n)
    cross join lateral (
      select id, mint, evidence, scanned_at, price_usd from scans
      where scans.mint = m.mint and scans.scanned_at >= m.since and scans.scanned_at >= ${floor}
      order by scanned_at desc, id desc
      limit 1
    ) s
    order by m.n
    on conflict (mint) do update set
      scan_id = excluded.scan_id, scanned_at = excluded.scanned_at, evidence = excluded.evidence,
      peak_24h_usd = excluded.peak_24h_usd, price_usd = excluded.price_usd,
      price_24h_before_usd = excluded.price_24h_before_usd
    where (l.scanned_at, l.scan_id) <= (excluded.scanned_at, excluded.scan_id)
    returning l.scan_id as id, l.mint, l.evidence, l.peak_24h_usd as peak, l.price_usd as price,
      l.price_24h_before_usd as price_before`
}

/**
 * Each written row's assessment (the scan as a read gives it, trends included) and the verdict a risk check
 * reads of them (sql/0019), stored beside it.
 */
const storeAssessmentsStatement = (sql: SqlClient.SqlClient, rows: ReadonlyArray<Row>) => {
  const scored = rows.map((row) => {
    const { evidence } = toStored(row)
    const assessment = assessToken(evidence)
    return { assessment: JSON.stringify(assessment), verdict: JSON.stringify(storedVerdictOf(evidence, assessment)) }
  })
  return sql`
    update latest_scans l set assessment = t.assessment::json, verdict = t.verdict::json
    from unnest(
      ${rows.map((row) => row.mint)}::text[],
      ${rows.map((row) => String(row.id))}::bigint[],
      ${scored.map((row) => row.assessment)}::text[],
      ${scored.map((row) => row.verdict)}::text[]
    ) as t(mint, scan_id, assessment, verdict)
    where l.mint = t.mint and l.scan_id = t.scan_id`
}

const latestReadsOn = (sql: SqlClient.SqlClient) => ({
  latest: (mint: Address) =>
    latestScanStatement(sql, mint).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toStored))),
  latestMany: (mints: ReadonlyArray<Address>) =>
    mints.length === 0
      ? Effect.succeed(new Map<string, StoredScan>())
      : latestScansStatement(sql, mints).pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.mint, toStored(row)])))
        ),
  latestVerdicts: (mints: ReadonlyArray<Address>, whole: ReadonlyArray<Address> = []) =>
    mints.length === 0 && whole.length === 0
      ? Effect.succeed(new Map<string, VerdictScan | StoredScan>())
      : latestVerdictsStatement(sql, [...mints, ...whole], whole).pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.mint, toVerdictOrStored(row)])))
        )
})

/** The latest-scan reads of ScansRepo over another connection (a read replica: Sql/ReadReplica.ts). */
// Their SqlErrors as they are: a replica's failure is answered by the primary (Scans/LatestScanReplica.ts),
// and logged there with its SQLSTATE.
export const latestReadsOf = (sql: SqlClient.SqlClient): ReplicaLatestReads => latestReadsOn(sql)
export type ReplicaLatestReads = ReturnType<typeof latestReadsOn>

/** What the latest-scan cache reads: ScansRepo, or a replica's reads answered by the primary when they fail. */
export type LatestReads = Pick<ScansRepo, "latest" | "latestMany" | "latestVerdicts">

// The scan history: append-only, idempotent by hash; reads take the latest scan of a mint.
export class ScansRepo extends Effect.Service<ScansRepo>()("ScansRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { latest, latestMany, latestVerdicts } = latestReadsOn(sql)

    const record = (scans: ReadonlyArray<RecordedScan>) =>
      Effect.gen(function* () {
        if (scans.length === 0) return { inserted: 0, duplicates: 0 }
        const rows = scans.map((scan) => {
          const prepared = prepare(scan)
          return {
            mint: scan.mint,
            scanned_at: scan.scannedAt,
            liquidity_usd: prepared.view.liquidity.liquidityUsd ?? prepared.view.market.liquidityUsd,
            price_usd: prepared.priceUsd,
            evidence: JSON.stringify(encodeEvidence(prepared.view)),
            document: prepared.document === null ? null : compressDocument(JSON.stringify(prepared.document)),
            evidence_hash: prepared.hash
          }
        })
        const inserted = yield* sql<{ id: string; mint: string; scanned_at: Date }>`
          insert into scans (mint, scanned_at, liquidity_usd, price_usd, evidence, evidence_v2_zstd, evidence_hash)
          select mint, scanned_at, liquidity_usd, price_usd, evidence::jsonb, decode(document, 'base64'), evidence_hash
          from unnest(
            ${rows.map((r) => r.mint)}::text[],
            ${rows.map((r) => r.scanned_at)}::timestamptz[],
            ${rows.map((r) => r.liquidity_usd)}::float8[],
            ${rows.map((r) => r.price_usd)}::float8[],
            ${rows.map((r) => r.evidence)}::text[],
            ${rows.map((r) => r.document)}::text[],
            ${rows.map((r) => r.evidence_hash)}::text[]
          ) as t(mint, scanned_at, liquidity_usd, price_usd, evidence, document, evidence_hash)
          on conflict (evidence_hash, scanned_at) do nothing
          returning id, mint, scanned_at`
        // The mints' latest rows, in this transaction: a failed write changes neither.
        const latestIds = new Map<string, string>()
        if (inserted.length > 0) {
          const written = yield* upsertLatestStatement(sql, inserted)
          for (const row of written) latestIds.set(row.mint, String(row.id))
          if (written.length > 0) yield* storeAssessmentsStatement(sql, written)
        }
        // Every process's cache of latest scans forgets these mints when this transaction commits; the
        // latest ids tell a cache reading a replica whether the replica has this commit yet.
        for (const payload of notificationPayloads(
          inserted.map((row) => row.mint),
          latestIds
        )) {
          yield* sql`select pg_notify(${SCANS_CHANNEL}, ${payload})`
        }
        // A newer scan answers the pending request for its mint.
        if (inserted.length > 0) {
          yield* completeAnsweredStatement(sql, inserted)
        }
        return { inserted: inserted.length, duplicates: scans.length - inserted.length }
      }).pipe(sql.withTransaction)

    const history = (mint: Address, options: { readonly since: string | null; readonly limit: number }) =>
      sql<Row>`
        select id, mint, evidence from (
          select id, mint, evidence, scanned_at from scans
          where mint = ${mint} and (${options.since}::timestamptz is null or scanned_at >= coalesce((
            select max(scanned_at) from scans where mint = ${mint} and scanned_at <= ${options.since}::timestamptz
          ), ${options.since}::timestamptz))
          order by scanned_at desc, id desc
          limit ${options.limit}
        ) recent
        order by scanned_at, id`.pipe(Effect.map((rows) => rows.map(toStored)))

    // Read from the time latest_scans gives the newest scan (the upsert keeps it so): the day partitions before
    // it are not read (sql/0018). A mint absent from latest_scans is read unbounded, as before.
    const latestDocument = (mint: Address) =>
      sql<DocumentRow>`
        select evidence, evidence_v2, evidence_v2_zstd from scans
        where mint = ${mint}
          and scanned_at >= coalesce((select l.scanned_at from latest_scans l where l.mint = ${mint}), '-infinity')
        order by scanned_at desc, id desc
        limit 1`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), documentOf)))

    return repository({
      /** The latest scan of a mint (Scans/LatestScanCache.ts keeps them in memory for the routes). */
      latest,
      latestMany,
      /**
       * `latestMany` for a risk check's answers, in one statement: each of `mints` as its stored verdict where
       * it has a current one (its evidence not read), else as its latest scan; each of `whole` as its latest scan.
       */
      latestVerdicts,
      record,
      /**
       * Scans of a mint, oldest first: the last one at or before `since` (the state at entry) and every
       * later one, at most `limit` (the most recent kept); without `since`, the `limit` most recent.
       */
      history,
      /** The latest scan of a mint as its full v2 document (rows stored before v2 are upgraded). */
      latestDocument
    })
  })
}) {}

const decodeV2 = Schema.decodeUnknownSync(ScanEvidenceV2Schema)

interface DocumentRow {
  readonly evidence: unknown
  /** A v2 document written before sql/0020, as jsonb. */
  readonly evidence_v2: unknown
  /** A v2 document written since, compressed (ScanDocument.ts). */
  readonly evidence_v2_zstd: Uint8Array | null
}

// A v1 scan's document is its view upgraded (none is stored for it).
const documentOf = (row: DocumentRow): ScanEvidenceV2 =>
  row.evidence_v2_zstd !== null && row.evidence_v2_zstd !== undefined
    ? decodeV2(JSON.parse(documentJson(row.evidence_v2_zstd)))
    : row.evidence_v2 === null || row.evidence_v2 === undefined
      ? upgradeV1(row.evidence as ScanEvidence)
      : decodeV2(row.evidence_v2)
