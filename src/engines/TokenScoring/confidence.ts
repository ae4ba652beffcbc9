import type { ScanDepth, ScanEvidence } from "../../domain/ScanEvidence.ts"
import { FRESH_SECONDS, STALE_SECONDS, verdictOf } from "../../domain/Verdict.ts"
import type { Confidence, ConfidenceLabel, TokenAssessment } from "./types.ts"

// Factors are integer percents so that the product is exact and the rounding is the one a reader gets by hand.
export const SCAN_DEPTH_FACTOR_PCT: Readonly<Record<ScanDepth, number>> = {
  full: 100,
  partial: 85,
  metadata_only: 60
}

const DAY_SECONDS = 24 * 60 * 60

// By the age of the scan when the answer is given: fresh (< 5 min), stale (to 1 h), up to a day, older.
export const AGE_FACTOR_PCT = { fresh: 100, stale: 90, day: 70, older: 50 } as const

// Missing evidence can only lower a score, so more evidence cannot lift a block: its completeness counts as at least this.
export const BLOCK_COMPLETENESS_FLOOR_PCT = 90

export const CONFIDENCE_LABEL_THRESHOLDS = { high: 75, medium: 50 } as const

export const ageFactorPctOf = (ageSeconds: number): number =>
  !Number.isFinite(ageSeconds)
    ? AGE_FACTOR_PCT.older
    : ageSeconds < FRESH_SECONDS
      ? AGE_FACTOR_PCT.fresh
      : ageSeconds <= STALE_SECONDS
        ? AGE_FACTOR_PCT.stale
        : ageSeconds <= DAY_SECONDS
          ? AGE_FACTOR_PCT.day
          : AGE_FACTOR_PCT.older

const labelOf = (score: number): ConfidenceLabel =>
  score >= CONFIDENCE_LABEL_THRESHOLDS.high ? "high" : score >= CONFIDENCE_LABEL_THRESHOLDS.medium ? "medium" : "low"

export const confidenceOf = (
  assessment: Pick<TokenAssessment, "evidenceCompleteness" | "safetyScore">,
  evidence: Pick<ScanEvidence, "scanDepth">,
  ageSeconds: number
): Confidence => {
  const observedPct = Math.round(assessment.evidenceCompleteness * 100)
  const completenessPct =
    verdictOf(assessment.safetyScore) === "block" ? Math.max(observedPct, BLOCK_COMPLETENESS_FLOOR_PCT) : observedPct
  const product = completenessPct * SCAN_DEPTH_FACTOR_PCT[evidence.scanDepth] * ageFactorPctOf(ageSeconds)
  const score = Math.round(product / 10_000)
  return { label: labelOf(score), score }
}
