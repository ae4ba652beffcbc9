export { type Answer, answerOf } from "./answer.ts"
export { evidenceCompletenessOf, EVIDENCE_WEIGHTS } from "./completeness.ts"
export { confidenceOf } from "./confidence.ts"
export { recommendedActionOf, riskLevelOf } from "./levels.ts"
export { type Flag, FLAGS } from "./flags.ts"
export { CAPS, FACETS, type Facet, MODEL_VERSION } from "./model.ts"
export { assessToken, assessTokenOnce } from "./score.ts"
export type {
  BreakdownEntry,
  Confidence,
  ConfidenceLabel,
  Facets,
  RecommendedAction,
  RiskLevel,
  TokenAssessment
} from "./types.ts"
