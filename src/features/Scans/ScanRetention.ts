import { SqlClient, type Statement } from "@effect/sql"
import { Config, Context, Effect } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"

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
  /** Deleted (or, in a dry run, that would be). */
  readonly deleted: number
  /** Candidates kept: the latest scan of a mint or the day before it, or not yet evaluated for watch alerts. */
  readonly kept: number
  /** Candidates kept only because the watch-alert evaluator (run by `serve`) has not reached them yet. */
  readonly awaitingEvaluation: number
  readonly batches: number
}

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

// Retention of the append-only scan history: scans taken before the window are deleted, except what a
// reader still needs. Kept: the latest scan of every mint and the 24 hours of scans before it (the
// liquidity trend of that latest scan), and any scan the watch-alert evaluator has not passed, or whose
// only later scans it has not passed (its baseline for a new watch is the mint's previous scan). So a
// scan goes when a scan of the same mint taken at least 24 hours later exists and both were evaluated.
// What goes is folded into scans_pruned (first seen, peak liquidity, count) for whole-history readers.
// latest_scans is left as it is: the scan each row names, and the day before it that its trends were read
// from, are among what is kept, so a row always agrees with the history.
// Batches walk the scans_by_age index from the oldest, keyset-paginated, so scans kept at the start of
// the range are passed once, not again by every batch; each batch is its own short transaction.
export class ScanRetention extends Effect.Service<ScanRetention>()("ScanRetention", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const floor = (yield* RetentionFloor).passed

    // Positions travel as text: a JavaScript Date would drop the microseconds of timestamptz.
    const chunk = (cutoff: string, after: Position, batchSize: number) =>
      sql`
        select id, mint, scanned_at from scans
        where scanned_at < ${cutoff}::timestamptz and (scanned_at, id) > (${after.at}::timestamptz, ${after.id}::bigint)
        order by scanned_at, id
        limit ${batchSize}`

    // The candidates of a chunk that may go (see above), against the evaluator's position.
    const doomed = sql`
      select c.id from chunk c cross join (${floor}) w
      where c.id <= w.scan_id and exists (
        select 1 from scans n
        where n.mint = c.mint and n.scanned_at >= c.scanned_at + interval '24 hours' and n.id <= w.scan_id)`

    const progress = sql`
      (select count(*) from chunk) as examined,
      (select count(*) from chunk c, (${floor}) w where c.id > w.scan_id) as waiting,
      (select scanned_at::text from chunk order by scanned_at desc, id desc limit 1) as last_at,
      (select id::text from chunk order by scanned_at desc, id desc limit 1) as last_id`

    const deleteBatch = (cutoff: string, after: Position, batchSize: number) =>
      sql<BatchRow>`
        with chunk as (${chunk(cutoff, after, batchSize)}),
        doomed as (${doomed}),
        gone as (
          delete from scans s using doomed d where s.id = d.id
          returning s.mint, s.scanned_at, coalesce(s.liquidity_usd,
            (s.evidence->'liquidity'->>'liquidityUsd')::float8, (s.evidence->'market'->>'liquidityUsd')::float8) as liquidity
        ),
        folded as (
          insert into scans_pruned as p (mint, first_scanned_at, peak_liquidity_usd, scans)
          select mint, min(scanned_at), max(liquidity), count(*) from gone group by mint
          on conflict (mint) do update set
            first_scanned_at = least(p.first_scanned_at, excluded.first_scanned_at),
            peak_liquidity_usd = greatest(p.peak_liquidity_usd, excluded.peak_liquidity_usd),
            scans = p.scans + excluded.scans
        )
        select (select count(*) from gone) as deleted, ${progress}`

    const countBatch = (cutoff: string, after: Position, batchSize: number) =>
      sql<BatchRow>`
        with chunk as (${chunk(cutoff, after, batchSize)}), doomed as (${doomed})
        select (select count(*) from doomed) as deleted, ${progress}`

    const prune = (options: PruneOptions) =>
      Effect.gen(function* () {
        const [clock] = yield* sql<{ readonly cutoff: string; readonly cutoff_at: Date }>`
          select c::text as cutoff, c as cutoff_at from (select now() - ${options.keepDays} * interval '1 day' as c) t`
        const cutoff = clock!.cutoff
        const run = options.dryRun ? countBatch : deleteBatch
        let after: Position = { at: "-infinity", id: "0" }
        let report: PruneReport = {
          cutoff: new Date(clock!.cutoff_at),
          deleted: 0,
          kept: 0,
          awaitingEvaluation: 0,
          batches: 0
        }
        while (true) {
          const [row] = yield* run(cutoff, after, options.batchSize)
          const examined = Number(row!.examined)
          if (examined === 0) break
          const deleted = Number(row!.deleted)
          report = {
            cutoff: report.cutoff,
            deleted: report.deleted + deleted,
            kept: report.kept + examined - deleted,
            awaitingEvaluation: report.awaitingEvaluation + Number(row!.waiting),
            batches: report.batches + 1
          }
          if (examined < options.batchSize) break
          after = { at: row!.last_at!, id: row!.last_id! }
        }
        return report
      })

    return repository({
      /** Deletes (or with dryRun counts) the scans older than `keepDays` that no reader needs; see above. */
      prune
    })
  })
}) {}
