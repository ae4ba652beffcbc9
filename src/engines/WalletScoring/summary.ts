import type { WalletLabel } from "../../domain/WalletEvidence.ts"
import { isAdverse } from "./levels.ts"
import type { Finding, WalletAction, WalletConfidence, WalletEvidence, WalletRiskLevel } from "./types.ts"

const MAIN_SIGNALS = 3

export const SCREENING_NOTICE =
  "This is risk screening from cached evidence, not a legal compliance determination; the recommended action routes operator review."

export const NO_EVIDENCE_SUMMARY =
  "No cached evidence for this wallet: no labels, no counterparty exposures and no deployed tokens. " +
  "This is not a finding of low risk: absence of evidence is not evidence of low risk. " +
  "Risk score 0/100 with low confidence; recommended action monitor until evidence is available."

export interface SummaryInput {
  readonly evidence: WalletEvidence
  readonly findings: ReadonlyArray<Finding>
  readonly riskScore: number
  readonly riskLevel: WalletRiskLevel
  readonly recommendedAction: WalletAction
  readonly confidence: WalletConfidence
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`

const benignLabels = (labels: ReadonlyArray<WalletLabel>): string => {
  const names = [
    ...new Set(
      labels.filter((label) => !isAdverse(label.severity)).map((label) => `${label.label} (${label.severity})`)
    )
  ]
  return names.length === 0 ? "" : ` Labels that add no risk: ${names.join(", ")}.`
}

const reasons = ({ evidence, findings }: SummaryInput): string => {
  if (findings.length === 0) {
    const { deployedTokens, exposures, labels } = evidence
    return (
      `No risk signal fired on ${plural(labels.length, "label")}, ${plural(exposures.length, "exposure")} and ` +
      `${plural(deployedTokens.length, "deployed token")}.${benignLabels(labels)}`
    )
  }
  const main = findings
    .slice(0, MAIN_SIGNALS)
    .map(({ headline, signal }) => `${headline} (${signal.severity}, ${signal.points} points)`)
  return `Main signals: ${main.join("; ")}.`
}

export const summaryOf = (input: SummaryInput): string =>
  `Risk score ${input.riskScore}/100: ${input.riskLevel} risk, recommended action ${input.recommendedAction} ` +
  `(confidence ${input.confidence}). ${reasons(input)} ${SCREENING_NOTICE}`
