import { Either, ParseResult, Schema } from "effect"
import { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { ListingLine } from "../../domain/Listing.ts"
import { MarketFeedLine } from "../Market/FeedLine.ts"
import { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { WalletEvidenceLine } from "../../domain/WalletEvidence.ts"
import type { LineError, ParseLine } from "./ImportNdjson.ts"
import type { RecordedScan } from "./ScansRepo.ts"

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
export const MAX_CLOCK_SKEW_MS = 5 * 60_000

type Timestamps<A> = (record: A) => ReadonlyArray<readonly [string, string | null]>

/** A parser of one NDJSON line for `schema`: a record, nothing (blank line), or why it is rejected. */
const lineParser = <A, I>(schema: Schema.Schema<A, I>, timestamps: Timestamps<A>): ParseLine<A> => {
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

const parseV1 = lineParser(ScanEvidence, (scan) => [
  ["scannedAt", scan.scannedAt],
  ["createdAt", scan.createdAt]
])
const parseV2 = lineParser(ScanEvidenceV2, (scan) => [
  ["scannedAt", scan.scannedAt],
  ["token.createdAt", scan.token.createdAt.status === "observed" ? scan.token.createdAt.value : null]
])

/** A scan line in format v1 or v2 (a v2 line says `"version": 2`); docs/scan-evidence.md. */
export const parseScanLine: ParseLine<RecordedScan> = (text, line, now) =>
  /"version"\s*:\s*2\b/.test(text) ? parseV2(text, line, now) : parseV1(text, line, now)

export const parseListingLine = lineParser(ListingLine, () => [])

export const parseMarketLine = lineParser(MarketFeedLine, (line) => [["observedAt", line.observedAt]])

export const parseWalletLine = lineParser(WalletEvidenceLine, (line) =>
  line.type === "label" ? [["observedAt", line.observedAt]] : [["lastSeenAt", line.lastSeenAt]]
)
