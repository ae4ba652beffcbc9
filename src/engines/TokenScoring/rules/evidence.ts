import { CAPS, THIN_EVIDENCE_COMPLETENESS_PCT } from "../model.ts"
import { finding, type Rule } from "./rule.ts"

// Confidence bounds the answer: on thin evidence a token scores under 60 (`warn` at best), never `ok`. Thin is
// less than THIN_EVIDENCE_COMPLETENESS_PCT of the weighted evidence, no sell path observed (no sell simulation
// and no static equivalent), or a fact that decides the market not observed (pools and liquidity, LP lock,
// holders): docs/scoring-model.md. 2.1: missing is never better than the best observed value, so the cap
// holds for every reason (2.0 capped only the verdict on low completeness, and the packet read `low`).
export const thinEvidence: Rule = ({ completenessPct, sellPathObserved, unobservedMarket }) => {
  const reasons = [
    completenessPct < THIN_EVIDENCE_COMPLETENESS_PCT
      ? `evidence completeness ${completenessPct}% < ${THIN_EVIDENCE_COMPLETENESS_PCT}%`
      : null,
    sellPathObserved
      ? null
      : "no sell simulation and no static equivalent (freeze authority or a transfer-blocking extension not ruled out)",
    ...unobservedMarket
  ].filter((reason): reason is string => reason !== null)
  if (reasons.length === 0) return null
  return finding({
    rule: "thin_evidence",
    facet: "maturity",
    points: 0,
    reason: reasons.join("; "),
    risk: `Thin evidence: ${reasons.join("; ")}; the token cannot be rated ok on it`,
    flag: "thin_evidence",
    cap: CAPS.thinEvidence
  })
}
