import { Effect, Either, type Stream } from "effect"
import { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { ListingLine } from "../../domain/Listing.ts"
import { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { type ImportReport, importNdjson, lineParser, type ParseLine } from "../../platform/Import/Ndjson.ts"
import { checkIssuerClaim } from "./IssuerClaims.ts"
import { ListingsRepo } from "./ListingsRepo.ts"
import { type RecordedScan, ScansRepo } from "./ScansRepo.ts"

const parseV1 = lineParser(ScanEvidence, (scan) => [
  ["scannedAt", scan.scannedAt],
  ["createdAt", scan.createdAt]
])
const parseV2 = lineParser(ScanEvidenceV2, (scan) => [
  ["scannedAt", scan.scannedAt],
  ["token.createdAt", scan.token.createdAt.status === "observed" ? scan.token.createdAt.value : null]
])

/** A scan line in format v1 or v2 (a v2 line says `"version": 2`); docs/scan-evidence.md. */
const parseScanLine: ParseLine<RecordedScan> = (text, line, now) =>
  /"version"\s*:\s*2\b/.test(text) ? parseV2(text, line, now) : parseV1(text, line, now)

const parseListingLine = lineParser(ListingLine, () => [])

export interface ScanImportReport extends ImportReport {
  /** Lines that claimed issuer verification for a mint not on the curated list: stored as not verified. */
  readonly unverifiedIssuerClaims: number
}

/** Scans from NDJSON lines into the append-only history; issuer-verified claims checked against the curated list. */
export const importScans = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ScansRepo, (scans) =>
    Effect.suspend(() => {
      let unverified = 0
      const parse: ParseLine<RecordedScan> = (text, line, now) =>
        Either.map(parseScanLine(text, line, now), (record) => {
          if (record === undefined) return record
          const checked = checkIssuerClaim(record)
          if (checked !== record) unverified++
          return checked
        })
      return Effect.map(
        importNdjson(lines, parse, scans.record),
        (report): ScanImportReport => ({ ...report, unverifiedIssuerClaims: unverified })
      )
    })
  )

/** Community list memberships from NDJSON lines (`{mint, list, source}`). */
export const importListings = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ListingsRepo, (listings) => importNdjson(lines, parseListingLine, listings.record))
