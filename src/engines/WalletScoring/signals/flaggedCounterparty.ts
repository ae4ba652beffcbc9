import type { Severity, WalletExposure } from "../../../domain/WalletEvidence.ts"
import { SEVERITY_RANK } from "../levels.ts"
import { COUNTERPARTY_SEVERITY_POINTS, FLAGGED_EXPOSURE_CAP } from "../model.ts"
import type { SignalRule, WalletEvidence } from "../types.ts"
import { adverseLabelsOf, categorySeverityOf, isConductLabel } from "./counterparty.ts"
import { type Contribution, contributionOf, exposureFinding } from "./exposureSignal.ts"

interface Reason {
  readonly severity: Severity
  readonly why: string
}

const reasonsOf = (evidence: WalletEvidence, exposure: WalletExposure): ReadonlyArray<Reason> => {
  const labelled = adverseLabelsOf(evidence, exposure)
    .filter((label) => !isConductLabel(label.label))
    .map((label) => ({
      severity: label.severity,
      why: `labelled ${label.label} by ${label.source} (${label.severity})`
    }))
  const categorySeverity = categorySeverityOf(exposure.category)
  const categorised =
    categorySeverity === null
      ? []
      : [{ severity: categorySeverity, why: `category ${exposure.category} (${categorySeverity})` }]
  return [...labelled, ...categorised]
}

// The counterparty weighs as its most severe reason.
const contributionFor = (evidence: WalletEvidence, exposure: WalletExposure): ReadonlyArray<Contribution> => {
  const reasons = reasonsOf(evidence, exposure)
  const worst = reasons.reduce<Severity | null>(
    (most, reason) => (most === null || SEVERITY_RANK[reason.severity] > SEVERITY_RANK[most] ? reason.severity : most),
    null
  )
  if (worst === null) return []
  return [contributionOf(exposure, COUNTERPARTY_SEVERITY_POINTS[worst], reasons.map((reason) => reason.why).join(", "))]
}

export const flaggedCounterpartyExposure: SignalRule = (evidence) =>
  exposureFinding(
    {
      label: "flagged_counterparty_exposure",
      cap: FLAGGED_EXPOSURE_CAP,
      counterparties: (count) => `${count} flagged counterpart${count === 1 ? "y" : "ies"}`
    },
    evidence.exposures.flatMap((exposure) => contributionFor(evidence, exposure))
  )
