import { confidenceOf } from "./confidence.ts"
import { ACTION_BY_LEVEL, NO_EVIDENCE_ACTION, riskLevelOf } from "./levels.ts"
import { MAX_RISK_SCORE, WALLET_MODEL_VERSION } from "./model.ts"
import { SIGNAL_RULES } from "./signals/index.ts"
import { hasEvidenceOf, sourcesOf } from "./sources.ts"
import { NO_EVIDENCE_SUMMARY, SCREENING_NOTICE, summaryOf } from "./summary.ts"
import type { Finding, WalletAssessment, WalletEvidence } from "./types.ts"

// A signal's severity follows from its points, so most points first is most severe first; ties keep rule order.
const mostSevereFirst = (findings: ReadonlyArray<Finding>): ReadonlyArray<Finding> =>
  findings
    .map((finding, order) => ({ finding, order }))
    .sort((a, b) => b.finding.signal.points - a.finding.signal.points || a.order - b.order)
    .map(({ finding }) => finding)

const NO_EVIDENCE: Omit<WalletAssessment, "summary"> = {
  riskScore: 0,
  riskLevel: "low",
  confidence: "low",
  recommendedAction: NO_EVIDENCE_ACTION,
  signals: [],
  sources: [],
  modelVersion: WALLET_MODEL_VERSION,
  hasEvidence: false
}

export const assessWallet = (evidence: WalletEvidence): WalletAssessment => {
  if (!hasEvidenceOf(evidence)) return { ...NO_EVIDENCE, summary: `${NO_EVIDENCE_SUMMARY} ${SCREENING_NOTICE}` }
  const findings = mostSevereFirst(SIGNAL_RULES.flatMap((rule) => rule(evidence)))
  const signals = findings.map((finding) => finding.signal)
  const riskScore = Math.min(
    MAX_RISK_SCORE,
    signals.reduce((total, signal) => total + signal.points, 0)
  )
  const riskLevel = riskLevelOf(riskScore)
  const recommendedAction = ACTION_BY_LEVEL[riskLevel]
  const sources = sourcesOf(evidence)
  const confidence = confidenceOf(sources, signals)
  return {
    riskScore,
    riskLevel,
    confidence,
    summary: summaryOf({ evidence, findings, riskScore, riskLevel, recommendedAction, confidence }),
    recommendedAction,
    signals,
    sources,
    modelVersion: WALLET_MODEL_VERSION,
    hasEvidence: true
  }
}
