import { verdictOf } from "../../domain/Verdict.ts"
import { recommendedActionOf, riskLevelOf } from "./levels.ts"
import type { RecommendedAction, RiskLevel } from "./types.ts"

/** The four answers every route gives about a token, all from its safety score. */
export interface Answer {
  readonly safetyScore: number
  readonly verdict: "block" | "warn" | "ok"
  readonly riskScore: number
  readonly riskLevel: RiskLevel
  readonly recommendedAction: RecommendedAction
}

// 2.1: the one derivation of verdict, risk level and action (risk-check, token risk, pre-trade, monitor and MCP
// read it through the assessment). Whatever keeps a token out of `ok` (a power, thin evidence) caps the score
// under 60, so the bands of the four answers always agree (2.0 let thin evidence read `warn` on risk-check and
// `low`, `proceed` on the packet).
export const answerOf = (safetyScore: number): Answer => ({
  safetyScore,
  verdict: verdictOf(safetyScore),
  riskScore: 100 - safetyScore,
  riskLevel: riskLevelOf(safetyScore),
  recommendedAction: recommendedActionOf(safetyScore)
})
