import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import type { Address } from "../../../src/domain/Address.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { type InsidersV2, notObserved, observed, type ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import { randomEvidence } from "./randomEvidence.ts"

// The insiders block feeds the ownership rules through the scoring view (src/domain/EvidenceView.ts):
// members of deployer_funded and common_funder clusters are insiders (insider_holding), the creation
// slot's buyers the bundled launch share (bundled_launch).

const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
const params = { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20_261_125) }

const holdersOf = (scan: ScanEvidenceV2) =>
  scan.holders.top.status === "observed" ? scan.holders.top.value.filter((holder) => holder.kind === "holder") : []

const withInsiders = (
  scan: ScanEvidenceV2,
  members: ReadonlyArray<{ readonly address: Address; readonly pct: number }>,
  sameSlotPct: number | null
): ScanEvidenceV2 => {
  const insiders: InsidersV2 = {
    clusters: observed(
      members.length === 0
        ? []
        : [
            {
              funder: "11111111111111111111111111111112" as Address,
              reason: "common_funder" as const,
              members: members.map((member) => ({ owner: member.address, pct: member.pct })),
              pct: Math.min(
                100,
                members.reduce((sum, member) => sum + member.pct, 0)
              )
            }
          ]
    ),
    launchBuyers:
      sameSlotPct === null
        ? notObserved("test")
        : observed({
            creationSlot: 1,
            sameSlotPct,
            sameSlotCount: 3,
            sniperPct: 0,
            sniperCount: 0,
            windowSlots: 10
          }),
    deployerHolding: notObserved("test"),
    provenance: { funderCalls: 0, funderBudget: 40, walletsRead: 0, walletsCached: 0, launchTransactions: 0 }
  }
  return { ...scan, insiders }
}

const scanOf = (seed: number) => {
  const scan = upgradeV1(randomEvidence(seededRandom(seed)))
  return { ...scan, holders: { ...scan.holders, bundledLaunchPct: notObserved("not read") } }
}

describe("insiders in the score", () => {
  test("cluster members become insiders in the scoring view; the creation slot's buyers the bundled share", () => {
    const seed = Array.from({ length: 500 }, (_, i) => i + 1).find((n) => holdersOf(scanOf(n)).length >= 2)
    const scan = scanOf(seed ?? 1)
    const holders = holdersOf(scan)
    expect(holders.length).toBeGreaterThan(0)
    const view = scoringView(withInsiders(scan, holders.slice(0, 1), 12.5))
    expect(view.holders.top.filter((holder) => holder.kind === "insider").map((holder) => holder.address)).toEqual([
      holders[0]!.address
    ])
    expect(view.holders.bundledLaunchPct).toBe(12.5)
    // Without the block, nothing changes.
    expect(scoringView(scan).holders.top.filter((holder) => holder.kind === "insider")).toHaveLength(
      scan.holders.top.status === "observed"
        ? scan.holders.top.value.filter((holder) => holder.kind === "insider").length
        : 0
    )
  })

  test("a token whose funded ring holds 35% and bought 35% in the creation slot is flagged for both", () => {
    // The first generated scan with 5 plain holders.
    const seed = Array.from({ length: 500 }, (_, i) => i + 1).find((n) => holdersOf(scanOf(n)).length >= 5)
    const scan = scanOf(seed ?? 1)
    const ring = holdersOf(scan)
      .slice(0, 5)
      .map((holder) => ({ address: holder.address, pct: 7 }))
    const top =
      scan.holders.top.status === "observed"
        ? scan.holders.top.value.map((holder) =>
            ring.some((member) => member.address === holder.address) ? { ...holder, pct: 7 } : holder
          )
        : []
    const assessed = assessToken(
      scoringView(withInsiders({ ...scan, holders: { ...scan.holders, top: observed(top) } }, ring, 35))
    )
    expect(assessed.flags).toContain("insider_holding")
    expect(assessed.flags).toContain("bundled_launch")
  })

  test("more insider share never raises the score (fast-check)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.nat(), fc.nat(), (seed, a, b) => {
        const scan = scanOf(seed)
        const holders = holdersOf(scan)
        const fewer = Math.min(a, b) % (holders.length + 1)
        const more = Math.min(holders.length, fewer + (Math.max(a, b) % (holders.length + 1)))
        const score = (count: number) =>
          assessToken(scoringView(withInsiders(scan, holders.slice(0, count), null))).safetyScore
        return score(more) <= score(fewer)
      }),
      params
    )
  })

  test("a larger bundled launch share never raises the score (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (seed, x, y) => {
          const scan = scanOf(seed)
          const score = (pct: number) => assessToken(scoringView(withInsiders(scan, [], pct))).safetyScore
          return score(Math.max(x, y)) <= score(Math.min(x, y))
        }
      ),
      params
    )
  })
})
