import { Effect, type Stream } from "effect"
import { ScanCache } from "../services/ScanCache.ts"
import { WalletStore } from "../services/WalletStore.ts"
import { importNdjson } from "./importNdjson.ts"
import { parseScanLine, parseWalletLine } from "./parseLine.ts"

export { fileLines, type ImportReport } from "./importNdjson.ts"

/** Scans from NDJSON lines into the append-only history. */
export const importScans = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(ScanCache, (scans) => importNdjson(lines, parseScanLine, scans.record))

/** Wallet labels and exposures from NDJSON lines; a newer observation replaces an older one. */
export const importWalletEvidence = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(WalletStore, (store) =>
    importNdjson(lines, parseWalletLine, (records) =>
      Effect.map(store.record(records), (result) => ({ inserted: result.stored, duplicates: result.unchanged }))))
