// Scan history at scanner rate (issue 16, item 6): 10,000 mints refreshed every 5 minutes write about 2.9M
// scans a day. Prints the service's latest-scan lookup on 1M and on 10M scans of that shape, and the storage
// growth per day of scanner-like rows. Run alone (`bun test/bench/history.ts [--skip-10m] [--lookups N]
// [--sizes N,M] [--documents FILE]`) or as `npm run bench -- --only history`. A benchmark, not a test: it
// asserts nothing. `--sizes` builds (or reuses) histories of other sizes instead of 1M and 10M; `--documents`
// takes the v2 documents the writes and the storage sample are made of from FILE (a scanner's, written by
// test/bench/scannerDocuments.ts) instead of the demo evidence upgraded to v2.
//
// The databases (risk_api_bench_rate_<scans>_p, day partitions, kept for the next run) are written by one set-based
// INSERT ... SELECT over generate_series per million rows, in arrival order (oldest first, every mint once
// per 5-minute round), as the scanner would have written them. History rows carry a compact evidence
// document (mint, time, liquidity): the lookup reads the latest row's evidence and only the liquidity of
// the 24 hours before it, so what matters to it is the number and placement of rows, not their width.
// The latest scan of each mint carries full demo evidence. Storage per scan is measured apart, on 20,000
// rows with full evidence and its v2 document, as the scanner stores them.
// `--layouts N` compares the partitioned history with the one table before sql/0018 on N generated scans each
// (risk_api_bench_rate_<N> built through migration 0017, measured, converted by sql/0018 and measured again;
// then risk_api_bench_rate_<N>_p): lookup p50, set-based insert rate, bytes a scan, the conversion's time.
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { Effect, Layer, Redacted, Schema } from "effect"
import { generateDemoDataset } from "../../src/features/Demo/generate.ts"
import { ScanEvidenceV2 } from "../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../src/domain/EvidenceUpgrade.ts"
import { ScanEvidence } from "../../src/domain/ScanEvidence.ts"
import { ScanHistoryDays } from "../../src/features/Scans/ScanRetention.ts"
import { MigrationsLive, migratorThrough } from "../../src/platform/Sql/Migrations.ts"
import { databaseUrlOf, isReachable, randomMint, withClient } from "./dataset.ts"
import { PgClient } from "@effect/sql-pg"
import { LATEST_TRENDS, prepare, ScansRepo } from "../../src/features/Scans/ScansRepo.ts"
import { compressDocument } from "../../src/features/Scans/ScanDocument.ts"
import { fillLatestScans, LATEST_SCAN } from "./serviceSql.ts"

export const RATE_MINTS = 10_000
const REFRESH_SECONDS = 300
export const SCANS_PER_DAY = RATE_MINTS * (86_400 / REFRESH_SECONDS) // 2,880,000
const CHUNK_ROWS = 1_000_000
const SAMPLE_ROWS = 20_000

export interface LookupFigures {
  readonly scans: number
  readonly buildSeconds: number
  readonly reused: boolean
  readonly p50Ms: number
  readonly p99Ms: number
  readonly perSecond: number
  /** p50 of the lookup before latest_scans: the history's newest scan with its 24 h trends. */
  readonly probeP50Ms: number
  /** ScansRepo.record of one scan at a time (its own transaction, latest_scans upserted): scans/s and p50. */
  readonly insertPerSecond: number
  readonly insertP50Ms: number
  readonly trendRows: number
  readonly plan: string
  readonly tableBytes: number
}

export interface StorageFigures {
  readonly bytesPerScan: number
  /** The same rows with the document stored as before sql/0020 (jsonb), measured in the same run. */
  readonly beforeBytesPerScan: number
  readonly perDayBytes: number
  readonly breakdown: string
}

const decodeScan = Schema.decodeUnknownSync(ScanEvidence)
const encodeScan = Schema.encodeSync(ScanEvidence)

const demoScans = () => generateDemoDataset({ now: new Date(), tokens: 300 }).scans.map((scan) => decodeScan(scan))
const decodeV2 = Schema.decodeUnknownSync(ScanEvidenceV2)

