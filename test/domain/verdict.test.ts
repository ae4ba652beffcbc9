import { describe, expect, test } from "bun:test"
import { freshnessOf, verdictOf } from "../../src/domain/Verdict.ts"

describe("verdict and freshness boundaries (the contract's thresholds)", () => {
  test("block < 30 <= warn < 60 <= ok", () => {
    expect([0, 29, 30, 59, 60, 100].map(verdictOf)).toEqual(["block", "block", "warn", "warn", "ok", "ok"])
  })

  test("fresh < 5 min <= stale <= 1 h < cold", () => {
    expect([0, 299, 300, 3_599, 3_600, 3_601].map(freshnessOf)).toEqual([
      "fresh",
      "fresh",
      "stale",
      "stale",
      "stale",
      "cold"
    ])
  })
})
