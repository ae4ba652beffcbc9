import { Effect, type Stream } from "effect"
import { WalletRepo } from "../WalletRisk/WalletRepo.ts"
import { ScansRepo } from "./ScansRepo.ts"
import { importNdjson } from "./ImportNdjson.ts"
import { ListingsRepo } from "./ListingsRepo.ts"
import { parseListingLine, parseScanLine, parseWalletLine } from "./ParseLine.ts"

export { fileLines, type ImportReport } from "./ImportNdjson.ts"

/** Scans from NDJSON lines into the append-only history. */
export const importScans = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ScansRepo, (scans) => importNdjson(lines, parseScanLine, scans.record))

/** Wallet labels and exposures from NDJSON lines; a newer observation replaces an older one. */
export const importWalletEvidence = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(WalletRepo, (store) =>
    importNdjson(lines, parseWalletLine, (records) =>
      Effect.map(store.record(records), (result) => ({ inserted: result.stored, duplicates: result.unchanged }))
    )
  )

/** Community list memberships from NDJSON lines (`{mint, list, source}`). */
export const importListings = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ListingsRepo, (listings) => importNdjson(lines, parseListingLine, listings.record))
