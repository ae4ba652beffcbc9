import type { WalletExposure } from "../../../domain/WalletEvidence.ts"
import { normalised } from "../levels.ts"
import { REPEAT_DEPLOYER_CAP, REPEAT_DEPLOYER_POINTS, SERIAL_OFFENCE_COUNT } from "../model.ts"
import type { SignalRule, WalletEvidence } from "../types.ts"
import { adverseLabelsOf, isConductLabel } from "./counterparty.ts"
import { type Contribution, contributionOf, exposureFinding } from "./exposureSignal.ts"

// A launch can be both rugged and a honeypot; it is still one bad launch, hence the bound by launches.
const badLaunchesOf = (evidence: WalletEvidence, exposure: WalletExposure): { count: number; why: string | null } => {
  const record = evidence.counterpartyLaunches.get(exposure.counterpartyAddress)
  if (record === undefined) return { count: 0, why: null }
  const count = Math.min(record.launches, record.rugged + record.honeypots)
  return {
    count,
    why:
      count === 0
        ? null
        : `deployer of ${record.launches} launches, ${record.rugged} rugged, ${record.honeypots} honeypots`
  }
}

const conductLabelsOf = (evidence: WalletEvidence, exposure: WalletExposure): ReadonlyArray<string> => [
  ...adverseLabelsOf(evidence, exposure)
    .filter((label) => isConductLabel(label.label))
    .map((label) => `labelled ${label.label} by ${label.source}`),
  ...(normalised(exposure.category) === "deployer" && isConductLabel(exposure.counterpartyLabel)
    ? [`exposure names it ${exposure.counterpartyLabel}`]
    : [])
]

const contributionFor = (evidence: WalletEvidence, exposure: WalletExposure): ReadonlyArray<Contribution> => {
  const bad = badLaunchesOf(evidence, exposure)
  const conduct = conductLabelsOf(evidence, exposure)
  const why = [...(bad.why === null ? [] : [bad.why]), ...conduct].join(", ")
  if (bad.count >= SERIAL_OFFENCE_COUNT || conduct.length > 0) {
    return [contributionOf(exposure, REPEAT_DEPLOYER_POINTS.serial, why)]
  }
  return bad.count > 0 ? [contributionOf(exposure, REPEAT_DEPLOYER_POINTS.single, why)] : []
}

export const repeatDeployerExposure: SignalRule = (evidence) =>
  exposureFinding(
    {
      label: "repeat_deployer_exposure",
      cap: REPEAT_DEPLOYER_CAP,
      counterparties: (count) => `${count} repeat deployer${count === 1 ? "" : "s"}`
    },
    evidence.exposures.flatMap((exposure) => contributionFor(evidence, exposure))
  )