/**
 * What the scanner-like rows of the bench are made from: the v2 documents of a scanner's scans read from `file`
 * (test/bench/scannerDocuments.ts writes them), else the demo scans upgraded to v2 (a third of a scanner's size).
 */
export const scannerDocuments = (file: string | undefined): ReadonlyArray<ScanEvidenceV2> =>
  file === undefined
    ? demoScans().map((scan) => ({
        ...upgradeV1(scan),
        provenance: { scanner: "risk-api-scanner/bench", slot: 300_000_000, rpcCalls: 40, durationMs: 300, partial: [] }
      }))
    : (JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<unknown>).map((document) => decodeV2(document))

/** Row `i` of a sample: document `i` of `documents` for a new mint at `at`, as ScansRepo.record stores it. */
const storedRow = (documents: ReadonlyArray<ScanEvidenceV2>, i: number, at: string, mint = randomMint()) => {
  const prepared = prepare({ ...documents[i % documents.length]!, mint: mint as never, scannedAt: at })
  const json = JSON.stringify(prepared.document)
  return {
    mint,
    at,
    view: JSON.stringify(encodeScan(prepared.view)),
    liquidity: prepared.view.liquidity.liquidityUsd ?? prepared.view.market.liquidityUsd,
    json,
    compressed: compressDocument(json),
    hash: prepared.hash
  }
}

// Row n of the history: round k = n / 10,000 (oldest first), mint n % 10,000. Scan times step back 5
// minutes per round from each mint's latest, which is spread over the last 5 minutes.
const INSERT_ROUNDS = `
  insert into scans (mint, scanned_at, liquidity_usd, evidence, evidence_hash)
  select m.mint, t.at, t.liquidity,
    case when t.round = 0
      then jsonb_set(jsonb_set(b.evidence, '{mint}', to_jsonb(m.mint)), '{scannedAt}', to_jsonb(t.at))
      else jsonb_build_object('mint', m.mint, 'scannedAt', t.at, 'liquidity', jsonb_build_object('liquidityUsd', t.liquidity))
    end,
    t.round || ':' || m.position
  from generate_series($1::bigint, $2::bigint) as g(n)
  cross join lateral (select $3::int - 1 - g.n / ${RATE_MINTS} as round, (g.n % ${RATE_MINTS})::int as position) r
  join bench_rate_mints m on m.position = r.position
  join bench_templates b on b.idx = r.position % $4::int
  cross join lateral (select r.round, now() - (r.round * ${REFRESH_SECONDS} + r.position % ${REFRESH_SECONDS}) * interval '1 second' as at,
    50000 + (r.position * 7919 + r.round * 104729) % 250000 as liquidity) t`

/** The history as sql/0018 leaves a new database (day partitions), or as the release before it (one table). */
type Layout = "partitioned" | "unpartitioned"

const BEFORE_PARTITIONS = "0017_write_charges"

/** Applies the migrations through `last` (all of them without) to the database at `url`. */
const migrate = (url: string, last?: string) =>
  Effect.runPromise(
    Effect.scoped(Layer.build(last === undefined ? MigrationsLive : migratorThrough(last))).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  )

