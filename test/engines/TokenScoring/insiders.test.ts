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

const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000)
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

const soldOf = (initialPct: number, currentPct: number) =>
  initialPct === 0 ? null : Math.round(Math.max(0, (1 - currentPct / initialPct) * 100) * 100) / 100

// The launch figures: snipers after the creation slot, and the deployer's holding (initial and now).
const withLaunch = (
  scan: ScanEvidenceV2,
  launch: {
    readonly sniperPct: number | null
    readonly initialPct?: number
    readonly currentPct: number | null
    /** The deployer's cluster (itself and the launch buyers it funded): initial and current holding. */
    readonly cluster?: { readonly initialPct: number; readonly currentPct: number }
  }
): ScanEvidenceV2 => {
  const initialPct = launch.initialPct ?? 10
  const insiders: InsidersV2 = {
    clusters: notObserved("test"),
    launchBuyers:
      launch.sniperPct === null
        ? notObserved("test")
        : observed({
            creationSlot: 1,
            sameSlotPct: 0,
            sameSlotCount: 0,
            sniperPct: launch.sniperPct,
            sniperCount: 4,
            windowSlots: 10
          }),
    deployerHolding:
      launch.currentPct === null
        ? notObserved("test")
        : observed({
            initialPct,
            currentPct: launch.currentPct,
            soldPct: soldOf(initialPct, launch.currentPct),
            ...(launch.cluster === undefined
              ? {}
              : {
                  cluster: observed({
                    memberCount: 5,
                    initialPct: launch.cluster.initialPct,
                    currentPct: launch.cluster.currentPct,
                    soldPct: soldOf(launch.cluster.initialPct, launch.cluster.currentPct)
                  })
                })
          }),
    provenance: { funderCalls: 0, funderBudget: 40, walletsRead: 0, walletsCached: 0, launchTransactions: 0 }
  }
  return { ...scan, insiders }
}

