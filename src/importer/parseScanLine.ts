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

/** One NDJSON line: a scan, nothing (blank line), or the reason it is rejected. */
export const parseScanLine = (text: string, line: number): Either.Either<ScanEvidence | undefined, LineError> => {
  if (text.trim() === "") return Either.right(undefined)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    return Either.left({ line, reason: `not JSON (${cause instanceof Error ? cause.message : String(cause)})` })
  }
  return Either.mapLeft(decode(json), (error) => ({ line, reason: describe(error) }))
}
