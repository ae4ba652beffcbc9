import { Args, Command, HelpDoc, Options } from "@effect/cli"
import { Console, Effect, Layer } from "effect"
import { existsSync } from "node:fs"
import { feedLines, importMarketFigures } from "../../features/Market/Import.ts"
import { MarketFiguresRepo } from "../../features/Market/MarketFiguresRepo.ts"
import { DatabaseLive } from "../../platform/Sql/Database.ts"
import { Transactions } from "../../platform/Sql/Transactions.ts"
import { ImportFailed } from "./ImportFailed.ts"

// `risk-api import-market`: a market feed's 24 h figures, which the scanner merges into its scans (docs/market-feed.md).

const file = Args.text({ name: "file" }).pipe(
  Args.mapEffect((path) =>
    path === "-" || existsSync(path) ? Effect.succeed(path) : Effect.fail(HelpDoc.p(`Path '${path}' must exist`))
  ),
  Args.withDescription(
    "NDJSON file of market figures, one mint per line (docs/market-feed.md), or - for standard input."
  )
)
const skipInvalid = Options.boolean("skip-invalid").pipe(
  Options.withDescription("Store the valid lines even when some are invalid (those are still reported) and exit 0.")
)

const MarketDatabase = Layer.mergeAll(MarketFiguresRepo.Default, Transactions.Default).pipe(
  Layer.provideMerge(DatabaseLive)
)

export const importMarketCommand = Command.make("import-market", { file, skipInvalid }, ({ file, skipInvalid }) =>
  Effect.gen(function* () {
    const name = file === "-" ? "stdin" : file
    const report = yield* importMarketFigures(feedLines(file), { skipInvalid })
    for (const error of report.errors) yield* Console.error(`${name}:${error.line}: ${error.reason}`)
    if (report.invalid > report.errors.length) {
      yield* Console.error(`${name}: ${report.invalid - report.errors.length} more invalid lines not listed`)
    }
    yield* Console.log(
      report.written
        ? `${name}: ${report.lines} lines, ${report.inserted} stored, ${report.duplicates} unchanged, ${report.invalid} invalid` +
            (report.invalid > 0 ? " (skipped)" : "")
        : `${name}: ${report.lines} lines, ${report.invalid} invalid: nothing written (--skip-invalid stores the valid lines)`
    )
    if (!report.written) return yield* Effect.fail(new ImportFailed())
  }).pipe(Effect.provide(MarketDatabase))
).pipe(
  Command.withDescription(
    "Import a market feed's 24 h volume, trade count and price change per mint (NDJSON); the scanner merges fresh figures into the scans it stores. Any invalid line: nothing written, exit 1."
  )
)
