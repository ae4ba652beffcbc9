import { Data, Effect, Stream } from "effect"
import { fileLines, type ImportReport, importNdjson, lineParser } from "../../platform/Import/Ndjson.ts"
import { Transactions } from "../../platform/Sql/Transactions.ts"
import { MarketFeedLine } from "./FeedLine.ts"
import { MarketFiguresRepo } from "./MarketFiguresRepo.ts"

const parseMarketLine = lineParser(MarketFeedLine, (line) => [["observedAt", line.observedAt]])

export interface MarketImportReport extends ImportReport {
  /** false: an invalid line stopped the import and nothing was written. */
  readonly written: boolean
}

class InvalidLines extends Data.TaggedError("InvalidLines")<{ readonly report: ImportReport }> {}

/** Lines of a file, or of standard input for `-`. */
export const feedLines = (path: string): Stream.Stream<string, Error> =>
  path === "-"
    ? Stream.fromReadableStream({
        evaluate: () => Bun.stdin.stream(),
        onError: (cause) =>
          new Error(`cannot read standard input: ${cause instanceof Error ? cause.message : String(cause)}`)
      }).pipe(Stream.decodeText(), Stream.splitLines)
    : fileLines(path)

/**
 * Market figures from NDJSON lines (docs/market-feed.md), in one transaction: one invalid line writes
 * nothing, unless `skipInvalid`, when the valid lines are stored and the invalid ones only reported.
 */
export const importMarketFigures = (lines: Stream.Stream<string, Error>, options: { readonly skipInvalid: boolean }) =>
  Effect.gen(function* () {
    const transactions = yield* Transactions
    const repo = yield* MarketFiguresRepo
    return yield* importNdjson(lines, parseMarketLine, repo.record).pipe(
      Effect.filterOrFail(
        (report) => options.skipInvalid || report.invalid === 0,
        (report) => new InvalidLines({ report })
      ),
      (work) => transactions.run(work),
      Effect.map((report): MarketImportReport => ({ ...report, written: true })),
      Effect.catchTag("InvalidLines", ({ report }) =>
        Effect.succeed<MarketImportReport>({ ...report, inserted: 0, duplicates: 0, written: false })
      )
    )
  })
