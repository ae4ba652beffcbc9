import { describe, expect, test } from "bun:test"
import { amountWeightOf, assessWallet, hopDecayOf } from "../../../src/engines/WalletScoring/index.ts"
import * as M from "../../../src/engines/WalletScoring/model.ts"
import { addressOf, COUNTERPARTY, evidenceOf, exposureOf, labelOf } from "./fixtures.ts"

type ExposureFields = Parameters<typeof exposureOf>[0]

// One exposure to a mixer (base 50, so the cap never binds) with the given fields; the points of its signal.
const mixerPoints = (fields: ExposureFields): number =>
  assessWallet(evidenceOf({ exposures: [exposureOf({ category: "mixer", ...fields })] })).signals.find(
    (signal) => signal.label === "flagged_counterparty_exposure"
  )?.points ?? 0

const repeatDeployerPoints = (fields: ExposureFields): number =>
  assessWallet(
    evidenceOf({
      exposures: [exposureOf({ category: "deployer", ...fields })],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 4, rugged: 2, honeypots: 0 }]]
    })
  ).signals.find((signal) => signal.label === "repeat_deployer_exposure")?.points ?? 0

const HOPS = [1, 2, 3, 4, 5, 6]
const isStrictlyDecreasing = (values: ReadonlyArray<number>) =>
  values.every((value, i) => i === 0 || value < values[i - 1]!)
const isStrictlyIncreasing = (values: ReadonlyArray<number>) =>
  values.every((value, i) => i === 0 || value > values[i - 1]!)

describe("hop decay", () => {
  test("halves with every hop after the first", () => {
    expect(HOPS.map(hopDecayOf)).toEqual([1, 0.5, 0.25, 0.125, 0.0625, 0.03125])
  })

  test("the same flagged exposure weighs less at every further hop", () => {
    const points = HOPS.map((hopDistance) => mixerPoints({ hopDistance, exposureAmountUsd: 100_000 }))
    expect({ points, decreasing: isStrictlyDecreasing(points) }).toEqual({ points, decreasing: true })
    expect(points[0]).toBe(
      Math.round(M.COUNTERPARTY_SEVERITY_POINTS.high * amountWeightOf({ exposureAmountUsd: 100_000, exposurePct: 5 }))
    )
  })

  test("the same repeat-deployer exposure weighs less at every further hop", () => {
    const points = HOPS.slice(0, 4).map((hopDistance) =>
      repeatDeployerPoints({ hopDistance, exposureAmountUsd: 100_000 })
    )
    expect({ points, decreasing: isStrictlyDecreasing(points) }).toEqual({ points, decreasing: true })
  })

  test("a sanctioned counterparty at $10,000 is high at hop 1, medium at hop 2, low at hop 3", () => {
    const levels = [1, 2, 3]
      .map((hopDistance) => assessWallet(evidenceOf({ exposures: [exposureOf({ hopDistance })] })))
      .map((assessment) => [assessment.riskScore, assessment.riskLevel, assessment.recommendedAction])
    expect(levels).toEqual([
      [67, "high", "review"],
      [33, "medium", "monitor"],
      [17, "low", "allow"]
    ])
  })
})

describe("amount weighting", () => {
  const AMOUNTS = [10, 1_000, 10_000, 100_000, M.FULL_WEIGHT_USD]

  test("weight grows on a log scale and is full at the full-weight amount", () => {
    const weights = [0, ...AMOUNTS, 10 * M.FULL_WEIGHT_USD].map((exposureAmountUsd) =>
      amountWeightOf({ exposureAmountUsd, exposurePct: 0 })
    )
    const increasing = isStrictlyIncreasing(weights.slice(0, -1))
    expect({ weights, increasing }).toEqual({ weights, increasing: true })
    expect(weights[0]).toBe(0)
    expect(weights.slice(-2)).toEqual([1, 1])
    expect(weights[2]).toBeCloseTo(0.5, 3)
  })

  test("a larger flagged exposure never weighs less, and weighs more below saturation", () => {
    const points = AMOUNTS.map((exposureAmountUsd) => mixerPoints({ exposureAmountUsd, exposurePct: 0 }))
    expect({ points, increasing: isStrictlyIncreasing(points) }).toEqual({ points, increasing: true })
    expect(points.at(-1)).toBe(M.COUNTERPARTY_SEVERITY_POINTS.high)
  })

  test("a larger share of the wallet's volume weighs more, up to the full-weight share", () => {
    const shares = [0, 10, 25, 40, M.FULL_WEIGHT_PCT, 100]
    const points = shares.map((exposurePct) => mixerPoints({ exposureAmountUsd: 1, exposurePct }))
    expect({ points, increasing: isStrictlyIncreasing(points.slice(0, -1)) }).toEqual({ points, increasing: true })
    expect(points.slice(-2)).toEqual([M.COUNTERPARTY_SEVERITY_POINTS.high, M.COUNTERPARTY_SEVERITY_POINTS.high])
  })
})

describe("caps and sums", () => {
  const full = { exposureAmountUsd: M.FULL_WEIGHT_USD, exposurePct: 0 }

  test("flagged exposures add up across counterparties to at most their cap", () => {
    const exposures = [4, 5, 6].map((n) =>
      exposureOf({ ...full, counterpartyAddress: addressOf(n), category: "sanctions" })
    )
    const signal = assessWallet(evidenceOf({ exposures })).signals.find(
      (found) => found.label === "flagged_counterparty_exposure"
    )
    expect(signal?.points).toBe(M.FLAGGED_EXPOSURE_CAP)
    expect(signal?.detail).toContain(`capped at ${M.FLAGGED_EXPOSURE_CAP}`)
  })

  test("repeat-deployer exposures add up to at most their cap", () => {
    const exposures = [4, 5].map((n) =>
      exposureOf({ ...full, counterpartyAddress: addressOf(n), category: "deployer", counterpartyLabel: "rugger" })
    )
    const assessment = assessWallet(evidenceOf({ exposures }))
    expect(assessment.signals.map((signal) => [signal.label, signal.points])).toEqual([
      ["repeat_deployer_exposure", M.REPEAT_DEPLOYER_CAP]
    ])
    expect(assessment.riskLevel).toBe("high")
  })

  test("two medium counterparties at hop 1 add up: 20 + 20", () => {
    const exposures = [4, 5].map((n) =>
      exposureOf({ ...full, counterpartyAddress: addressOf(n), category: "exchange" })
    )
    const counterpartyLabels = [4, 5].map((n) =>
      labelOf({ address: addressOf(n), label: "gambling", severity: "medium" })
    )
    const points = assessWallet(evidenceOf({ exposures, counterpartyLabels })).signals.map((signal) => signal.points)
    expect(points).toEqual([2 * M.COUNTERPARTY_SEVERITY_POINTS.medium])
  })

  test("a counterparty weighs as its most severe reason", () => {
    const exposures = [exposureOf({ ...full, category: "mixer" })]
    const counterpartyLabels = [labelOf({ address: COUNTERPARTY, label: "sanctioned", severity: "critical" })]
    const points = assessWallet(evidenceOf({ exposures, counterpartyLabels })).signals.map((signal) => signal.points)
    expect(points).toEqual([Math.min(M.FLAGGED_EXPOSURE_CAP, M.COUNTERPARTY_SEVERITY_POINTS.critical)])
  })
})
