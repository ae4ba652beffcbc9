import type { Tier } from "../../TokenScoring/model.ts"
import { tierAtLeast } from "../../TokenScoring/observed.ts"
import { compareText, riskLevelOf } from "../levels.ts"
import { DEPLOYED_HONEYPOT_TIERS, DEPLOYED_LOW_SCORE_TIERS, DEPLOYED_RUG_TIERS, LOW_SAFETY_SCORE } from "../model.ts"
import type { DeployedToken, SignalRule } from "../types.ts"

const SHOWN = 5

interface LaunchCount {
  readonly label: string
  readonly tiers: ReadonlyArray<Tier>
  readonly counts: (token: DeployedToken) => boolean
  readonly condition: string
  readonly headline: (count: number) => string
}

const isRugged = (token: DeployedToken): boolean => token.outcome === "rugged"
const isHoneypot = (token: DeployedToken): boolean => token.isHoneypot === true

const nameOf = (token: DeployedToken): string => `${token.symbol ?? token.name ?? "unnamed"} (${token.address})`

// Each bad launch counts in one signal only: a rug first, then a honeypot, then a low score.
const launchCountRule =
  (spec: LaunchCount): SignalRule =>
  ({ deployedTokens }) => {
    const counted = deployedTokens
      .filter(spec.counts)
      .sort((a, b) => compareText(a.scannedAt, b.scannedAt) || compareText(a.address, b.address))
    const tier = tierAtLeast(counted.length, spec.tiers)
    if (tier === undefined) return []
    const more = counted.length > SHOWN ? `, and ${counted.length - SHOWN} more` : ""
    return [
      {
        signal: {
          label: spec.label,
          severity: riskLevelOf(tier.points),
          points: tier.points,
          detail:
            `${counted.length} of ${deployedTokens.length} tokens deployed by this wallet ${spec.condition}, ` +
            `tier >= ${tier.threshold}: ${counted.slice(0, SHOWN).map(nameOf).join(", ")}${more}`,
          source: "token_scans"
        },
        headline: spec.headline(counted.length)
      }
    ]
  }

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`

export const deployedRugs = launchCountRule({
  label: "deployed_rugs",
  tiers: DEPLOYED_RUG_TIERS,
  counts: isRugged,
  condition: "have outcome rugged in their latest scan",
  headline: (count) => `deployed ${plural(count, "token")} that rugged`
})

export const deployedHoneypots = launchCountRule({
  label: "deployed_honeypots",
  tiers: DEPLOYED_HONEYPOT_TIERS,
  counts: (token) => isHoneypot(token) && !isRugged(token),
  condition: "are honeypots in their latest scan and did not rug",
  headline: (count) => `deployed ${plural(count, "honeypot")}`
})

export const deployedLowScoreTokens = launchCountRule({
  label: "deployed_low_score_tokens",
  tiers: DEPLOYED_LOW_SCORE_TIERS,
  counts: (token) => token.safetyScore < LOW_SAFETY_SCORE && !isRugged(token) && !isHoneypot(token),
  condition: `have a safetyScore below ${LOW_SAFETY_SCORE} in their latest scan and are neither rugged nor honeypots`,
  headline: (count) => `deployed ${plural(count, "token")} scoring below ${LOW_SAFETY_SCORE}`
})
