import { describe, expect, test } from "bun:test"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { CORPUS } from "./corpus.ts"
import { evidenceWith } from "./fixtures.ts"

describe(`scenario corpus (${CORPUS.length} cases written from public patterns)`, () => {
  test("has at least 60 cases, each with a note", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60)
    expect(CORPUS.filter((item) => item.note.length < 10)).toEqual([])
  })
  for (const item of CORPUS) {
    test(`${item.expect}: ${item.note}`, () => {
      const assessment = assessToken(evidenceWith(item.evidence))
      const got = {
        verdict: assessment.verdict,
        score: assessment.safetyScore,
        hardCaps: assessment.hardCaps,
        flags: assessment.flags
      }
      expect({ verdict: got.verdict }).toEqual({ verdict: item.expect })
      if (item.score !== undefined) {
        const [min, max] = item.score
        expect({ score: got.score, inBand: got.score >= min && got.score <= max }).toEqual({
          score: got.score,
          inBand: true
        })
      }
      if (item.because !== undefined) {
        expect([...assessment.flags, ...assessment.hardCaps]).toContain(item.because)
      }
    })
  }
})
