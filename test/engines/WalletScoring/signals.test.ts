import { describe, expect, test } from "bun:test"
import { assessWallet, type WalletAssessment } from "../../../src/engines/WalletScoring/index.ts"
import { CLEAN_EVIDENCE, evidenceOf } from "./fixtures.ts"
import { SIGNAL_CASES, SILENT_CASES } from "./signalCases.ts"

const pointsOf = (signal: string, assessment: WalletAssessment) =>
  assessment.signals.filter((found) => found.label === signal).map((found) => found.points)

describe("the clean evidence", () => {
  test("fires no signal", () => {
    expect(assessWallet(evidenceOf(CLEAN_EVIDENCE)).signals).toEqual([])
  })
})

describe("each signal fires once with its points", () => {
  for (const signalCase of SIGNAL_CASES) {
    test(signalCase.title, () => {
      expect(pointsOf(signalCase.signal, assessWallet(evidenceOf(signalCase.evidence)))).toEqual([signalCase.points])
    })
  }
})

describe("each signal stays silent without its evidence", () => {
  for (const silentCase of SILENT_CASES) {
    test(`${silentCase.signal}: ${silentCase.title}`, () => {
      expect(pointsOf(silentCase.signal, assessWallet(evidenceOf(silentCase.evidence)))).toEqual([])
    })
  }
})
