import { SqlClient, type Statement } from "@effect/sql"
import { Config, Context, Effect } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"
import { ENSURE_SCAN_PARTITIONS } from "../../platform/Sql/Migrations.ts"

/** The 24 h liquidity trend read with every latest scan (ScansRepo PEAK_24H) needs a day of history. */
export const MIN_HISTORY_DAYS = 1
export const MAX_HISTORY_DAYS = 3_650
export const MAX_PRUNE_BATCH = 100_000

/** SCAN_HISTORY_DAYS: how many days of scan history `risk-api prune-scans` keeps by default. */
export const ScanHistoryDays = Config.integer("SCAN_HISTORY_DAYS").pipe(
  Config.validate({
    message: `SCAN_HISTORY_DAYS must be between ${MIN_HISTORY_DAYS} and ${MAX_HISTORY_DAYS} (the 24 h liquidity trend needs a day of history)`,
    validation: (n) => n >= MIN_HISTORY_DAYS && n <= MAX_HISTORY_DAYS
  }),
  Config.withDefault(7)
)

interface PruneOptions {
  readonly keepDays: number
  readonly batchSize: number
  readonly dryRun: boolean
}

interface PruneReport {
  /** Scans taken before this were candidates. */
  readonly cutoff: Date
  /** Deleted (or, in a dry run, that would be), whether by DELETE or with their day's partition. */
  readonly deleted: number
  /** Candidates kept: the latest scan of a mint or the day before it, or not yet evaluated for watch alerts. */
  readonly kept: number
  /** Candidates kept only because the watch-alert evaluator (run by `serve`) has not reached them yet. */
  readonly awaitingEvaluation: number
  /** Transactions of the DELETE walk (scans_default and scans_legacy). */
  readonly batches: number
  /** Partitions dropped whole (or that would be): days out of the window, and scans_legacy once all of it is. */
  readonly partitionsDropped: number
}

// The partitions retention deletes from (the others are dropped whole), as the walk reads them.
const WALKS = {
  scans_default: "select id, mint, scanned_at from scans_default",
  scans_legacy: "select id, mint, scanned_at from scans_legacy"
} as const

interface Position {
  readonly at: string
  readonly id: string
}

interface BatchRow {
  readonly examined: string
  readonly deleted: string
  readonly waiting: string
  readonly last_at: string | null
  readonly last_id: string | null
}

interface PartitionRow {
  readonly examined: string
  readonly kept: string
  readonly waiting: string
}

/**
 * How far the readers of the history outside Scans have got: a one-row relation with a `scan_id` column, the
 * highest scan id they have passed; retention keeps every scan above it (and those it needs, see below). Scans
 * owns the need, another feature the position: Webhooks provides it from the watch-alert evaluator's cursor
 * (Webhooks/RetentionFloor.ts), composed where ScanRetention is built.
 */
export class RetentionFloor extends Context.Tag("RetentionFloor")<
  RetentionFloor,
  { readonly passed: Statement.Fragment }
>() {}

