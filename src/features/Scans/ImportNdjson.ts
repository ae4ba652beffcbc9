import { Chunk, Clock, Effect, Either, Stream } from "effect"
import type { ServiceUnavailable } from "../../domain/Errors.ts"

export interface LineError {
  readonly line: number
  readonly reason: string
}

export interface ImportReport {
  readonly lines: number
  /** Records stored: new, or newer than what was stored. */
  readonly inserted: number
  /** Records already present: importing them again changed nothing. */
  readonly duplicates: number
  /** Every rejected line is counted; the first 1,000 are listed in `errors`. */
  readonly invalid: number
  readonly errors: ReadonlyArray<LineError>
}

export type ParseLine<A> = (text: string, line: number, now: number) => Either.Either<A | undefined, LineError>
export type Store<A> = (
  records: ReadonlyArray<A>
) => Effect.Effect<{ readonly inserted: number; readonly duplicates: number }, ServiceUnavailable>

const BATCH = 500
const MAX_REPORTED_ERRORS = 1_000

/** Streams NDJSON lines into storage: valid lines are stored in batches, invalid ones reported by line. */
export const importNdjson = <A>(lines: Stream.Stream<string, Error>, parse: ParseLine<A>, store: Store<A>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    return yield* lines.pipe(
      Stream.zipWithIndex,
      Stream.map(([text, index]) => parse(text, index + 1, now)),
      Stream.grouped(BATCH),
      Stream.runFoldEffect(
        { lines: 0, inserted: 0, duplicates: 0, invalid: 0, errors: [] as Array<LineError> },
        (report, chunk) =>
          Effect.gen(function* () {
            const valid: Array<A> = []
            let invalid = 0
            for (const parsed of Chunk.toReadonlyArray(chunk)) {
              if (Either.isLeft(parsed)) {
                invalid++
                if (report.errors.length < MAX_REPORTED_ERRORS) report.errors.push(parsed.left)
              } else if (parsed.right !== undefined) valid.push(parsed.right)
            }
            const stored = yield* store(valid)
            return {
              lines: report.lines + chunk.length,
              inserted: report.inserted + stored.inserted,
              duplicates: report.duplicates + stored.duplicates,
              invalid: report.invalid + invalid,
              errors: report.errors
            }
          })
      )
    )
  })

/** Lines of a file, decoded as UTF-8 and split on \n or \r\n. */
export const fileLines = (path: string): Stream.Stream<string, Error> =>
  Stream.fromReadableStream({
    evaluate: () => Bun.file(path).stream(),
    onError: (cause) => new Error(`cannot read ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
  }).pipe(Stream.decodeText(), Stream.splitLines)
