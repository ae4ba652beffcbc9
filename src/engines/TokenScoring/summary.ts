import type { HardCap } from "./model.ts"
import type { Finding, RecommendedAction, RiskLevel } from "./types.ts"

const MAIN_REASONS = 3
const LOW_COMPLETENESS = 0.5

export interface SummaryInput {
  readonly safetyScore: number
  readonly riskLevel: RiskLevel
  readonly recommendedAction: RecommendedAction
  readonly risks: ReadonlyArray<string>
  readonly bindingCap: HardCap | null
  readonly evidenceCompleteness: number
}

// Most severe first; ties keep the rule order, so the order is stable.
export const bySeverity = (findings: ReadonlyArray<Finding>): ReadonlyArray<Finding> =>
  findings
    .map((finding, order) => ({ finding, order }))
    .sort((a, b) => a.finding.points - b.finding.points || a.order - b.order)
    .map(({ finding }) => finding)

const headline = (input: SummaryInput): string => {
  const incomplete =
    input.evidenceCompleteness < LOW_COMPLETENESS
      ? ` (only ${Math.round(input.evidenceCompleteness * 100)}% of the weighted evidence was observed)`
      : ""
  return `Safety score ${input.safetyScore}/100: ${input.riskLevel} risk, recommended action ${input.recommendedAction}${incomplete}.`
}

const reasons = (input: SummaryInput): string => {
  if (input.risks.length === 0) return "No risk rule fired on the observed evidence."
  const capped = input.bindingCap === null ? "" : ` Capped at ${input.bindingCap.ceiling} by ${input.bindingCap.name}.`
  return `Main reasons: ${input.risks.slice(0, MAIN_REASONS).join("; ")}.${capped}`
}

export const summaryOf = (input: SummaryInput): string => `${headline(input)} ${reasons(input)}`
