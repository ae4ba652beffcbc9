import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import {
  notApplicable,
  notObserved,
  observed,
  type PoolLp,
  type PositionOwner,
  ScanEvidenceV2
} from "../../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { ADDRESSES, evidenceWith } from "./fixtures.ts"

// Model 2.1: who can withdraw concentrated liquidity. The scanner's positions (evidence v2, docs/scan-evidence.md
// "Positions") through the scoring view (liquidity.positionsCreatorPct) to the answer.
const [deployer, insider, maker, other] = [ADDRESSES[4]!, ADDRESSES[5]!, ADDRESSES[2]!, ADDRESSES[3]!]
const noLp = notApplicable("concentrated-liquidity positions, no LP mint")

const position = (
  owner: (typeof ADDRESSES)[number],
  pct: number,
  kind: PositionOwner["kind"],
  locked: boolean | null
): PositionOwner => ({
  position: other,
  owner,
  nftMint: null,
  liquidity: "1000",
  pct,
  kind,
  label: null,
  locked
})

const pool = (
  liquidityUsd: number | null,
  positions: ReadonlyArray<PositionOwner> | "unread",
  address = ADDRESSES[0]!
): PoolLp => ({
  pool: address,
  venue: "orca-whirlpool",
  burnedPct: noLp,
  lockedPct: noLp,
  locker: null,
  unlockAt: null,
  unlockedPct: noLp,
  shape: "concentrated",
  liquidityUsd: liquidityUsd === null ? notObserved("not valued") : observed(liquidityUsd),
  lpHolders: noLp,
  positions: positions === "unread" ? notObserved("budget spent") : observed({ count: 40, top: [...positions] })
})

// A mature, clean token whose only pools are concentrated (so no LP lock fact), with these pools.
const scanWith = (pools: ReadonlyArray<PoolLp>): ScanEvidenceV2 => {
  const base = upgradeV1(evidenceWith({}))
  return Schema.decodeUnknownSync(ScanEvidenceV2)(
    Schema.encodeSync(ScanEvidenceV2)({
      ...base,
      liquidity: {
        ...base.liquidity,
        lpLocked: noLp,
        lpLockedPct: noLp,
        lpLockExpiresAt: noLp,
        poolCount: observed(pools.length),
        pools: observed([...pools])
      }
    })
  )
}
const viewOf = (pools: ReadonlyArray<PoolLp>) => scoringView(scanWith(pools)).liquidity.positionsCreatorPct
const answerOf = (pools: ReadonlyArray<PoolLp>) => {
  const assessment = assessToken(scoringView(scanWith(pools)))
  return { verdict: assessment.verdict, score: assessment.safetyScore, caps: assessment.hardCaps }
}

describe("the scoring view: the deployer's share of the concentrated liquidity in unlocked positions", () => {
  test("sums the deployer's and its insiders' unlocked positions; locked ones and other owners do not count", () => {
    expect(
      viewOf([
        pool(100_000, [
          position(deployer, 40, "creator", false),
          position(insider, 15, "insider", null),
          position(deployer, 20, "creator", true),
          position(maker, 25, "holder", false)
        ])
      ])
    ).toBe(55)
  })

  test("weighs pools by their liquidity, and takes the highest pool's share when one is not valued", () => {
    const deep = pool(300_000, [position(maker, 100, "holder", false)], ADDRESSES[0]!)
    const side = pool(100_000, [position(deployer, 100, "creator", false)], ADDRESSES[1]!)
    expect(viewOf([deep, side])).toBe(25)
    expect(viewOf([deep, { ...side, liquidityUsd: notObserved("not valued") }])).toBe(100)
  })

  test("is absent when no pool's positions, or the deepest pool's, were read", () => {
    const deep = pool(300_000, "unread", ADDRESSES[0]!)
    const side = pool(1_000, [position(maker, 100, "holder", false)], ADDRESSES[1]!)
    expect(viewOf([deep])).toBeUndefined()
    expect(viewOf([deep, side])).toBeUndefined()
    expect(viewOf([{ ...deep, positions: observed({ count: 3, top: [] }) }, side])).toBe(0)
  })
})

describe("the answer for a token whose only pools are concentrated", () => {
  test("a single-sided DLMM position the deployer can pull: Pullable Liquidity, like a live mint authority", () => {
    expect(answerOf([pool(80_000, [position(deployer, 100, "creator", false)])])).toEqual({
      verdict: "warn",
      score: 59,
      caps: ["Pullable Liquidity:59"]
    })
  })

  test("the team's position locked through Orca's lock: no cap", () => {
    expect(
      answerOf([pool(80_000, [position(deployer, 90, "creator", true), position(maker, 10, "holder", false)])])
    ).toEqual({ verdict: "ok", score: 100, caps: [] })
  })

  test("positions not read: thin evidence, never better than read and safe", () => {
    expect(answerOf([pool(80_000, "unread")])).toEqual({ verdict: "warn", score: 59, caps: ["Thin Evidence:59"] })
  })

  test("an issuer-verified asset waives the cap and keeps the points", () => {
    const scan = { ...scanWith([pool(80_000, [position(deployer, 100, "creator", false)])]) }
    const assessment = assessToken({ ...scoringView(scan), verified: true })
    expect({ score: assessment.safetyScore, caps: assessment.hardCaps }).toEqual({ score: 70, caps: [] })
  })
})

describe("copycat and impersonation", () => {
  test("a scanned impersonator (copycatOf from the impersonation check) pays the impersonation once", () => {
    const assessment = assessToken(evidenceWith({ symbol: "USDC", name: "USD Coin", metadata: { copycatOf: "USDC" } }))
    expect(assessment.scoreBreakdown.map((entry) => [entry.name, entry.points])).toEqual([
      ["impersonation", -30],
      ["hard_cap", -50]
    ])
    expect(assessment.flags).toEqual(["impersonation"])
  })

  test("listed, so not capped: still one deduction, the larger", () => {
    const assessment = assessToken(
      evidenceWith({
        symbol: "USDC",
        name: "USD Coin",
        metadata: { copycatOf: "USDC" },
        listed: [{ list: "community-strict", source: "https://lists.example" }]
      })
    )
    expect(assessment.scoreBreakdown.map((entry) => [entry.name, entry.points])).toEqual([["impersonation", -30]])
  })
})