const build = async (
  adminUrl: string,
  name: string,
  scans: number,
  layout: Layout = "partitioned"
): Promise<number> => {
  const started = performance.now()
  await withClient(adminUrl, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`)
    await client.query(`create database ${name}`)
  })
  const url = databaseUrlOf(adminUrl, name)
  await migrate(url, layout === "partitioned" ? undefined : BEFORE_PARTITIONS)
  const templates = demoScans().map((scan) => JSON.stringify(encodeScan(scan)))
  const rounds = Math.ceil(scans / RATE_MINTS)
  await withClient(url, async (client) => {
    await client.query("set synchronous_commit = off")
    // The days the generated history covers get their partitions, as a server running all along would have made.
    if (layout === "partitioned")
      await client.query(
        "select scans_ensure_partitions((now() at time zone 'UTC')::date - $1::int, (now() at time zone 'UTC')::date)",
        [Math.ceil((rounds * REFRESH_SECONDS) / 86_400) + 1]
      )
    await client.query("create table bench_templates (idx int primary key, evidence jsonb not null)")
    await client.query(
      "insert into bench_templates select idx - 1, evidence::jsonb from unnest($1::text[]) with ordinality as t(evidence, idx)",
      [templates]
    )
    await client.query("create table bench_rate_mints (position int primary key, mint text not null)")
    await client.query(
      "insert into bench_rate_mints select position - 1, mint from unnest($1::text[]) with ordinality as t(mint, position)",
      [Array.from({ length: RATE_MINTS }, randomMint)]
    )
    for (let from = 0; from < scans; from += CHUNK_ROWS) {
      const to = Math.min(scans, from + CHUNK_ROWS) - 1
      const chunk = performance.now()
      await client.query(INSERT_ROUNDS, [from, to, rounds, templates.length])
      console.log(
        `    rows ${from.toLocaleString("en-US")}–${to.toLocaleString("en-US")}: ${((performance.now() - chunk) / 1000).toFixed(1)} s`
      )
    }
    await client.query("drop table bench_templates")
    console.log(`    latest_scans backfilled (sql/0014's statement) in ${(await fillLatestScans(client)).toFixed(1)} s`)
    await client.query("vacuum analyze scans")
    await client.query("vacuum analyze latest_scans")
    const seconds = (performance.now() - started) / 1000
    await client.query(
      "create table bench_dataset (scans bigint primary key, build_seconds numeric not null, built_at timestamptz not null default now())"
    )
    await client.query("insert into bench_dataset (scans, build_seconds) values ($1, $2)", [scans, seconds.toFixed(1)])
  })
  return (performance.now() - started) / 1000
}

