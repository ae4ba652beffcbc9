import type { Severity, WalletExposure, WalletLabel } from "../../../domain/WalletEvidence.ts"
import { isAdverse, normalised } from "../levels.ts"
import { ADVERSE_EXPOSURE_CATEGORIES, DEPLOYER_CONDUCT_LABELS } from "../model.ts"
import type { WalletEvidence } from "../types.ts"

// Labels about how a deployer behaves belong to repeat_deployer_exposure; every other adverse label to
// flagged_counterparty_exposure. So no label is counted twice.
export const isConductLabel = (label: string): boolean => DEPLOYER_CONDUCT_LABELS.includes(normalised(label))

export const adverseLabelsOf = (evidence: WalletEvidence, exposure: WalletExposure): ReadonlyArray<WalletLabel> =>
  (evidence.counterpartyLabels.get(exposure.counterpartyAddress) ?? []).filter((label) => isAdverse(label.severity))

export const categorySeverityOf = (category: string): Severity | null => {
  const key = normalised(category)
  return Object.hasOwn(ADVERSE_EXPOSURE_CATEGORIES, key) ? (ADVERSE_EXPOSURE_CATEGORIES[key] ?? null) : null
}
