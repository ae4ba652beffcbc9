import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { answerOf } from "./answer.ts"
import { type Facet, FACET_PENALTY_MULTIPLIER, type HardCap, MODEL_VERSION } from "./model.ts"
import type { Flag } from "./flags.ts"
import { observe } from "./observed.ts"
import { RULES } from "./rules/index.ts"
import { bySeverity, summaryOf } from "./summary.ts"
import type { BreakdownEntry, Facets, Finding, TokenAssessment } from "./types.ts"

const MAX_SCORE = 100

const sumPoints = (findings: ReadonlyArray<Finding>): number => findings.reduce((total, f) => total + f.points, 0)

// Distinct caps, lowest ceiling first; the first one is the one that binds.
const capsOf = (findings: ReadonlyArray<Finding>): ReadonlyArray<HardCap> => {
  const byName = new Map<string, HardCap>()
  for (const { cap } of findings) if (cap !== null) byName.set(cap.name, cap)
  return [...byName.values()].sort((a, b) => a.ceiling - b.ceiling || (a.name < b.name ? -1 : 1))
}

const facetScore = (findings: ReadonlyArray<Finding>): number => {
  const penalised = Math.max(0, MAX_SCORE + FACET_PENALTY_MULTIPLIER * sumPoints(findings))
  return Math.min(penalised, ...capsOf(findings).map((cap) => cap.ceiling))
}

const facetsOf = (findings: ReadonlyArray<Finding>): Facets => {
  const scoreOf = (facet: Facet) => facetScore(findings.filter((f) => f.facet === facet))
  return {
    contract: scoreOf("contract"),
    liquidity: scoreOf("liquidity"),
    ownership: scoreOf("ownership"),
    deployer: scoreOf("deployer"),
    market: scoreOf("market"),
    maturity: scoreOf("maturity"),
    metadata: scoreOf("metadata"),
    aml: scoreOf("aml")
  }
}

const flagsOf = (findings: ReadonlyArray<Finding>): ReadonlyArray<Flag> => [
  ...new Set(findings.flatMap((f) => (f.flag === null ? [] : [f.flag])))
]

const ruleEntry = (finding: Finding): BreakdownEntry => ({
  name: finding.rule,
  points: finding.points,
  reason: finding.reason
})

// Floor and cap adjustments are breakdown entries too, so that 100 + the sum of all points is the safety score.
const adjustments = (penalised: number, cap: HardCap | null): ReadonlyArray<BreakdownEntry> => {
  const floored = Math.max(0, penalised)
  const floor: ReadonlyArray<BreakdownEntry> =
    penalised < 0 ? [{ name: "score_floor", points: -penalised, reason: "The score does not go below 0" }] : []
  const capped: ReadonlyArray<BreakdownEntry> =
    cap !== null && cap.ceiling < floored
      ? [
          {
            name: "hard_cap",
            points: cap.ceiling - floored,
            reason: `Hard cap ${cap.name}:${cap.ceiling} limits the score to ${cap.ceiling}`
          }
        ]
      : []
  return [...floor, ...capped]
}

export const assessToken = (evidence: ScanEvidence): TokenAssessment => {
  const observed = observe(evidence)
  const findings = RULES.flatMap((rule) => {
    const found = rule(observed)
    return found === null ? [] : [found]
  })
  const caps = capsOf(findings)
  const bindingCap = caps[0] ?? null
  const penalised = MAX_SCORE + sumPoints(findings)
  const safetyScore = Math.min(Math.max(0, penalised), bindingCap?.ceiling ?? MAX_SCORE)
  const answer = answerOf(safetyScore)
  const { riskLevel, recommendedAction } = answer
  const risks = bySeverity(findings).map((f) => f.risk)
  const evidenceCompleteness = observed.completenessPct / 100
  return {
    modelVersion: MODEL_VERSION,
    safetyScore,
    verdict: answer.verdict,
    riskScore: answer.riskScore,
    riskLevel,
    recommendedAction,
    summary: summaryOf({ safetyScore, riskLevel, recommendedAction, risks, bindingCap, evidenceCompleteness }),
    facets: facetsOf(findings),
    hardCaps: caps.map((cap) => `${cap.name}:${cap.ceiling}`),
    risks,
    scoreBreakdown: [...findings.map(ruleEntry), ...adjustments(penalised, bindingCap)],
    flags: flagsOf(findings),
    evidenceCompleteness
  }
}

// A cached scan is the same evidence object on every read: score it once, not on every request.
const assessments = new WeakMap<ScanEvidence, TokenAssessment>()

/**
 * Remembers an assessment computed earlier for this evidence (stored with the latest scan, sql/0014), so
 * assessTokenOnce does not score it again; one of another model version is ignored.
 */
export const rememberAssessment = (evidence: ScanEvidence, assessment: TokenAssessment): void => {
  if (assessment.modelVersion === MODEL_VERSION && !assessments.has(evidence)) assessments.set(evidence, assessment)
}

/** assessToken, remembered per evidence object (evidence is immutable, the model pure). */
export const assessTokenOnce = (evidence: ScanEvidence): TokenAssessment => {
  let assessment = assessments.get(evidence)
  if (assessment === undefined) {
    assessment = assessToken(evidence)
    assessments.set(evidence, assessment)
  }
  return assessment
}
