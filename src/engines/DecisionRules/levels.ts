import type { RiskLevel } from "../TokenScoring/types.ts"
import { type PressureLevel, PRESSURE_LEVELS } from "./model.ts"

const RISK_ORDER: ReadonlyArray<RiskLevel> = ["low", "medium", "high", "critical"]

export const maxRiskLevel = (...levels: ReadonlyArray<RiskLevel>): RiskLevel =>
  levels.reduce((worst, level) => (RISK_ORDER.indexOf(level) > RISK_ORDER.indexOf(worst) ? level : worst), "low")

export const maxPressureLevel = (levels: ReadonlyArray<PressureLevel>): PressureLevel =>
  levels.reduce(
    (worst, level) => (PRESSURE_LEVELS.indexOf(level) > PRESSURE_LEVELS.indexOf(worst) ? level : worst),
    "none"
  )

export const isStale = (ageSeconds: number, maxAgeSeconds: number): boolean => ageSeconds > maxAgeSeconds
