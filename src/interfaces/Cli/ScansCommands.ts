import { Command, Options } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import {
  MAX_HISTORY_DAYS,
  MAX_PRUNE_BATCH,
  MIN_HISTORY_DAYS,
  ScanHistoryDays,
  ScanRetention
} from "../../features/Scans/ScanRetention.ts"
import { DatabaseLive } from "../../platform/Sql/Database.ts"
import { WebhookRetentionFloor } from "../../features/Webhooks/RetentionFloor.ts"

// `risk-api prune-scans`: retention of the scan history (Scans/ScanRetention.ts says what is kept).

const keepDays = Options.integer("keep-days").pipe(
  Options.optional,
  Options.filterMap(
    (days) =>
      Option.isNone(days) || (days.value >= MIN_HISTORY_DAYS && days.value <= MAX_HISTORY_DAYS)
        ? Option.some(days)
        : Option.none(),
    `--keep-days must be between ${MIN_HISTORY_DAYS} and ${MAX_HISTORY_DAYS} (the 24 h liquidity trend needs a day of history)`
  ),
  Options.withDescription("Days of history to keep (default SCAN_HISTORY_DAYS, 7).")
)
const batch = Options.integer("batch").pipe(
  Options.withDefault(5_000),
  Options.filterMap(
    (n) => (n >= 1 && n <= MAX_PRUNE_BATCH ? Option.some(n) : Option.none()),
    `--batch must be between 1 and ${MAX_PRUNE_BATCH}`
  ),
  Options.withDescription("Scans examined per transaction.")
)
const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("Count what would be deleted; delete nothing."))

const Retention = ScanRetention.Default.pipe(Layer.provide(WebhookRetentionFloor), Layer.provide(DatabaseLive))

const count = (n: number) => n.toLocaleString("en-US")

export const pruneScansCommand = Command.make("prune-scans", { keepDays, batch, dryRun }, (options) =>
  Effect.gen(function* () {
    const days = Option.isSome(options.keepDays) ? options.keepDays.value : yield* ScanHistoryDays
    const started = performance.now()
    // The database starts only once the arguments and settings are known to be good.
    const report = yield* Effect.flatMap(ScanRetention, (retention) =>
      retention.prune({ keepDays: days, batchSize: options.batch, dryRun: options.dryRun })
    ).pipe(Effect.provide(Retention))
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    yield* Console.log(
      `${options.dryRun ? "would delete" : "deleted"} ${count(report.deleted)} scans taken before ${report.cutoff.toISOString()} ` +
        `(${days} days kept); kept ${count(report.kept)} older ones: the latest scan of each mint and the 24 hours before it; ` +
        `${report.batches} ${report.batches === 1 ? "batch" : "batches"}, ${seconds} s`
    )
    if (report.awaitingEvaluation > 0) {
      yield* Console.log(
        `${count(report.awaitingEvaluation)} of them not yet evaluated for watch alerts (the server's evaluator does it): run it again later`
      )
    }
  })
).pipe(
  Command.withDescription(
    "Delete scans older than the history window (--keep-days, else SCAN_HISTORY_DAYS), keeping the latest scan of every mint and the 24 hours before it; in batches, safe to run while the server and scanner write."
  )
)
