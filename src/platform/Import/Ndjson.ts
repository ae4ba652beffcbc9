import { Chunk, Clock, Effect, Either, ParseResult, Schema, Stream } from "effect"
import type { ServiceUnavailable } from "../../domain/Errors.ts"

// The NDJSON import machinery every importer shares (scans, listings, wallet evidence, market figures): a
// line parser from a schema, and the stream that stores valid lines in batches and reports the invalid ones.
// Each line's schema and store live with the feature that owns its table.

interface LineError {
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

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path
    .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
    .join("")
    .replace(/^\./, "")

const describe = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`))
    .join("; ")

// A source's clock may run a little ahead; a record further in the future would pin what we answer.
const MAX_CLOCK_SKEW_MS = 5 * 60_000

type Timestamps<A> = (record: A) => ReadonlyArray<readonly [string, string | null]>

/** A parser of one NDJSON line for `schema`: a record, nothing (blank line), or why it is rejected. */
export const lineParser = <A, I>(schema: Schema.Schema<A, I>, timestamps: Timestamps<A>): ParseLine<A> => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  const inFuture = (record: A, now: number): string | undefined => {
    for (const [field, value] of timestamps(record)) {
      if (value !== null && Date.parse(value) > now + MAX_CLOCK_SKEW_MS) return `${field}: ${value} is in the future`
    }
    return undefined
  }
  return (text, line, now): Either.Either<A | undefined, LineError> => {
    if (text.trim() === "") return Either.right(undefined)
    // PostgreSQL cannot store U+0000 in text or jsonb; one such line must not sink its whole batch.
    if (text.includes("\\u0000") || text.includes("\u0000")) {
      return Either.left({ line, reason: "contains a NUL character (\\u0000), which cannot be stored" })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (cause) {
      return Either.left({ line, reason: `not JSON (${cause instanceof Error ? cause.message : String(cause)})` })
    }
    return decode(json).pipe(
      Either.mapLeft((error) => ({ line, reason: describe(error) })),
      Either.flatMap((record) => {
        const future = inFuture(record, now)
        return future === undefined ? Either.right(record) : Either.left({ line, reason: future })
      })
    )
  }
}
