import { describe, expect, test } from "bun:test"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import { Schema } from "effect"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import {
  assessToken,
  CAPS,
  confidenceOf,
  FACETS,
  FLAGS,
  type TokenAssessment
} from "../../../src/engines/TokenScoring/index.ts"
import { randomEvidence, RED_FLAGS } from "./randomEvidence.ts"

const RUNS = 2_000
const ROUND_TRIPS = 300
const random = seededRandom(20_260_601)
const evidences = Array.from({ length: RUNS }, () => randomEvidence(random))
const assessments = evidences.map(assessToken)
const CAP_CEILINGS = new Map<string, number>(Object.values(CAPS).map((cap) => [cap.name, cap.ceiling]))

// Collects every assessment that breaks `holds`, so that a failure prints what it got.
const violations = (holds: (assessment: TokenAssessment, index: number) => boolean) =>
  assessments.flatMap((assessment, index) => (holds(assessment, index) ? [] : [{ index, assessment }])).slice(0, 3)

const isIntIn = (value: number, min: number, max: number) => Number.isInteger(value) && value >= min && value <= max

describe(`invariants over ${RUNS} seeded random evidences`, () => {
  test("the safety score is an integer from 0 to 100 and riskScore is its complement", () => {
    expect(violations((a) => isIntIn(a.safetyScore, 0, 100) && a.riskScore === 100 - a.safetyScore)).toEqual([])
  })

  test("the score is at most the ceiling of every applied hard cap", () => {
    expect(
      violations((a) =>
        a.hardCaps.every((cap) => {
          const [name, ceiling] = cap.split(":")
          return CAP_CEILINGS.get(name ?? "") === Number(ceiling) && a.safetyScore <= Number(ceiling)
        })
      )
    ).toEqual([])
  })

  test("100 plus the breakdown points is the score", () => {
    expect(
      violations((a) => 100 + a.scoreBreakdown.reduce((total, entry) => total + entry.points, 0) === a.safetyScore)
    ).toEqual([])
  })

  test("facets are integers from 0 to 100, flags are documented, completeness is a share", () => {
    expect(
      violations(
        (a) =>
          FACETS.every((facet) => isIntIn(a.facets[facet], 0, 100)) &&
          a.flags.every((flag) => FLAGS.includes(flag)) &&
          new Set(a.flags).size === a.flags.length &&
          a.evidenceCompleteness >= 0 &&
          a.evidenceCompleteness <= 1
      )
    ).toEqual([])
  })

  test("confidence is an integer from 0 to 100 at any age", () => {
    const ages = [0, 299, 300, 3_600, 3_601, 86_400, 86_401, 10_000_000, Infinity]
    const broken = assessments.flatMap((a, index) =>
      ages.map((age) => confidenceOf(a, evidences[index]!, age)).filter((c) => !isIntIn(c.score, 0, 100))
    )
    expect(broken).toEqual([])
  })

  test("the same evidence gives a deep-equal assessment", () => {
    expect(violations((a, index) => Bun.deepEquals(assessToken(evidences[index]!), a))).toEqual([])
  })

  test("an encode/decode round trip through JSON gives the same assessment", () => {
    const decode = Schema.decodeUnknownSync(ScanEvidence)
    const encode = Schema.encodeSync(ScanEvidence)
    expect(
      violations(
        (a, index) =>
          index >= ROUND_TRIPS ||
          Bun.deepEquals(assessToken(decode(JSON.parse(JSON.stringify(encode(evidences[index]!))))), a)
      )
    ).toEqual([])
  })
})

describe("adding a red flag never raises the score", () => {
  for (const redFlag of RED_FLAGS) {
    test(redFlag.name, () => {
      const flagRandom = seededRandom(redFlag.name.length * 7_919)
      const raised = evidences.flatMap((evidence, index) => {
        const worse = redFlag.apply(evidence, flagRandom)
        const after = assessToken(worse).safetyScore
        const before = assessments[index]!.safetyScore
        return after > before ? [{ index, before, after, breakdown: assessToken(worse).scoreBreakdown }] : []
      })
      expect(raised.slice(0, 2)).toEqual([])
    })
  }
})
