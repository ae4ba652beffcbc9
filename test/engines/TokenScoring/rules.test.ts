import { describe, expect, test } from "bun:test"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import * as Model from "../../../src/engines/TokenScoring/model.ts"
import { CLEAN_SCAN, decodeEvidence, evidenceWith, hoursAfterScan, WALLETS } from "./fixtures.ts"
import { FIRING_CASES, SILENT_CASES } from "./ruleCases.ts"

const entriesOf = (rule: string, assessment: ReturnType<typeof assessToken>) =>
  assessment.scoreBreakdown.filter((entry) => entry.name === rule)

describe("the clean evidence", () => {
  test("scores 100 with nothing in the breakdown", () => {
    const assessment = assessToken(decodeEvidence(CLEAN_SCAN))
    expect(assessment.scoreBreakdown).toEqual([])
    expect(assessment.flags).toEqual([])
    expect(assessment.hardCaps).toEqual([])
    expect(assessment.safetyScore).toBe(100)
    expect(assessment.evidenceCompleteness).toBe(1)
  })
})

describe("each rule fires with its points, flag and cap", () => {
  for (const ruleCase of FIRING_CASES) {
    test(ruleCase.title, () => {
      const assessment = assessToken(evidenceWith(ruleCase.evidence))
      expect(entriesOf(ruleCase.rule, assessment).map((entry) => entry.points)).toEqual([ruleCase.points])
      if (ruleCase.flag !== null) expect(assessment.flags).toContain(ruleCase.flag)
      if (ruleCase.cap !== undefined) expect(assessment.hardCaps).toContain(ruleCase.cap)
      else expect(assessment.hardCaps).toEqual([])
    })
  }
})

describe("each rule stays silent under its threshold or without evidence", () => {
  for (const silentCase of SILENT_CASES) {
    test(`${silentCase.rule}: ${silentCase.title}`, () => {
      const assessment = assessToken(evidenceWith(silentCase.evidence))
      expect(entriesOf(silentCase.rule, assessment)).toEqual([])
    })
  }
})

describe("verified issuers", () => {
  const verified = { verified: true, mintAuthority: WALLETS[4], freezeAuthority: WALLETS[5] }

  test("keep mint and freeze authority at the reduced points, without flags", () => {
    const assessment = assessToken(evidenceWith(verified))
    expect(assessment.scoreBreakdown.map((entry) => [entry.name, entry.points])).toEqual([
      ["mint_authority_active", Model.ISSUER_CONTROL.mintAuthority.verifiedPoints],
      ["freeze_authority_active", Model.ISSUER_CONTROL.freezeAuthority.verifiedPoints]
    ])
    expect(assessment.flags).toEqual([])
  })

  test("keep default-frozen accounts without the Default Frozen cap", () => {
    const assessment = assessToken(evidenceWith({ ...verified, extensions: { defaultAccountStateFrozen: true } }))
    expect(assessment.hardCaps).toEqual([])
    expect(entriesOf("default_frozen", assessment).map((entry) => entry.points)).toEqual([
      Model.ISSUER_CONTROL.defaultFrozen.verifiedPoints
    ])
  })

  test("still pay full points for taxes and honeypots", () => {
    const assessment = assessToken(evidenceWith({ ...verified, trading: { isHoneypot: true, sellTax: 12 } }))
    expect(assessment.flags).toEqual(["honeypot", "sell_tax"])
    expect(assessment.safetyScore).toBe(5)
  })
})

describe("rules that overlap", () => {
  test("an unlocked LP replaces the lock percentage and expiry findings", () => {
    const assessment = assessToken(
      evidenceWith({
        liquidity: { lpLocked: false, lpLockPercentage: 10, lpLockExpiresAt: hoursAfterScan(24) }
      })
    )
    // 2.1: and, the LP holders unread, caps at 59 (Pullable Liquidity).
    expect(assessment.scoreBreakdown.map((entry) => entry.name)).toEqual(["lp_unlocked", "hard_cap"])
  })

  test("unlocking costs at least as much as every lock finding together", () => {
    const worstLock = Math.min(...Model.LP_LOCKED_PCT_TIERS.map((tier) => tier.points)) + Model.LP_LOCK_EXPIRING_POINTS
    expect(Model.LP_UNLOCKED_POINTS).toBeLessThanOrEqual(worstLock)
  })

  test("no market replaces low liquidity", () => {
    const assessment = assessToken(evidenceWith({ liquidity: { poolCount: 0, liquidityUsd: 500 } }))
    expect(entriesOf("low_liquidity", assessment)).toEqual([])
    expect(entriesOf("no_market", assessment).length).toBe(1)
  })

  test("the worst tier of a rule is the only one counted", () => {
    const assessment = assessToken(evidenceWith({ trading: { sellTax: 30 } }))
    expect(assessment.scoreBreakdown).toEqual([
      { name: "sell_tax", points: -35, reason: "effective sell tax 30% (transfer fee 0% + trading tax 30%) >= 25%" },
      { name: "hard_cap", points: -36, reason: "Hard cap Severe Tax:29 limits the score to 29" }
    ])
  })
})
