import { HOLDER_COUNT_TIERS, TOKEN_AGE_HOURS_TIERS } from "../model.ts"
import { tierBelow } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

const formatHours = (hours: number): string =>
  hours < 48 ? `${Number(Math.max(0, hours).toFixed(1))} h` : `${Number((hours / 24).toFixed(1))} days`

export const newToken: Rule = ({ tokenAgeHours }) => {
  const tier = tokenAgeHours === null ? undefined : tierBelow(tokenAgeHours, TOKEN_AGE_HOURS_TIERS)
  if (tokenAgeHours === null || tier === undefined) return null
  return finding({
    rule: "new_token",
    facet: "maturity",
    points: tier.points,
    reason: `token age ${formatHours(tokenAgeHours)} < ${formatHours(tier.threshold)}`,
    risk: `Token is only ${formatHours(tokenAgeHours)} old`,
    flag: "new_token"
  })
}

export const fewHolders: Rule = ({ evidence }) => {
  const count = evidence.holders.holderCount
  const tier = count === null ? undefined : tierBelow(count, HOLDER_COUNT_TIERS)
  if (count === null || tier === undefined) return null
  return finding({
    rule: "few_holders",
    facet: "maturity",
    points: tier.points,
    reason: `holders.holderCount ${count} < ${tier.threshold}`,
    risk: `Only ${count} holders`,
    flag: "few_holders"
  })
}
