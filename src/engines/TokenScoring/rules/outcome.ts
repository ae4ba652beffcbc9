import { ABANDONED_POINTS, CAPS, RUGGED_POINTS } from "../model.ts"
import { finding, type Rule } from "./rule.ts"

export const rugged: Rule = ({ evidence }) =>
  evidence.outcome === "rugged"
    ? finding({
        rule: "rugged",
        facet: "liquidity",
        points: RUGGED_POINTS,
        reason: "outcome is rugged",
        risk: "Token has been rugged: liquidity was pulled",
        flag: "rugged",
        cap: CAPS.rugged
      })
    : null

export const abandoned: Rule = ({ evidence }) =>
  evidence.outcome === "abandoned"
    ? finding({
        rule: "abandoned",
        facet: "market",
        points: ABANDONED_POINTS,
        reason: "outcome is abandoned",
        risk: "Token is abandoned: no development or trading activity",
        flag: "abandoned",
        cap: CAPS.abandoned
      })
    : null
