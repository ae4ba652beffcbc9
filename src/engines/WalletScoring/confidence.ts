import { SEVERITY_RANK } from "./levels.ts"
import { CONFIDENT_SOURCE_COUNT } from "./model.ts"
import { DIRECT_SIGNALS } from "./signals/index.ts"
import type { WalletConfidence, WalletSignal, WalletSource } from "./types.ts"

const isDirectFinding = (signal: WalletSignal): boolean =>
  DIRECT_SIGNALS.includes(signal.label) && SEVERITY_RANK[signal.severity] >= SEVERITY_RANK.high

// The model has no clock, so the age of the evidence does not enter; breadth and directness do.
export const confidenceOf = (
  sources: ReadonlyArray<WalletSource>,
  signals: ReadonlyArray<WalletSignal>
): WalletConfidence =>
  sources.length === 0
    ? "low"
    : sources.length >= CONFIDENT_SOURCE_COUNT || signals.some(isDirectFinding)
      ? "high"
      : "medium"
