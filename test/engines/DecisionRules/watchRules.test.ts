import { describe, expect, test } from "bun:test"
import {
  evaluateWatchRules,
  isWatchMetric,
  metricsOf,
  monitorDecision,
  WATCH_COMPARISONS,
  WATCH_METRICS,
  type WatchMetric,
  type WatchMetrics,
  type WatchRule
} from "../../../src/engines/DecisionRules/index.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { evidenceWith } from "../TokenScoring/fixtures.ts"

const metricsWith = (values: Partial<Record<WatchMetric, number | null>>): WatchMetrics => ({
  ...(Object.fromEntries(WATCH_METRICS.map((metric) => [metric, null])) as Record<WatchMetric, null>),
  ...values
})

const hitsOf = (rules: ReadonlyArray<WatchRule>, metrics: WatchMetrics) =>
  evaluateWatchRules(rules, metrics).map((ruleHit) => ruleHit.hit)

describe("evaluating watch rules", () => {
  const metrics = metricsWith({ liquidity_usd: 5_000 })

  test("each comparison hits and misses at its boundary", () => {
    const rules = [4_999, 5_000, 5_001].flatMap((threshold) =>
      WATCH_COMPARISONS.map((comparison): WatchRule => ({ metric: "liquidity_usd", comparison, threshold }))
    )
    // Rows: thresholds 4,999 / 5,000 / 5,001; columns: lt, lte, gt, gte of the value 5,000.
    expect(hitsOf(rules, metrics)).toEqual([
      false,
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
      true,
      false,
      false
    ])
  })

  test("a metric that was not observed never hits, whatever the comparison", () => {
    const rules = WATCH_COMPARISONS.map(
      (comparison): WatchRule => ({ metric: "drawdown_pct", comparison, threshold: 0 })
    )
    const hits = evaluateWatchRules(rules, metrics)
    expect(hits.map((ruleHit) => [ruleHit.hit, ruleHit.value])).toEqual([
      [false, null],
      [false, null],
      [false, null],
      [false, null]
    ])
    expect(hits[0]?.detail).toBe("drawdown_pct was not observed: drawdown_pct < 0 cannot hit")
  })

  test("each result carries the rule, the value and a detail", () => {
    const rule: WatchRule = { metric: "liquidity_usd", comparison: "lt", threshold: 10_000 }
    expect(evaluateWatchRules([rule], metrics)).toEqual([
      { rule, value: 5_000, hit: true, detail: "liquidity_usd is 5000: liquidity_usd < 10000 hit" }
    ])
  })

  test("metric names are checked against the documented list", () => {
    expect([isWatchMetric("sell_share_24h"), isWatchMetric("holder_count"), isWatchMetric("")]).toEqual([
      true,
      false,
      false
    ])
  })
})

describe("metrics of a scan", () => {
  const scan = evidenceWith({})

  test("reads every metric from the latest scan, its assessment and the entry", () => {
    expect(metricsOf(scan, assessToken(scan), { priceUsd: 0.01, liquidityUsd: 400_000 })).toEqual({
      safety_score: 100,
      liquidity_usd: 500_000,
      liquidity_change_pct: 25,
      price_usd: 0.005,
      drawdown_pct: 50,
      price_change_1h: -1.2,
      price_change_24h: -8,
      sell_share_24h: 0.4545,
      volume_24h: 400_000,
      top10_holder_pct: 5, // 2.0: the 1.5% exchange wallet is not a holder
      market_cap: 5_000_000
    })
  })

  test("metrics relative to the entry are null without it, and unobserved evidence is null", () => {
    const sparse = evidenceWith({ holders: { top: [] }, market: { buyCount24h: null, marketCap: null } })
    const metrics = metricsOf(sparse, assessToken(sparse), { priceUsd: null, liquidityUsd: null })
    expect([
      metrics.liquidity_change_pct,
      metrics.drawdown_pct,
      metrics.sell_share_24h,
      metrics.top10_holder_pct,
      metrics.market_cap
    ]).toEqual([null, null, null, null, null])
  })

  test("a price above entry is a negative drawdown", () => {
    expect(metricsOf(scan, assessToken(scan), { priceUsd: 0.004, liquidityUsd: null }).drawdown_pct).toBe(-25)
  })
})

describe("watch rules on a position", () => {
  const entry = evidenceWith({})
  const latest = evidenceWith({ scannedAt: "2026-06-01T14:00:00.000Z", market: { priceUsd: 0.004 } })
  const decide = (watchRules: ReadonlyArray<WatchRule> | null) =>
    monitorDecision({
      history: [entry, latest],
      assessment: assessToken(latest),
      entryAssessment: null,
      evidenceAgeSeconds: 60,
      entryPriceUsd: 0.005,
      entryTime: null,
      sizeUsd: null,
      watchRules,
      maxEvidenceAgeSeconds: null
    })

  test("a rule that fires makes monitor reduce; one that does not leaves it holding", () => {
    const fires = decide([{ metric: "drawdown_pct", comparison: "gte", threshold: 15 }])
    const quiet = decide([{ metric: "drawdown_pct", comparison: "gte", threshold: 25 }])
    expect([
      fires.decision,
      fires.watch_rules_hit.map((ruleHit) => ruleHit.hit),
      quiet.decision,
      quiet.watch_rules_hit.map((ruleHit) => ruleHit.hit)
    ]).toEqual(["reduce", [true], "hold", [false]])
  })

  test("every given rule is reported, hit or not; none without a watch", () => {
    const both = decide([
      { metric: "price_usd", comparison: "lt", threshold: 0.0045 },
      { metric: "market_cap", comparison: "lt", threshold: 1_000 }
    ])
    expect([both.watch_rules_hit.map((ruleHit) => ruleHit.hit), decide(null).watch_rules_hit]).toEqual([
      [true, false],
      []
    ])
  })
})
