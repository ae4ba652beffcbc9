import { RISK_LEVEL_THRESHOLDS } from "./model.ts"
import type { RecommendedAction, RiskLevel } from "./types.ts"

export const riskLevelOf = (safetyScore: number): RiskLevel =>
  safetyScore >= RISK_LEVEL_THRESHOLDS.low
    ? "low"
    : safetyScore >= RISK_LEVEL_THRESHOLDS.medium
      ? "medium"
      : safetyScore >= RISK_LEVEL_THRESHOLDS.high
        ? "high"
        : "critical"

const ACTION_BY_LEVEL: Readonly<Record<RiskLevel, RecommendedAction>> = {
  low: "proceed",
  medium: "monitor",
  high: "caution",
  critical: "avoid"
}

export const recommendedActionOf = (safetyScore: number): RecommendedAction => ACTION_BY_LEVEL[riskLevelOf(safetyScore)]
