import { Schema } from "effect"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { observe } from "../TokenScoring/observed.ts"
import type { TokenAssessment } from "../TokenScoring/types.ts"

export interface RuleHit {
  readonly rule: WatchRule
  readonly value: number | null
  readonly hit: boolean
  readonly detail: string
}

export type WatchMetrics = Readonly<Record<WatchMetric, number | null>>

// The metrics a watch rule may name; docs/decision-engine.md defines each one.
export const WATCH_METRICS = [
  "safety_score",
  "liquidity_usd",
  "liquidity_change_pct",
  "price_usd",
  "drawdown_pct",
  "price_change_1h",
  "price_change_24h",
  "sell_share_24h",
  "volume_24h",
  "top10_holder_pct",
  "market_cap"
] as const
export type WatchMetric = (typeof WATCH_METRICS)[number]

export const WATCH_COMPARISONS = ["lt", "lte", "gt", "gte"] as const
type WatchComparison = (typeof WATCH_COMPARISONS)[number]

/**
 * A watch rule and its one definition: the engine evaluates it, the contracts that carry one (set-watch, the
 * monitor decision, a webhook event) use the schema. Only `effect`'s Schema: no platform package in the engine.
 */
export const WatchRuleSchema = Schema.Struct({
  metric: Schema.Literal(...WATCH_METRICS).annotations({ description: "docs/decision-engine.md defines each metric." }),
  comparison: Schema.Literal(...WATCH_COMPARISONS),
  threshold: Schema.Number.pipe(Schema.finite())
}).annotations({ identifier: "WatchRule", parseOptions: { onExcessProperty: "error" } })

export type WatchRule = typeof WatchRuleSchema.Type

export interface EntryReference {
  readonly priceUsd: number | null
  readonly liquidityUsd: number | null
}

export const isWatchMetric = (name: string): name is WatchMetric =>
  (WATCH_METRICS as ReadonlyArray<string>).includes(name)

const SYMBOL: Readonly<Record<WatchComparison, string>> = { lt: "<", lte: "<=", gt: ">", gte: ">=" }

const compare = (value: number, comparison: WatchComparison, threshold: number): boolean =>
  comparison === "lt"
    ? value < threshold
    : comparison === "lte"
      ? value <= threshold
      : comparison === "gt"
        ? value > threshold
        : value >= threshold

const round = (value: number, decimals: number): number => Number(value.toFixed(decimals))

// Change from a reference in percent, to two decimals; null when either side is unknown or the reference is not positive.
const changePct = (latest: number | null, reference: number | null): number | null =>
  latest === null || reference === null || reference <= 0 ? null : round(((latest - reference) / reference) * 100, 2)

export const sellShareOf = (market: ScanEvidence["market"]): number | null => {
  const { buyCount24h: buys, sellCount24h: sells } = market
  return buys === null || sells === null || buys + sells === 0 ? null : round(sells / (buys + sells), 4)
}

export const metricsOf = (latest: ScanEvidence, assessment: TokenAssessment, entry: EntryReference): WatchMetrics => {
  const observed = observe(latest)
  const priceChange = changePct(latest.market.priceUsd, entry.priceUsd)
  return {
    safety_score: assessment.safetyScore,
    liquidity_usd: observed.liquidityUsd,
    liquidity_change_pct: changePct(observed.liquidityUsd, entry.liquidityUsd),
    price_usd: latest.market.priceUsd,
    drawdown_pct: priceChange === null ? null : 0 - priceChange,
    price_change_1h: latest.market.priceChange1h,
    price_change_24h: latest.market.priceChange24h,
    sell_share_24h: sellShareOf(latest.market),
    volume_24h: latest.market.volume24h,
    top10_holder_pct: observed.top10Pct,
    market_cap: latest.market.marketCap
  }
}

export const describeRule = (rule: WatchRule): string => `${rule.metric} ${SYMBOL[rule.comparison]} ${rule.threshold}`

// A metric that was not observed never hits: missing evidence is not a signal either way.
export const evaluateWatchRules = (rules: ReadonlyArray<WatchRule>, metrics: WatchMetrics): ReadonlyArray<RuleHit> =>
  rules.map((rule) => {
    const value = metrics[rule.metric]
    if (value === null)
      return { rule, value, hit: false, detail: `${rule.metric} was not observed: ${describeRule(rule)} cannot hit` }
    const hit = compare(value, rule.comparison, rule.threshold)
    return { rule, value, hit, detail: `${rule.metric} is ${value}: ${describeRule(rule)} ${hit ? "hit" : "not hit"}` }
  })
