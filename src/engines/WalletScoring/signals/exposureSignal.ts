import type { WalletExposure } from "../../../domain/WalletEvidence.ts"
import { formatPct, formatUsd } from "../../TokenScoring/observed.ts"
import { amountWeightOf, exposurePointsOf, hopDecayOf } from "../exposureWeight.ts"
import { compareText, riskLevelOf } from "../levels.ts"
import type { Finding } from "../types.ts"

// What one exposure adds to an exposure signal, and why its counterparty counts.
export interface Contribution {
  readonly exposure: WalletExposure
  readonly basePoints: number
  readonly why: string
  readonly points: number
}

export const contributionOf = (exposure: WalletExposure, basePoints: number, why: string): Contribution => ({
  exposure,
  basePoints,
  why,
  points: exposurePointsOf(basePoints, exposure)
})

export interface ExposureSignalSpec {
  readonly label: string
  readonly cap: number
  readonly counterparties: (count: number) => string
}

const SHOWN = 3

// Largest first, then by counterparty and hop: the sum and the detail do not depend on the order of the evidence.
const ordered = (contributions: ReadonlyArray<Contribution>): ReadonlyArray<Contribution> =>
  [...contributions].sort(
    (a, b) =>
      b.points - a.points ||
      compareText(a.exposure.counterpartyAddress, b.exposure.counterpartyAddress) ||
      a.exposure.hopDistance - b.exposure.hopDistance ||
      compareText(a.exposure.direction, b.exposure.direction) ||
      compareText(a.exposure.exposureType, b.exposure.exposureType) ||
      b.exposure.exposureAmountUsd - a.exposure.exposureAmountUsd ||
      b.exposure.exposurePct - a.exposure.exposurePct ||
      compareText(a.exposure.lastSeenAt, b.exposure.lastSeenAt)
  )

const lineOf = ({ basePoints, exposure, points, why }: Contribution): string =>
  `${exposure.direction} ${exposure.exposureType} of ${formatUsd(exposure.exposureAmountUsd)} ` +
  `(${formatPct(exposure.exposurePct)} of volume) with ${exposure.counterpartyAddress} at hop ${exposure.hopDistance}, ${why}: ` +
  `${basePoints} × ${amountWeightOf(exposure).toFixed(4)} × ${hopDecayOf(exposure.hopDistance)} = ${points.toFixed(2)}`

// One signal for all the exposures of a kind: points = min(cap, round(sum of contributions)).
export const exposureFinding = (
  spec: ExposureSignalSpec,
  contributions: ReadonlyArray<Contribution>
): ReadonlyArray<Finding> => {
  const sorted = ordered(contributions)
  const total = sorted.reduce((sum, contribution) => sum + contribution.points, 0)
  const points = Math.min(spec.cap, Math.round(total))
  if (points === 0) return []
  const counterparties = new Set(sorted.map((c) => c.exposure.counterpartyAddress)).size
  const nearestHop = Math.min(...sorted.map((c) => c.exposure.hopDistance))
  const capped = Math.round(total) > spec.cap ? `, capped at ${spec.cap}` : ""
  const more = sorted.length > SHOWN ? `; and ${sorted.length - SHOWN} more` : ""
  return [
    {
      signal: {
        label: spec.label,
        severity: riskLevelOf(points),
        points,
        detail:
          `${sorted.length} exposure${sorted.length === 1 ? "" : "s"} to ${spec.counterparties(counterparties)}, ` +
          `base points × amount weight × hop decay summed to ${total.toFixed(2)}${capped}: ` +
          `${sorted.slice(0, SHOWN).map(lineOf).join("; ")}${more}`,
        source: "wallet_exposures"
      },
      headline: `exposure to ${spec.counterparties(counterparties)}, nearest at hop ${nearestHop}`
    }
  ]
}