// Retention of the append-only scan history: scans taken before the window go, except what a reader still
// needs. Kept: the latest scan of every mint and the 24 hours of scans before it (the liquidity trend of that
// latest scan), and any scan the watch-alert evaluator has not passed, or whose only later scans it has not
// passed (its baseline for a new watch is the mint's previous scan). So a scan goes when a scan of the same
// mint taken at least 24 hours later exists and both were evaluated. What goes is folded into scans_pruned
// (first seen, peak liquidity, count) for whole-history readers.
// latest_scans is left as it is: the scan each row names, and the day before it that its trends were read
// from, are among what is kept, so a row always agrees with the history.
//
// The history is partitioned by day (sql/0018). A day's partition whose whole day is before the cutoff is
// dropped whole, in one short transaction: the scans of it that are kept (above) are copied aside first and
// inserted again after the drop, which puts them in scans_default (the dropped day is now no partition's), so
// every reader (the Deployer's launches, the evaluator's previous scan, a position's history, latest_scans)
// answers as it did. The window is thus whole days: a day that straddles the cutoff waits for the next run.
// Scans in scans_default and in scans_legacy (the history from before sql/0018, until its last day is out of
// the window and it is dropped the same way) are deleted as before: batches walk their by-age index from the
// oldest, keyset-paginated, so scans kept at the start of the range are passed once, not again by every
// batch; each batch is its own short transaction.
export class ScanRetention extends Effect.Service<ScanRetention>()("ScanRetention", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const floor = (yield* RetentionFloor).passed

    // The partitions the DELETE walk covers: scans_default, and scans_legacy while it exists.
    const walked = Effect.map(
      sql<{ legacy: boolean }>`select to_regclass('scans_legacy') is not null as legacy`,
      ([row]) => (row!.legacy ? ["scans_default", "scans_legacy"] : ["scans_default"])
    )

    // Positions travel as text: a JavaScript Date would drop the microseconds of timestamptz.
    const chunk = (tables: ReadonlyArray<string>, cutoff: string, after: Position, batchSize: number) =>
      sql`
        select id, mint, scanned_at from (${sql.literal(
          tables.map((table) => WALKS[table as keyof typeof WALKS]).join(" union all ")
        )}) candidates
        where scanned_at < ${cutoff}::timestamptz and (scanned_at, id) > (${after.at}::timestamptz, ${after.id}::bigint)
        order by scanned_at, id
        limit ${batchSize}`

    // The candidates of a chunk that may go (see above), against the evaluator's position.
    const doomed = sql`
      select c.id, c.scanned_at from chunk c cross join (${floor}) w
      where c.id <= w.scan_id and exists (
        select 1 from scans n
        where n.mint = c.mint and n.scanned_at >= c.scanned_at + interval '24 hours' and n.id <= w.scan_id)`

    const progress = sql`
      (select count(*) from chunk) as examined,
      (select count(*) from chunk c, (${floor}) w where c.id > w.scan_id) as waiting,
      (select scanned_at::text from chunk order by scanned_at desc, id desc limit 1) as last_at,
      (select id::text from chunk order by scanned_at desc, id desc limit 1) as last_id`

    // A completed request forgets the scan that completed it when that scan goes (the foreign key's
    // ON DELETE SET NULL before sql/0018).
    const deleteBatch = (tables: ReadonlyArray<string>, cutoff: string, after: Position, batchSize: number) =>
      sql<BatchRow>`
        with chunk as (${chunk(tables, cutoff, after, batchSize)}),
        doomed as (${doomed}),
        gone as (
          delete from scans s using doomed d where s.id = d.id and s.scanned_at = d.scanned_at
          returning s.id, s.mint, s.scanned_at, coalesce(s.liquidity_usd,
            (s.evidence->'liquidity'->>'liquidityUsd')::float8, (s.evidence->'market'->>'liquidityUsd')::float8) as liquidity
        ),
        folded as (
          insert into scans_pruned as p (mint, first_scanned_at, peak_liquidity_usd, scans)
          select mint, min(scanned_at), max(liquidity), count(*) from gone group by mint
          on conflict (mint) do update set
            first_scanned_at = least(p.first_scanned_at, excluded.first_scanned_at),
            peak_liquidity_usd = greatest(p.peak_liquidity_usd, excluded.peak_liquidity_usd),
            scans = p.scans + excluded.scans
        ),
        forgotten as (
          update scan_requests r set completed_by_scan = null from gone g
          where r.completed_by_scan = g.id
        )
        select (select count(*) from gone) as deleted, ${progress}`

    const countBatch = (tables: ReadonlyArray<string>, cutoff: string, after: Position, batchSize: number) =>
      sql<BatchRow>`
        with chunk as (${chunk(tables, cutoff, after, batchSize)}), doomed as (${doomed})
        select (select count(*) from doomed) as deleted, ${progress}`

    // The partitions wholly before the cutoff, oldest first: days (scans_pYYYYMMDD, UTC) and scans_legacy, whose
    // range ends where the days begin (scans_partitioning.daily_from).
    const expired = (cutoff: string) =>
      sql<{ name: string }>`
        select name from (
          select c.relname::text as name,
            case when c.relname = 'scans_legacy' then (select daily_from from scans_partitioning)
              when c.relname ~ '^scans_p[0-9]{8}$' then to_date(substr(c.relname, 8), 'YYYYMMDD') + 1 end as ends
          from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = 'scans'::regclass and (c.relname = 'scans_legacy' or c.relname ~ '^scans_p[0-9]{8}$')
        ) p
        where ends::timestamp at time zone 'UTC' <= ${cutoff}::timestamptz
        order by ends, name`

    // Of the scans of `partition`, whether each is kept (see above): per mint of the partition, the newest scan
    // the evaluator has passed (one probe of scans_latest per mint, not per scan); a scan is kept unless it is
    // passed and at least 24 hours older than that one.
    const marked = (partition: string) => sql`
      select p.*, (p.id > w.scan_id or n.until is null or p.scanned_at > n.until - interval '24 hours') as kept,
        p.id > w.scan_id as waiting
      from ${sql(partition)} p
      cross join (${floor}) w
      join (
        select m.mint, (select max(s.scanned_at) from scans s, (${floor}) f where s.mint = m.mint and s.id <= f.scan_id) as until
        from (select distinct mint from ${sql(partition)}) m
      ) n on n.mint = p.mint`

    const countPartition = (partition: string) =>
      sql<PartitionRow>`
        select count(*) as examined, count(*) filter (where kept) as kept, count(*) filter (where waiting) as waiting
        from (${marked(partition)}) m`

    // One transaction: the partition is locked against inserts, what is kept is copied aside, what goes is
    // folded into scans_pruned, then the partition is dropped and what is kept inserted again (into
    // scans_default). The drop holds the whole table for the rest of the transaction: only the insert of the
    // kept scans, a few per mint not scanned since. The copy reads a whole day of scans, which may outlast the
    // server's statement timeout: the transaction lifts it (prune-scans is an operator's command).
    const dropPartition = (partition: string) =>
      Effect.gen(function* () {
        yield* sql`set local statement_timeout = 0`
        yield* sql`lock table ${sql(partition)} in share mode`
        yield* sql`create temp table scans_kept on commit drop as
          select * from (${marked(partition)}) m`
        const [row] = yield* sql<PartitionRow>`
          select count(*) as examined, count(*) filter (where kept) as kept, count(*) filter (where waiting) as waiting
          from scans_kept`
        yield* sql`
          insert into scans_pruned as p (mint, first_scanned_at, peak_liquidity_usd, scans)
          select mint, min(scanned_at), max(coalesce(liquidity_usd,
            (evidence->'liquidity'->>'liquidityUsd')::float8, (evidence->'market'->>'liquidityUsd')::float8)), count(*)
          from scans_kept where not kept group by mint
          on conflict (mint) do update set
            first_scanned_at = least(p.first_scanned_at, excluded.first_scanned_at),
            peak_liquidity_usd = greatest(p.peak_liquidity_usd, excluded.peak_liquidity_usd),
            scans = p.scans + excluded.scans`
        yield* sql`
          update scan_requests r set completed_by_scan = null from scans_kept k
          where r.completed_by_scan = k.id and not k.kept`
        yield* sql`drop table ${sql(partition)}`
        yield* sql`
          insert into scans (id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd,
            evidence_v2_zstd)
          overriding system value
          select id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd,
            evidence_v2_zstd
          from scans_kept where kept`
        return row!
      }).pipe(sql.withTransaction)

    const prune = (options: PruneOptions) =>
      Effect.gen(function* () {
        if (!options.dryRun) yield* sql.unsafe(ENSURE_SCAN_PARTITIONS)
        const [clock] = yield* sql<{ readonly cutoff: string; readonly cutoff_at: Date }>`
          select c::text as cutoff, c as cutoff_at from (select now() - ${options.keepDays} * interval '1 day' as c) t`
        const cutoff = clock!.cutoff
        let report: PruneReport = {
          cutoff: new Date(clock!.cutoff_at),
          deleted: 0,
          kept: 0,
          awaitingEvaluation: 0,
          batches: 0,
          partitionsDropped: 0
        }
        // The partitions wholly out of the window are dropped after the walk, so the kept scans they put in
        // scans_default are not counted twice; scans_legacy is walked only while some of it is in the window.
        const dropped = (yield* expired(cutoff)).map((row) => row.name)
        const tables = (yield* walked).filter((table) => !dropped.includes(table))
        const run = options.dryRun ? countBatch : deleteBatch
        let after: Position = { at: "-infinity", id: "0" }
        while (true) {
          const [row] = yield* run(tables, cutoff, after, options.batchSize)
          const examined = Number(row!.examined)
          if (examined === 0) break
          const deleted = Number(row!.deleted)
          report = {
            ...report,
            deleted: report.deleted + deleted,
            kept: report.kept + examined - deleted,
            awaitingEvaluation: report.awaitingEvaluation + Number(row!.waiting),
            batches: report.batches + 1
          }
          if (examined < options.batchSize) break
          after = { at: row!.last_at!, id: row!.last_id! }
        }
        for (const name of dropped) {
          const [row] = options.dryRun ? yield* countPartition(name) : [yield* dropPartition(name)]
          const kept = Number(row!.kept)
          report = {
            ...report,
            deleted: report.deleted + Number(row!.examined) - kept,
            kept: report.kept + kept,
            awaitingEvaluation: report.awaitingEvaluation + Number(row!.waiting),
            partitionsDropped: report.partitionsDropped + 1
          }
        }
        return report
      })

    return repository({
      /** Drops or deletes (or with dryRun counts) the scans older than `keepDays` that no reader needs; see above. */
      prune
    })
  })
}) {}
