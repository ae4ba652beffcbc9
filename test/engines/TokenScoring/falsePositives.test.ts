import { describe, expect, test } from "bun:test"
import { verdictOf } from "../../../src/domain/Verdict.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { evidenceWith, type EvidencePatch, WALLETS } from "./fixtures.ts"

const wallet = (index: number) => WALLETS[index % WALLETS.length]!

// A regulated stablecoin: the issuer keeps mint and freeze authority and may update metadata.
const stablecoin: EvidencePatch = {
  name: "USD Coin",
  symbol: "USDC",
  mintAuthority: WALLETS[4],
  freezeAuthority: WALLETS[5],
  verified: true,
  liquidity: { liquidityUsd: 48_000_000, lpLocked: null, lpLockPercentage: null, poolCount: 400 },
  metadata: { mutable: true },
  holders: {
    holderCount: 3_400_000,
    top: [
      { address: wallet(0), pct: 9.1, kind: "exchange" },
      { address: wallet(1), pct: 6.3, kind: "exchange" },
      { address: wallet(2), pct: 4.2, kind: "pool" },
      { address: wallet(3), pct: 3.2, kind: "holder" }
    ]
  }
}

describe("a verified stablecoin that keeps mint and freeze authority", () => {
  const assessment = assessToken(evidenceWith(stablecoin))

  test("is ok, at 60 or more", () => {
    expect(assessment.safetyScore).toBeGreaterThanOrEqual(60)
    expect(verdictOf(assessment.safetyScore)).toBe("ok")
  })

  test("raises no authority flag and no cap", () => {
    expect(assessment.flags).not.toContain("mint_authority_active")
    expect(assessment.flags).not.toContain("freeze_authority_active")
    expect(assessment.hardCaps).toEqual([])
  })

  test("would be penalised in full without the verification", () => {
    const unverified = assessToken(evidenceWith({ ...stablecoin, verified: false }))
    // 2.0: unverified, the same symbol under another mint is also an impersonation. 2.1: and its unread LP
    // lock is thin evidence (a verified asset's liquidity is not one team's pool; an unverified one's may be).
    expect(unverified.flags).toEqual([
      "mint_authority_active",
      "freeze_authority_active",
      "mutable_metadata",
      "impersonation",
      "thin_evidence"
    ])
    expect(unverified.safetyScore).toBeLessThan(assessment.safetyScore)
  })
})

describe("a token whose largest holders are pool, locker and burn accounts", () => {
  const vaults = [
    { address: wallet(0), pct: 38, kind: "pool" as const },
    { address: wallet(1), pct: 22, kind: "locker" as const },
    { address: wallet(2), pct: 12, kind: "burn" as const },
    { address: wallet(3), pct: 6, kind: "pool" as const }
  ]
  const wallets = [1.9, 1.6, 1.4, 1.2, 1.1, 0.9].map((pct, index) => ({
    address: wallet(index),
    pct,
    kind: "holder" as const
  }))
  const assessment = assessToken(evidenceWith({ holders: { top: [...vaults, ...wallets] } }))

  test("gets no concentration penalty", () => {
    expect(assessment.scoreBreakdown).toEqual([])
    expect(assessment.facets.ownership).toBe(100)
    expect(assessment.safetyScore).toBe(100)
  })

  test("would be penalised if the same accounts were wallets", () => {
    const asWallets = vaults.map((vault) => ({ ...vault, kind: "holder" as const }))
    const concentrated = assessToken(evidenceWith({ holders: { top: [...asWallets, ...wallets] } }))
    expect(concentrated.flags).toEqual(["top10_concentration", "single_holder_concentration"])
  })
})
