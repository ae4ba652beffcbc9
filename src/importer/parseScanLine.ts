import { Either, ParseResult, Schema } from "effect"
import { ScanEvidence } from "../domain/ScanEvidence.ts"

export interface LineError {
  readonly line: number
  readonly reason: string
}

const decode = Schema.decodeUnknownEither(ScanEvidence, { errors: "all" })

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join("").replace(/^\./, "")

const describe = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`)
    .join("; ")

// A scanner's clock may run a little ahead; a scan further in the future would pin the mint's verdict.
export const MAX_CLOCK_SKEW_MS = 5 * 60_000

const inFuture = (scan: ScanEvidence, now: number): string | undefined => {
  for (const [field, value] of [["scannedAt", scan.scannedAt], ["createdAt", scan.createdAt]] as const) {
    if (value !== null && Date.parse(value) > now + MAX_CLOCK_SKEW_MS) return `${field}: ${value} is in the future`
  }
  return undefined
}

/** One NDJSON line: a scan, nothing (blank line), or the reason it is rejected. */
export const parseScanLine = (
  text: string,
  line: number,
  now: number
): Either.Either<ScanEvidence | undefined, LineError> => {
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
    Either.flatMap((scan) => {
      const future = inFuture(scan, now)
      return future === undefined ? Either.right(scan) : Either.left({ line, reason: future })
    })
  )
}
