import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { assessToken, CAPS, confidenceOf } from "../../../src/engines/TokenScoring/index.ts"
import { tokenRiskPacketOf } from "../../../src/features/TokenRisk/Packet.ts"
import { randomEvidence, RED_FLAGS } from "./randomEvidence.ts"

// The model's properties, checked with fast-check over generated evidence (a generated seed drives the
// evidence generator of randomEvidence.ts, whose values sit on the rules' thresholds often). A failure
// prints the seed that breaks the property. FUZZ_RUNS raises the count for a longer local run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000)
const params = { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20_261_123) }
const evidence = fc
  .integer({ min: 1, max: 2 ** 31 - 1 })
  .map((seed) => ({ seed, evidence: randomEvidence(seededRandom(seed)) }))
const CEILINGS = new Map<string, number>(Object.values(CAPS).map((cap) => [cap.name, cap.ceiling]))

// Evidence the scanner can fail to observe, each set back to "not observed".
const FORGETTABLE: ReadonlyArray<{ readonly name: string; readonly forget: (e: ScanEvidence) => ScanEvidence }> = [
  { name: "sell simulation", forget: (e) => ({ ...e, trading: { ...e.trading, isHoneypot: null } }) },
  { name: "taxes", forget: (e) => ({ ...e, trading: { ...e.trading, buyTax: null, sellTax: null } }) },
  {
    name: "liquidity",
    forget: (e) => ({
      ...e,
      liquidity: { ...e.liquidity, liquidityUsd: null },
      market: { ...e.market, liquidityUsd: null }
    })
  },
  { name: "LP lock", forget: (e) => ({ ...e, liquidity: { ...e.liquidity, lpLocked: null, lpLockPercentage: null } }) },
  {
    name: "concentrated-liquidity positions",
    forget: (e) => ({ ...e, liquidity: { ...e.liquidity, positionsCreatorPct: null } })
  },
  { name: "holders", forget: (e) => ({ ...e, holders: { ...e.holders, top: [], holderCount: null } }) },
  {
    name: "deployer record",
    forget: (e) => ({ ...e, deployer: { ...e.deployer, priorRugs: null, priorHoneypots: null, flagged: null } })
  },
  { name: "creation time", forget: (e) => ({ ...e, createdAt: null }) },
  { name: "market", forget: (e) => ({ ...e, market: { ...e.market, volume24h: null, marketCap: null } }) },
  { name: "aml", forget: (e) => ({ ...e, aml: { flaggedHolderCount: null, flaggedHolderPct: null } }) }
]

describe(`scoring properties (fast-check, ${RUNS} runs each)`, () => {
  test("adding any red flag never raises the score", () => {
    fc.assert(
      fc.property(evidence, fc.constantFrom(...RED_FLAGS), fc.integer(), ({ evidence: e }, redFlag, seed) => {
        const worse = redFlag.apply(e, seededRandom(seed))
        return assessToken(worse).safetyScore <= assessToken(e).safetyScore
      }),
      params
    )
  })

  test("removing evidence never raises confidence (nor completeness)", () => {
    fc.assert(
      fc.property(
        evidence,
        fc.constantFrom(...FORGETTABLE),
        fc.integer({ min: 0, max: 200_000 }),
        ({ evidence: e }, item, age) => {
          const before = assessToken(e)
          const after = assessToken(item.forget(e))
          return after.evidenceCompleteness <= before.evidenceCompleteness &&
            after.safetyScore < 30 === before.safetyScore < 30
            ? confidenceOf(after, item.forget(e), age).score <= confidenceOf(before, e, age).score
            : after.evidenceCompleteness <= before.evidenceCompleteness
        }
      ),
      params
    )
  })

  test("scoreBreakdown sums exactly to the score before caps, and with the adjustments to the score", () => {
    fc.assert(
      fc.property(evidence, ({ evidence: e }) => {
        const assessment = assessToken(e)
        const rules = assessment.scoreBreakdown.filter(
          (entry) => entry.name !== "hard_cap" && entry.name !== "score_floor"
        )
        const beforeCaps = Math.max(0, 100 + rules.reduce((sum, entry) => sum + entry.points, 0))
        const capEntry = assessment.scoreBreakdown.find((entry) => entry.name === "hard_cap")
        return (
          beforeCaps + (capEntry?.points ?? 0) === assessment.safetyScore &&
          100 + assessment.scoreBreakdown.reduce((sum, entry) => sum + entry.points, 0) === assessment.safetyScore
        )
      }),
      params
    )
  })

  test("the lowest applied cap bounds the score", () => {
    fc.assert(
      fc.property(evidence, ({ evidence: e }) => {
        const assessment = assessToken(e)
        const ceilings = assessment.hardCaps.map((cap) => CEILINGS.get(cap.split(":")[0]!) ?? -1)
        return ceilings.every((ceiling) => ceiling >= 0) && assessment.safetyScore <= Math.min(100, ...ceilings)
      }),
      params
    )
  })

  test("the same evidence and model version give the same packet; thin evidence is never ok", () => {
    fc.assert(
      fc.property(evidence, fc.integer({ min: 0, max: 10_000_000 }), ({ seed }, ms) => {
        const now = Date.parse("2026-06-01T12:00:00.000Z") + ms
        const first = tokenRiskPacketOf(randomEvidence(seededRandom(seed)), now)
        const again = tokenRiskPacketOf(randomEvidence(seededRandom(seed)), now)
        const assessment = assessToken(randomEvidence(seededRandom(seed)))
        expect(again).toEqual(first)
        return !(assessment.flags.includes("thin_evidence") && assessment.verdict === "ok")
      }),
      params
    )
  })
})
