import { describe, expect, test } from "bun:test"
import { assessToken, confidenceOf } from "../../../src/engines/TokenScoring/index.ts"
import { decodeEvidence, evidenceWith, WALLETS } from "./fixtures.ts"

const confidence = (patch: Parameters<typeof evidenceWith>[0], ageSeconds: number) => {
  const evidence = evidenceWith(patch)
  return confidenceOf(assessToken(evidence), evidence, ageSeconds)
}

describe("confidence", () => {
  test("full evidence, a full scan and a fresh answer: 100, high", () => {
    expect(confidence({}, 0)).toEqual({ label: "high", score: 100 })
  })

  test("falls with the age of the scan at each freshness band", () => {
    const scores = [0, 299, 300, 3_600, 3_601, 86_400, 86_401, Infinity].map((age) => confidence({}, age).score)
    expect(scores).toEqual([100, 100, 90, 90, 70, 70, 50, 50])
  })

  test("falls with scan depth", () => {
    expect([confidence({ scanDepth: "partial" }, 0), confidence({ scanDepth: "metadata_only" }, 0)]).toEqual([
      { label: "high", score: 85 },
      { label: "medium", score: 60 }
    ])
  })

  test("missing evidence is not safe: a scan with nothing observed has no confidence", () => {
    const evidence = decodeEvidence({ mint: WALLETS[0], scannedAt: "2026-06-01T12:00:00.000Z" })
    const assessment = assessToken(evidence)
    // 2.0: nothing observed is thin evidence, which no score can make `ok`.
    expect([assessment.safetyScore, assessment.verdict, assessment.evidenceCompleteness]).toEqual([59, "warn", 0])
    expect(confidenceOf(assessment, evidence, 0)).toEqual({ label: "low", score: 0 })
  })

  test("rounds the exact product: 87% observed, partial, stale is round(66.555) = 67", () => {
    // holders.top (weight 10) and aml (weight 3) not observed
    const evidence = evidenceWith({
      scanDepth: "partial",
      holders: { top: [] },
      aml: { flaggedHolderCount: null, flaggedHolderPct: null }
    })
    const assessment = assessToken(evidence)
    expect(assessment.evidenceCompleteness).toBe(0.87)
    expect(confidenceOf(assessment, evidence, 600)).toEqual({ label: "medium", score: 67 })
  })

  test("a block counts its evidence as at least 90% complete: more evidence cannot lift it", () => {
    const evidence = decodeEvidence({
      mint: WALLETS[0],
      scannedAt: "2026-06-01T12:00:00.000Z",
      trading: { isHoneypot: true }
    })
    const assessment = assessToken(evidence)
    expect(assessment.evidenceCompleteness).toBe(0.15)
    expect(confidenceOf(assessment, evidence, 0)).toEqual({ label: "high", score: 90 })
  })
})
