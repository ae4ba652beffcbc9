import { describe, expect, test } from "bun:test"
import {
  assessToken,
  MODEL_VERSION,
  recommendedActionOf,
  riskLevelOf
} from "../../../src/engines/TokenScoring/index.ts"
import { HONEYPOT_POINTS, ISSUER_CONTROL } from "../../../src/engines/TokenScoring/model.ts"
import { evidenceWith, WALLETS } from "./fixtures.ts"

describe("risk level and recommended action", () => {
  const cases = [
    [100, "low", "proceed"],
    [80, "low", "proceed"],
    [79, "medium", "monitor"],
    [60, "medium", "monitor"],
    [59, "high", "caution"],
    [30, "high", "caution"],
    [29, "critical", "avoid"],
    [0, "critical", "avoid"]
  ] as const
  for (const [score, level, action] of cases) {
    test(`${score} is ${level}, ${action}`, () => {
      expect([riskLevelOf(score), recommendedActionOf(score)]).toEqual([level, action])
    })
  }
})

describe("assembling the assessment", () => {
  test("a honeypot is capped, and the cap is a breakdown entry", () => {
    const assessment = assessToken(evidenceWith({ trading: { isHoneypot: true } }))
    expect(assessment.scoreBreakdown).toEqual([
      { name: "honeypot", points: HONEYPOT_POINTS, reason: "trading.isHoneypot is true (a simulated sell failed)" },
      { name: "hard_cap", points: 5 - (100 + HONEYPOT_POINTS), reason: "Hard cap Honeypot:5 limits the score to 5" }
    ])
    expect(assessment).toMatchObject({
      modelVersion: MODEL_VERSION,
      safetyScore: 5,
      riskScore: 95,
      riskLevel: "critical",
      recommendedAction: "avoid",
      hardCaps: ["Honeypot:5"],
      flags: ["honeypot"]
    })
  })

  test("penalties past zero are given back by a floor entry", () => {
    const assessment = assessToken(
      evidenceWith({
        outcome: "rugged",
        trading: { isHoneypot: true },
        liquidity: { lpLocked: false }
      })
    )
    expect(assessment.safetyScore).toBe(0)
    expect(assessment.scoreBreakdown.at(-1)).toEqual({
      name: "score_floor",
      points: 70,
      reason: "The score does not go below 0"
    })
    expect(assessment.hardCaps).toEqual(["Honeypot:5", "Rugged:5", "Pullable Liquidity:59"])
  })

  test("a facet loses twice its rules' points and is held under its caps", () => {
    const assessment = assessToken(evidenceWith({ mintAuthority: WALLETS[5], metadata: { mutable: true } }))
    expect(assessment.facets).toEqual({
      // 100 - 2 × 20 = 60, held under the Mint Authority cap (2.0)
      contract: Math.min(100 + 2 * ISSUER_CONTROL.mintAuthority.points, 59),
      liquidity: 100,
      ownership: 100,
      deployer: 100,
      market: 100,
      maturity: 100,
      metadata: 90,
      aml: 100
    })
    expect(assessToken(evidenceWith({ outcome: "abandoned" })).facets.market).toBe(25)
  })

  test("risks run from the most severe; the summary quotes score, level and the main reasons", () => {
    const assessment = assessToken(
      evidenceWith({ metadata: { mutable: true }, trading: { isHoneypot: true }, mintAuthority: WALLETS[5] })
    )
    expect(assessment.risks).toEqual([
      "Honeypot: a simulated sell failed, holders may be unable to sell",
      `Mint authority is active: new supply can be minted at any time (held by ${WALLETS[5]})`,
      "Metadata is mutable: name, symbol and image can be changed"
    ])
    expect(assessment.summary).toBe(
      "Safety score 5/100: critical risk, recommended action avoid. Main reasons: Honeypot: a simulated sell failed, " +
        `holders may be unable to sell; Mint authority is active: new supply can be minted at any time (held by ${WALLETS[5]}); ` +
        "Metadata is mutable: name, symbol and image can be changed. Capped at 5 by Honeypot."
    )
  })

  test("a clean token's summary says no rule fired, and a thin scan says how little was observed", () => {
    expect(assessToken(evidenceWith({})).summary).toBe(
      "Safety score 100/100: low risk, recommended action proceed. No risk rule fired on the observed evidence."
    )
    const thin = assessToken(
      evidenceWith(
        { scanDepth: "metadata_only" },
        {
          mint: WALLETS[0],
          scannedAt: "2026-06-01T12:00:00.000Z",
          name: "Thin",
          symbol: "THIN",
          metadata: { mutable: false }
        }
      )
    )
    expect(thin.evidenceCompleteness).toBe(0.03)
    // 2.0: so little evidence is thin: capped at 59 (no sell path observed), never `ok`.
    expect(thin.summary).toBe(
      "Safety score 59/100: high risk, recommended action caution (only 3% of the weighted evidence was observed). " +
        "Main reasons: Thin evidence: evidence completeness 3% < 60%; no sell simulation and no static equivalent " +
        "(freeze authority or a transfer-blocking extension not ruled out); pools and liquidity not observed; LP lock not observed; " +
        "holders not observed; the token cannot be rated ok on it. " +
        "Capped at 59 by Thin Evidence."
    )
    expect(thin.verdict).toBe("warn")
  })
})