const LEVEL_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const
const ACTION_RANK = { proceed: 0, monitor: 1, caution: 2, avoid: 3 } as const
const VERDICT_RANK = { ok: 0, warn: 1, block: 2 } as const
const noBetter = (missing: ScanEvidenceV2, observedScan: ScanEvidenceV2): boolean => {
  const a = assessToken(scoringView(missing))
  const b = assessToken(scoringView(observedScan))
  return (
    a.safetyScore <= b.safetyScore &&
    LEVEL_RANK[a.riskLevel] >= LEVEL_RANK[b.riskLevel] &&
    ACTION_RANK[a.recommendedAction] >= ACTION_RANK[b.recommendedAction] &&
    VERDICT_RANK[a.verdict] >= VERDICT_RANK[b.verdict]
  )
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

  test("the view reads the sniped share and dev sold % (from the initial and current holding)", () => {
    const scan = scanOf(1)
    const view = scoringView(withLaunch(scan, { sniperPct: 40, initialPct: 12, currentPct: 0 }))
    expect(view.holders.sniperPct).toBe(40)
    expect({ initialPct: view.deployer.initialPct, soldPct: view.deployer.soldPct }).toEqual({
      initialPct: 12,
      soldPct: 100
    })
    // Not observed reads as unknown; no block leaves the fields out (a v1 scan's view is unchanged).
    const blind = scoringView(withLaunch(scan, { sniperPct: null, currentPct: null }))
    expect([blind.holders.sniperPct, blind.deployer.initialPct, blind.deployer.soldPct]).toEqual([null, null, null])
    expect("sniperPct" in scoringView(scan).holders).toBe(false)
    expect("soldPct" in scoringView(scan).deployer).toBe(false)
  })

  test("a dev that sold 80% of a 10% holding an hour after launch: dev_sold, out of ok", () => {
    const scan = scanOf(1)
    const young = {
      ...scan,
      token: { ...scan.token, createdAt: observed(new Date(Date.parse(scan.scannedAt) - 3_600_000).toISOString()) }
    }
    const assessed = assessToken(scoringView(withLaunch(young, { sniperPct: 0, initialPct: 10, currentPct: 2 })))
    expect(assessed.flags).toContain("dev_sold")
    expect(assessed.hardCaps).toContain("Dev Sold:59")
    expect(assessed.verdict).not.toBe("ok")
  })

  test("more dev sold % never raises the score (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (seed, initialPct, x, y) => {
          const scan = scanOf(seed)
          // Sold more = holds less now of the same initial holding.
          const score = (soldShare: number) =>
            assessToken(
              scoringView(
                withLaunch(scan, { sniperPct: 0, initialPct, currentPct: initialPct * (1 - soldShare / 100) })
              )
            ).safetyScore
          return score(Math.max(x, y)) <= score(Math.min(x, y))
        }
      ),
      params
    )
  })

  test("a dev that kept its holding while the wallets it funded sold out: dev_sold on the cluster's figure", () => {
    const scan = scanOf(1)
    const young = {
      ...scan,
      token: { ...scan.token, createdAt: observed(new Date(Date.parse(scan.scannedAt) - 3_600_000).toISOString()) }
    }
    const launch = { sniperPct: 0, initialPct: 10, currentPct: 10, cluster: { initialPct: 45, currentPct: 10 } }
    const view = scoringView(withLaunch(young, launch))
    expect(view.deployer).toMatchObject({ soldPct: 0, clusterInitialPct: 45, clusterSoldPct: 77.78 })
    const assessed = assessToken(view)
    expect(assessed.flags).toContain("dev_sold")
    expect(assessed.risks).toContain(
      "Deployer and the launch buyers it funded sold 77.78% of their launch holding of 45% of supply"
    )
    // Without the cluster's figure the same token reads as a dev that sold nothing.
    const alone = assessToken(scoringView(withLaunch(young, { sniperPct: 0, initialPct: 10, currentPct: 10 })))
    expect(alone.flags).not.toContain("dev_sold")
  })

  test("more dev sold % of the deployer's cluster never raises the score (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (seed, ownSold, clusterInitial, x, y) => {
          const scan = scanOf(seed)
          const score = (soldShare: number) =>
            assessToken(
              scoringView(
                withLaunch(scan, {
                  sniperPct: 0,
                  initialPct: 10,
                  currentPct: 10 * (1 - ownSold / 100),
                  cluster: { initialPct: clusterInitial, currentPct: clusterInitial * (1 - soldShare / 100) }
                })
              )
            ).safetyScore
          return score(Math.max(x, y)) <= score(Math.min(x, y))
        }
      ),
      params
    )
  })

  test("a larger sniped share never raises the score (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (seed, x, y) => {
          const scan = scanOf(seed)
          const score = (pct: number) =>
            assessToken(scoringView(withLaunch(scan, { sniperPct: pct, currentPct: 10 }))).safetyScore
          return score(Math.max(x, y)) <= score(Math.min(x, y))
        }
      ),
      params
    )
  })

  test("launch buyers or the deployer's holding not observed is no better than observed at its best (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (seed, sniperPct, initialPct, currentShare) => {
          const scan = scanOf(seed)
          const currentPct = (initialPct * currentShare) / 100
          // At its best: nobody sniped; the deployer sold nothing.
          return (
            noBetter(
              withLaunch(scan, { sniperPct: null, initialPct, currentPct }),
              withLaunch(scan, { sniperPct: 0, initialPct, currentPct })
            ) &&
            noBetter(
              withLaunch(scan, { sniperPct, initialPct, currentPct: null }),
              withLaunch(scan, { sniperPct, initialPct, currentPct: initialPct })
            ) &&
            noBetter(
              withLaunch(scan, { sniperPct: null, currentPct: null }),
              withLaunch(scan, { sniperPct: 0, initialPct, currentPct: initialPct })
            )
          )
        }
      ),
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
