import { CAPS, THIN_EVIDENCE_COMPLETENESS_PCT } from "../model.ts"
import { finding, type Rule } from "./rule.ts"

// Confidence bounds the verdict: on thin evidence a token can be `warn` at best, never `ok`. Thin is less
// than THIN_EVIDENCE_COMPLETENESS_PCT of the weighted evidence, or no sell path observed (no sell
// simulation, and no static equivalent: docs/scoring-model.md).
export const thinEvidence: Rule = ({ completenessPct, sellPathObserved }) => {
  const reasons = [
    completenessPct < THIN_EVIDENCE_COMPLETENESS_PCT
      ? `evidence completeness ${completenessPct}% < ${THIN_EVIDENCE_COMPLETENESS_PCT}%`
      : null,
    sellPathObserved
      ? null
      : "no sell simulation and no static equivalent (freeze authority or a transfer-blocking extension not ruled out)"
  ].filter((reason): reason is string => reason !== null)
  if (reasons.length === 0) return null
  return finding({
    rule: "thin_evidence",
    facet: "maturity",
    points: 0,
    reason: reasons.join("; "),
    risk: `Thin evidence: ${reasons.join("; ")}; the token cannot be rated ok on it`,
    flag: "thin_evidence",
    // Without a sell path the score is capped. Low completeness alone caps the verdict, not the score
    // (score.ts, verdictOf): a red flag that adds evidence must never lift a score.
    cap: sellPathObserved ? null : CAPS.thinEvidence
  })
}
