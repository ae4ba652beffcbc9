import { Effect, Either, type Stream } from "effect"
import { WalletRepo } from "../Wallet/WalletRepo.ts"
import { ScansRepo } from "./ScansRepo.ts"
import { type ImportReport, importNdjson, type ParseLine } from "./ImportNdjson.ts"
import { checkIssuerClaim } from "./IssuerClaims.ts"
import type { RecordedScan } from "./ScansRepo.ts"
import { ListingsRepo } from "./ListingsRepo.ts"
import { parseListingLine, parseScanLine, parseWalletLine } from "./ParseLine.ts"

export { fileLines, type ImportReport } from "./ImportNdjson.ts"

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
      return Effect.map(importNdjson(lines, parse, scans.record), (report): ScanImportReport => ({ ...report, unverifiedIssuerClaims: unverified }))
    }))

/** Wallet labels and exposures from NDJSON lines; a newer observation replaces an older one. */
export const importWalletEvidence = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(WalletRepo, (store) =>
    importNdjson(lines, parseWalletLine, (records) =>
      Effect.map(store.record(records), (result) => ({ inserted: result.stored, duplicates: result.unchanged }))))

/** Community list memberships from NDJSON lines (`{mint, list, source}`). */
export const importListings = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ListingsRepo, (listings) => importNdjson(lines, parseListingLine, listings.record))