/** The rate database of `scans` scans, reused when a previous run completed it. */
const rateDatabase = async (adminUrl: string, scans: number, layout: Layout = "partitioned") => {
  const name = `risk_api_bench_rate_${scans}${layout === "partitioned" ? "_p" : ""}`
  const url = databaseUrlOf(adminUrl, name)
  const exists = await withClient(
    adminUrl,
    async (client) => (await client.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1
  )
  const marker = exists
    ? await withClient(url, async (client) => {
        const found = await client.query<{ present: boolean }>(
          "select to_regclass('bench_dataset') is not null as present"
        )
        if (found.rows[0]?.present !== true) return undefined
        const row = await client.query<{ build_seconds: string }>(
          "select build_seconds from bench_dataset where scans = $1",
          [scans]
        )
        return row.rows[0] === undefined ? undefined : Number(row.rows[0].build_seconds)
      })
    : undefined
  if (marker !== undefined) return { url, buildSeconds: marker, reused: true }
  console.log(
    `  building ${name} (${scans.toLocaleString("en-US")} scans of ${RATE_MINTS.toLocaleString("en-US")} mints)`
  )
  return { url, buildSeconds: await build(adminUrl, name, scans, layout), reused: false }
}

// The lookup before latest_scans (sql/0014): the newest scan from the history's index, with the 24 h trends
// read from the day of scans before it.
const HISTORY_LOOKUP = `
  select s.id, s.mint, s.evidence, ${LATEST_TRENDS} from (
    select id, mint, evidence, scanned_at, price_usd from scans
    where mint = $1
    order by scanned_at desc, id desc
    limit 1
  ) s`

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

/** The service's latest-scan statement (with its 24 h liquidity trend) for `lookups` mints at random, one at a time. */
const measureLookup = (url: string, lookups: number) =>
  withClient(url, async (client) => {
    const mints = (
      await client.query<{ mint: string }>("select mint from bench_rate_mints order by random() limit $1", [lookups])
    ).rows.map((row) => row.mint)
    for (const mint of mints) await client.query(LATEST_SCAN, [mint]) // warm: the figures are of a server's steady state
    const timed = async (statement: string) => {
      const times: Array<number> = []
      for (const mint of mints) {
        const at = performance.now()
        await client.query(statement, [mint])
        times.push(performance.now() - at)
      }
      return times.sort((a, b) => a - b)
    }
    const started = performance.now()
    const times = await timed(LATEST_SCAN)
    const elapsed = performance.now() - started
    const probe = await timed(HISTORY_LOOKUP)
    const plan = (
      await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${LATEST_SCAN}`, [mints[0]])
    ).rows.map((row) => row["QUERY PLAN"])
    const index =
      plan
        .find((line) => /Index.*Scan/.test(line))
        ?.replace(/^[\s>-]+/, "")
        .replace(/\s+\(.*$/, "") ?? "?"
    const buffers = /Buffers: ([^\n]+)/.exec(plan.join("\n"))?.[1] ?? "?"
    const execution = /Execution Time: ([\d.]+ ms)/.exec(plan.join("\n"))?.[1] ?? "?"
    const trend = await client.query<{ rows: string }>(
      `select count(*) as rows from scans p, (select mint, scanned_at from scans where mint = $1 order by scanned_at desc, id desc limit 1) s
       where p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at`,
      [mints[0]]
    )
    const size = await client.query<{ bytes: string }>(
      `select coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree('scans') where isleaf),
           pg_total_relation_size('scans')) + pg_total_relation_size('latest_scans') as bytes`
    )
    return {
      p50Ms: percentile(times, 0.5),
      p99Ms: percentile(times, 0.99),
      perSecond: mints.length / (elapsed / 1000),
      probeP50Ms: percentile(probe, 0.5),
      trendRows: Number(trend.rows[0]!.rows),
      plan: `${index}; ${buffers}; ${execution}`,
      tableBytes: Number(size.rows[0]!.bytes)
    }
  })

/**
 * The service's own write, ScansRepo.record, one scan at a time as the scanner writes them (each its own
 * transaction: the insert, the latest_scans upsert with its 24 h trends, the notification), `scans` fresh
 * scans of mints of the history, scanner v2 documents (stored compressed, sql/0020). They stay in the database.
 */
const measureInsert = async (url: string, scans: number, documents: ReadonlyArray<ScanEvidenceV2>) => {
  const mints = await withClient(url, async (client) =>
    (
      await client.query<{ mint: string }>("select mint from bench_rate_mints order by random() limit $1", [scans])
    ).rows.map((row) => row.mint)
  )
  const stamp = Date.now()
  const times = await Effect.runPromise(
    Effect.gen(function* () {
      const repo = yield* ScansRepo
      const times: Array<number> = []
      for (const [i, mint] of mints.entries()) {
        const scan = {
          ...documents[i % documents.length]!,
          mint: mint as never,
          scannedAt: new Date(stamp + i).toISOString()
        }
        const at = performance.now()
        yield* repo.record([scan])
        times.push(performance.now() - at)
      }
      return times
    }).pipe(
      Effect.provide(
        ScansRepo.Default.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
      ),
      Effect.orDie
    )
  )
  const total = times.reduce((a, b) => a + b, 0)
  return {
    insertPerSecond: times.length / (total / 1000),
    insertP50Ms: percentile(
      [...times].sort((a, b) => a - b),
      0.5
    )
  }
}

const SAMPLE_BATCH = 1_000

/**
 * Bytes per scan as the scanner stores them (its scoring view, its v2 document, every index, TOAST), from
 * pg_total_relation_size of a table like scans holding SAMPLE_ROWS rows of `documents`, twice in the same run:
 * the document as ScansRepo.record stores it now (zstd, evidence_v2_zstd, sql/0020) and as it did before
 * (jsonb, evidence_v2). The hash is the real one (sha256 hex of the document).
 */
const measureStorage = (url: string, documents: ReadonlyArray<ScanEvidenceV2>): Promise<StorageFigures> =>
  withClient(url, async (client) => {
    const rows = Array.from({ length: SAMPLE_ROWS }, (_, i) =>
      storedRow(documents, i, new Date(Date.now() - i * 30).toISOString())
    )
    const sample = async (compressed: boolean) => {
      await client.query("drop table if exists bench_storage_sample")
      await client.query("create table bench_storage_sample (like scans including all)")
      for (let from = 0; from < rows.length; from += SAMPLE_BATCH) {
        const batch = rows.slice(from, from + SAMPLE_BATCH)
        await client.query(
          `insert into bench_storage_sample (mint, scanned_at, liquidity_usd, evidence, evidence_v2, evidence_v2_zstd, evidence_hash)
           select mint, at::timestamptz, liquidity, view::jsonb, case when $6 then null else json::jsonb end,
             case when $6 then decode(compressed, 'base64') end, hash
           from unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::text[], $7::text[], $8::text[])
             as t(mint, at, liquidity, view, json, compressed, hash)`,
          [
            batch.map((r) => r.mint),
            batch.map((r) => r.at),
            batch.map((r) => r.liquidity),
            batch.map((r) => r.view),
            batch.map((r) => (compressed ? null : r.json)),
            compressed,
            batch.map((r) => (compressed ? r.compressed : null)),
            batch.map((r) => r.hash)
          ]
        )
      }
      await client.query("vacuum analyze bench_storage_sample")
      const size = await client.query<{
        total: string
        heap: string
        indexes: string
        evidence: string
        document: string
      }>(
        `select pg_total_relation_size('bench_storage_sample') as total, pg_table_size('bench_storage_sample') as heap,
           pg_indexes_size('bench_storage_sample') as indexes,
           (select avg(pg_column_size(evidence)) from bench_storage_sample) as evidence,
           (select avg(coalesce(pg_column_size(evidence_v2_zstd), pg_column_size(evidence_v2))) from bench_storage_sample) as document`
      )
      await client.query("drop table bench_storage_sample")
      return size.rows[0]!
    }
    const before = await sample(false)
    const row = await sample(true)
    const bytesPerScan = Number(row.total) / SAMPLE_ROWS
    const per = (value: string) => count(Math.round(Number(value) / SAMPLE_ROWS))
    const raw = Math.round(rows.reduce((total, r) => total + r.json.length, 0) / rows.length)
    return {
      bytesPerScan,
      beforeBytesPerScan: Number(before.total) / SAMPLE_ROWS,
      perDayBytes: bytesPerScan * SCANS_PER_DAY,
      breakdown:
        `table with TOAST ${per(row.heap)} B, indexes ${per(row.indexes)} B a scan; ` +
        `stored view ${count(Math.round(Number(row.evidence)))} B, v2 document ${count(Math.round(Number(row.document)))} B ` +
        `(zstd; ${count(raw)} B of JSON); before sql/0020 ${per(before.total)} B a scan, its document ` +
        `${count(Math.round(Number(before.document)))} B (jsonb, pglz)`
    }
  })

/** Bytes of the history (every partition, indexes and TOAST included) and its scans. */
const historySize = (url: string) =>
  withClient(url, async (client) => {
    const row = await client.query<{ bytes: string; scans: string }>(
      `select coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree('scans') where isleaf),
           pg_total_relation_size('scans')) as bytes,
         (select count(*) from scans) as scans`
    )
    return { bytes: Number(row.rows[0]!.bytes), scans: Number(row.rows[0]!.scans) }
  })

const INSERT_BATCHES = 20
const INSERT_BATCH = 1_000

/**
 * Set-based insert rate into the history, the layout's own cost (routing, unique keys, indexes, TOAST): 20
 * statements of 1,000 scanner-like rows (view and compressed v2 document, dated now) with ON CONFLICT DO NOTHING,
 * synchronous_commit off so the commit's flush does not hide it. Rows stay (20,000 more).
 */
const measureBulkInsert = (url: string, templates: ReadonlyArray<ScanEvidenceV2>) =>
  withClient(url, async (client) => {
    await client.query("set synchronous_commit = off")
    const stored = templates.map((_, i) => storedRow(templates, i, new Date().toISOString()))
    const views = stored.map((row) => row.view)
    const documents = stored.map((row) => row.compressed)
    const mints = (
      await client.query<{ mint: string }>("select mint from bench_rate_mints order by random() limit $1", [
        INSERT_BATCH
      ])
    ).rows.map((row) => row.mint)
    const started = performance.now()
    for (let batch = 0; batch < INSERT_BATCHES; batch++) {
      await client.query(
        `insert into scans (mint, scanned_at, liquidity_usd, price_usd, evidence, evidence_v2_zstd, evidence_hash)
         select mint, now() + (($4::int * 1000 + n) * interval '1 millisecond'), 100000, 1,
           jsonb_set($2::jsonb, '{mint}', to_jsonb(mint)), decode($3, 'base64'),
           md5(mint || $4::text || clock_timestamp()::text)
         from unnest($1::text[]) with ordinality as t(mint, n)
         on conflict do nothing`,
        [mints, views[batch % views.length], documents[batch % documents.length], batch]
      )
    }
    return (INSERT_BATCHES * INSERT_BATCH) / ((performance.now() - started) / 1000)
  })

/**
 * Bytes per scan of SAMPLE_ROWS full-evidence rows in a day partition as sql/0018 makes them (no by-age
 * index): `document` says whether rows carry a v2 document (the scanner's) or not (v1 imports,
 * whose document is no longer stored). The partition is a day 30 days ahead, dropped afterwards.
 */
const measurePartitionStorage = (url: string, document: boolean) =>
  withClient(url, async (client) => {
    const scans = demoScans()
    const documents = scannerDocuments(undefined)
    const day = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)
    const partition = `scans_p${day.replaceAll("-", "")}`
    await client.query("select scans_ensure_partitions($1::date, $1::date)", [day])
    const rows = Array.from({ length: SAMPLE_ROWS }, (_, i) => {
      const scan = scans[i % scans.length]!
      return { mint: randomMint(), at: new Date(Date.parse(`${day}T12:00:00Z`) - i * 30).toISOString(), scan }
    })
    await client.query(
      `insert into scans (mint, scanned_at, liquidity_usd, evidence, evidence_v2_zstd, evidence_hash)
       select mint, at::timestamptz, (view->'liquidity'->>'liquidityUsd')::float8,
         jsonb_set(jsonb_set(view, '{mint}', to_jsonb(mint)), '{scannedAt}', to_jsonb(at)),
         decode(document, 'base64'), md5(mint || at)
       from unnest($1::text[], $2::text[], $3::jsonb[], $4::text[]) as t(mint, at, view, document)`,
      [
        rows.map((r) => r.mint),
        rows.map((r) => r.at),
        rows.map((r) => JSON.stringify(encodeScan(r.scan))),
        rows.map((r, i) => (document ? storedRow(documents, i, r.at, r.mint).compressed : null))
      ]
    )
    await client.query(`vacuum analyze ${partition}`)
    const size = await client.query<{ total: string; indexes: string }>(
      `select pg_total_relation_size($1) as total, pg_indexes_size($1) as indexes`,
      [partition]
    )
    await client.query(`drop table ${partition}`)
    return {
      bytesPerScan: Number(size.rows[0]!.total) / SAMPLE_ROWS,
      indexBytesPerScan: Number(size.rows[0]!.indexes) / SAMPLE_ROWS
    }
  })

export interface LayoutFigures {
  readonly layout: string
  readonly p50Ms: number
  readonly probeP50Ms: number
  readonly bulkPerSecond: number
  readonly recordPerSecond: number | null
  readonly bytesPerScan: number
  readonly seconds: number | null
}

/**
 * The partitioned history against the table before it, on `scans` generated scans each: lookup p50 (latest_scans
 * and the history's own lookup), set-based insert rate, bytes per scan on disk of the generated history, and for
 * the old database the time sql/0018 takes to convert it (then measured again as converted).
 */
export const layoutBench = async (adminUrl: string, scans: number, lookups: number) => {
  const rows: Array<LayoutFigures> = []
  const measure = async (layout: string, url: string, seconds: number | null, record: boolean) => {
    const lookup = await measureLookup(url, lookups)
    const bulkPerSecond = await measureBulkInsert(url, scannerDocuments(undefined))
    const recordPerSecond = record ? (await measureInsert(url, 500, scannerDocuments(undefined))).insertPerSecond : null
    const size = await historySize(url)
    const figures = {
      layout,
      p50Ms: lookup.p50Ms,
      probeP50Ms: lookup.probeP50Ms,
      bulkPerSecond,
      recordPerSecond,
      bytesPerScan: size.bytes / size.scans,
      seconds
    }
    console.log(`    ${JSON.stringify(figures)}`)
    rows.push(figures)
  }
  const old = await rateDatabase(adminUrl, scans, "unpartitioned")
  console.log(
    `  ${count(scans)} scans, one table: ${old.reused ? "reused" : "built"} (${old.buildSeconds.toFixed(0)} s)`
  )
  await measure("one table (before sql/0018)", old.url, old.buildSeconds, false)
  const storageBefore = await measureStorage(old.url, scannerDocuments(undefined))
  const converting = performance.now()
  await migrate(old.url)
  const converted = (performance.now() - converting) / 1000
  // Converted, it is no longer the database before sql/0018: the next run builds that again.
  await withClient(old.url, (client) => client.query("drop table bench_dataset"))
  await measure("converted by sql/0018 (scans_legacy)", old.url, converted, true)
  const fresh = await rateDatabase(adminUrl, scans, "partitioned")
  console.log(
    `  ${count(scans)} scans, day partitions: ${fresh.reused ? "reused" : "built"} (${fresh.buildSeconds.toFixed(0)} s)`
  )
  await measure("day partitions (sql/0018)", fresh.url, fresh.buildSeconds, true)
  const scanner = await measurePartitionStorage(fresh.url, true)
  const imported = await measurePartitionStorage(fresh.url, false)
  return { rows, storageBefore, scanner, imported }
}

export const layoutTable = (scans: number, figures: Awaited<ReturnType<typeof layoutBench>>): string =>
  [
    `| ${count(scans)} generated scans | latest-scan lookup p50 | history lookup p50 | insert, 1,000-row statements | ScansRepo.record, one a transaction | bytes a generated scan | build / conversion |`,
    "|---|---|---|---|---|---|---|",
    ...figures.rows.map(
      (row) =>
        `| ${row.layout} | ${row.p50Ms.toFixed(2)} ms | ${row.probeP50Ms.toFixed(2)} ms | ${count(Math.round(row.bulkPerSecond))} scans/s | ` +
        `${row.recordPerSecond === null ? "n/a" : `${row.recordPerSecond.toFixed(0)} scans/s`} | ${count(Math.round(row.bytesPerScan))} | ` +
        `${row.seconds === null ? "" : `${row.seconds.toFixed(0)} s`} |`
    ),
    "",
    `Full scanner-like rows (${count(SAMPLE_ROWS)}): one table ${count(Math.round(figures.storageBefore.bytesPerScan))} bytes a scan (${figures.storageBefore.breakdown}); ` +
      `day partition ${count(Math.round(figures.scanner.bytesPerScan))} bytes with the v2 document (indexes ${count(Math.round(figures.scanner.indexBytesPerScan))}), ` +
      `${count(Math.round(figures.imported.bytesPerScan))} for a v1 import (no document stored)`
  ].join("\n")

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
const gib = (bytes: number) => `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`
const count = (n: number) => n.toLocaleString("en-US")

/** The table rows of this bench, for the README. */
export const historyTable = (
  lookups: ReadonlyArray<LookupFigures>,
  storage: StorageFigures,
  historyDays: number
): string => {
  const reference = lookups[0]
  const lines = [
    "| scan history at scanner rate (10,000 mints every 5 min) | p50 | p99 | lookups/s | vs 1M | history lookup (before latest_scans), p50 | record, one scan a transaction | scans a 24 h trend reads | scans + latest_scans, with indexes | plan |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...lookups.map(
      (row) =>
        `| latest-scan lookup, ${count(row.scans)} scans (${(row.scans / SCANS_PER_DAY).toFixed(1)} days) | ${row.p50Ms.toFixed(2)} ms | ${row.p99Ms.toFixed(2)} ms | ` +
        `${row.perSecond.toFixed(0)} | ${reference === undefined || row === reference ? "reference" : `${(row.p50Ms / reference.p50Ms).toFixed(2)}× p50`} | ` +
        `${row.probeP50Ms.toFixed(2)} ms | ${row.insertPerSecond.toFixed(0)} scans/s (p50 ${row.insertP50Ms.toFixed(2)} ms) | ${row.trendRows} | ${mib(row.tableBytes)} | ${row.plan} |`
    ),
    `| storage per scan (scoring view + zstd v2 document + indexes, ${count(SAMPLE_ROWS)} scanner-like rows) | ${count(Math.round(storage.bytesPerScan))} bytes | | | | | | | | ${storage.breakdown} |`,
    `| storage growth per day at ${count(SCANS_PER_DAY)} scans | ${gib(storage.perDayBytes)} | | | | | | | ${gib(storage.perDayBytes * historyDays)} held at SCAN_HISTORY_DAYS=${historyDays} | |`
  ]
  return lines.join("\n")
}

/** Builds or reuses the rate databases, then measures. */
export const historyBench = async (
  adminUrl: string,
  options: {
    readonly tenMillion: boolean
    readonly lookups: number
    /** The history sizes to build or reuse and measure, instead of 1M and 10M (`--sizes`). */
    readonly sizes?: ReadonlyArray<number>
    /** Scanner v2 documents (test/bench/scannerDocuments.ts) for the writes and the storage figures. */
    readonly documents?: string
  }
) => {
  const sizes = options.sizes ?? (options.tenMillion ? [1_000_000, 10_000_000] : [1_000_000])
  const documents = scannerDocuments(options.documents)
  const lookups: Array<LookupFigures> = []
  let storage: StorageFigures | undefined
  for (const scans of sizes) {
    const db = await rateDatabase(adminUrl, scans)
    console.log(
      `  ${count(scans)} scans: ${db.reused ? "reused; its build took" : "built in"} ${db.buildSeconds.toFixed(1)} s`
    )
    const figures = {
      ...(await measureLookup(db.url, options.lookups)),
      ...(await measureInsert(db.url, 1_000, documents))
    }
    console.log(
      `    lookup p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms (before latest_scans p50 ${figures.probeP50Ms.toFixed(2)} ms); ` +
        `record ${figures.insertPerSecond.toFixed(0)} scans/s one at a time (p50 ${figures.insertP50Ms.toFixed(2)} ms); plan: ${figures.plan}`
    )
    lookups.push({ scans, buildSeconds: db.buildSeconds, reused: db.reused, ...figures })
    storage ??= await measureStorage(db.url, documents)
  }
  return { lookups, storage: storage! }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      "skip-10m": { type: "boolean", default: false },
      lookups: { type: "string", default: "2000" },
      layouts: { type: "string" },
      documents: { type: "string" },
      sizes: { type: "string" }
    }
  })
  const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  if (!(await isReachable(adminUrl))) {
    console.error(`PostgreSQL not reachable at ${adminUrl} (BENCH_DATABASE_URL)`)
    process.exit(1)
  }
  const started = performance.now()
  // --layouts N: the partitioned history against the one table before sql/0018, on N generated scans each.
  if (values.layouts !== undefined) {
    const scans = Number(values.layouts)
    const figures = await layoutBench(adminUrl, scans, Number(values.lookups))
    console.log(`\n${layoutTable(scans, figures)}\n`)
    console.log(`whole layout bench ${((performance.now() - started) / 1000).toFixed(0)} s`)
    process.exit(0)
  }
  const { lookups, storage } = await historyBench(adminUrl, {
    tenMillion: !values["skip-10m"],
    lookups: Number(values.lookups),
    ...(values.documents === undefined ? {} : { documents: values.documents }),
    ...(values.sizes === undefined ? {} : { sizes: values.sizes.split(",").map(Number) })
  })
  console.log(`\n${historyTable(lookups, storage, Effect.runSync(ScanHistoryDays))}\n`)
  console.log(`whole history bench ${((performance.now() - started) / 1000).toFixed(0)} s`)
}
