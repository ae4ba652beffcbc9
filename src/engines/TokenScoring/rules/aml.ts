import { DEPLOYER_FLAGGED_POINTS, FLAGGED_HOLDER_ANY_POINTS, FLAGGED_HOLDER_PCT_TIERS } from "../model.ts"
import { formatPct, tierAtLeast } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

export const deployerFlagged: Rule = ({ evidence }) =>
  evidence.deployer.flagged === true
    ? finding({
        rule: "deployer_flagged",
        facet: "aml",
        points: DEPLOYER_FLAGGED_POINTS,
        reason: "deployer.flagged is true",
        risk: "Deployer wallet carries an adverse label",
        flag: "deployer_flagged"
      })
    : null

const flaggedHolderPoints = (count: number, pct: number): { points: number; reason: string } | null => {
  const tier = tierAtLeast(pct, FLAGGED_HOLDER_PCT_TIERS)
  if (tier !== undefined)
    return { points: tier.points, reason: `aml.flaggedHolderPct ${formatPct(pct)} >= ${tier.threshold}%` }
  if (count > 0 || pct > 0) {
    return {
      points: FLAGGED_HOLDER_ANY_POINTS,
      reason: `aml.flaggedHolderCount ${count}, aml.flaggedHolderPct ${formatPct(pct)}`
    }
  }
  return null
}

export const flaggedHolders: Rule = ({ evidence }) => {
  const { flaggedHolderCount, flaggedHolderPct } = evidence.aml
  if (flaggedHolderCount === null && flaggedHolderPct === null) return null
  const pct = flaggedHolderPct ?? 0
  const found = flaggedHolderPoints(flaggedHolderCount ?? 0, pct)
  if (found === null) return null
  return finding({
    rule: "flagged_holders",
    facet: "aml",
    points: found.points,
    reason: found.reason,
    risk:
      flaggedHolderPct === null
        ? `${flaggedHolderCount} holder wallet(s) carry adverse labels`
        : `Wallets with adverse labels hold ${formatPct(pct)} of supply`,
    flag: "flagged_holders"
  })
}
