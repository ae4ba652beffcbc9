import { Effect, type Stream } from "effect"
import { WalletEvidenceLine } from "../../domain/WalletEvidence.ts"
import { importNdjson, lineParser } from "../../platform/Import/Ndjson.ts"
import { WalletRepo } from "./WalletRepo.ts"

const parseWalletLine = lineParser(WalletEvidenceLine, (line) =>
  line.type === "label" ? [["observedAt", line.observedAt]] : [["lastSeenAt", line.lastSeenAt]]
)

/** Wallet labels and exposures from NDJSON lines; a newer observation replaces an older one. */
export const importWalletEvidence = (lines: Stream.Stream<string, Error>) =>
  Effect.flatMap(WalletRepo, (store) =>
    importNdjson(lines, parseWalletLine, (records) =>
      Effect.map(store.record(records), (result) => ({ inserted: result.stored, duplicates: result.unchanged }))
    )
  )
