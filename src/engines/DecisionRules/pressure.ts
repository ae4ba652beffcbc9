import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { formatPct, formatUsd, observe } from "../TokenScoring/observed.ts"
import type { TokenAssessment } from "../TokenScoring/types.ts"
import { formatPrice, roundTo2 } from "./format.ts"
import { DEV_SOLD_MIN_INITIAL_PCT } from "../TokenScoring/model.ts"
import {
  CONCENTRATION_GAIN_PP_TIERS,
  DEV_SOLD_GAIN_PP_TIERS,
  DRAWDOWN_PCT_TIERS,
  LIQUIDITY_DRAIN_PCT_TIERS,
  type PressureLevel,
  type PressureTier,
  SELL_PRESSURE_MIN_TRADES,
  SELL_SHARE_TIERS
} from "./model.ts"
import type { PressureSignal, PressureSignalName } from "./types.ts"
import { sellShareOf } from "./watchRules.ts"

export interface PressureContext {
  // Scans since entry, oldest first: `first` opens it and `latest` closes it.
  readonly window: ReadonlyArray<ScanEvidence>
  readonly first: ScanEvidence
  readonly latest: ScanEvidence
  readonly assessment: TokenAssessment
  // The assessment at entry, to compare hard caps with; null when there is nothing earlier to compare.
  readonly baseline: TokenAssessment | null
  readonly entryPriceUsd: number | null
}

// A signal and the concrete condition that would raise it to its next level (null at the top or unknown).
export interface PressureReading {
  readonly signal: PressureSignal
  readonly escalation: string | null
}

const levelOf = (value: number, tiers: ReadonlyArray<PressureTier>): PressureLevel =>
  tiers.find((tier) => value >= tier.threshold)?.level ?? "none"

// The least severe tier not reached yet.
const nextTier = (value: number, tiers: ReadonlyArray<PressureTier>): PressureTier | undefined =>
  tiers.filter((tier) => value < tier.threshold).at(-1)

const unread = (signal: PressureSignalName, detail: string): PressureReading => ({
  signal: { signal, level: "none", value: null, detail },
  escalation: null
})

const reading = (
  signal: PressureSignalName,
  value: number,
  tiers: ReadonlyArray<PressureTier>,
  detail: string,
  escalationOf: (tier: PressureTier) => string
): PressureReading => {
  const next = nextTier(value, tiers)
  return {
    signal: { signal, level: levelOf(value, tiers), value: roundTo2(value), detail },
    escalation: next === undefined ? null : `${escalationOf(next)} (${next.level} ${signal})`
  }
}

const nonNull = (values: ReadonlyArray<number | null>): ReadonlyArray<number> => values.filter((v) => v !== null)

const liquidityDrain = ({ window, latest }: PressureContext): PressureReading => {
  const now = observe(latest).liquidityUsd
  const peak = Math.max(...nonNull(window.map((scan) => observe(scan).liquidityUsd)))
  if (now === null || !(peak > 0)) return unread("liquidity_drain", "liquidity was not observed")
  const drain = ((peak - now) / peak) * 100
  return reading(
    "liquidity_drain",
    drain,
    LIQUIDITY_DRAIN_PCT_TIERS,
    `liquidity ${formatUsd(now)} is ${formatPct(drain)} below the highest ${formatUsd(peak)} since entry`,
    (tier) => `liquidity falls below ${formatUsd(peak * (1 - tier.threshold / 100))}`
  )
}

const sellPressure = ({ latest }: PressureContext): PressureReading => {
  const share = sellShareOf(latest.market)
  if (share === null) return unread("sell_pressure", "24h buy and sell counts were not observed")
  const trades = (latest.market.buyCount24h ?? 0) + (latest.market.sellCount24h ?? 0)
  if (trades < SELL_PRESSURE_MIN_TRADES) {
    return {
      signal: {
        signal: "sell_pressure",
        level: "none",
        value: roundTo2(share),
        detail: `only ${trades} trades in 24 h, fewer than ${SELL_PRESSURE_MIN_TRADES}`
      },
      escalation: null
    }
  }
  return reading(
    "sell_pressure",
    share,
    SELL_SHARE_TIERS,
    `sells are ${formatPct(share * 100)} of ${trades} trades in 24 h`,
    (tier) => `sells reach ${formatPct(tier.threshold * 100)} of 24h trades`
  )
}

// From the entry price when given; otherwise the worst of the drop from the highest price since entry
// and the 1h, 6h and 24h price changes of the latest scan.
const drawdown = ({ window, latest, entryPriceUsd }: PressureContext): PressureReading => {
  const price = latest.market.priceUsd
  if (entryPriceUsd !== null && entryPriceUsd > 0 && price !== null) {
    const drop = ((entryPriceUsd - price) / entryPriceUsd) * 100
    return reading(
      "drawdown",
      drop,
      DRAWDOWN_PCT_TIERS,
      `price ${formatPrice(price)} is ${formatPct(drop)} below the entry price ${formatPrice(entryPriceUsd)}`,
      (tier) => `price falls below ${formatPrice(entryPriceUsd * (1 - tier.threshold / 100))}`
    )
  }
  const peak = Math.max(...nonNull(window.map((scan) => scan.market.priceUsd)))
  const fromPeak = price !== null && peak > 0 ? ((peak - price) / peak) * 100 : null
  const { priceChange1h, priceChange6h, priceChange24h } = latest.market
  const drops = nonNull([
    fromPeak,
    ...[priceChange1h, priceChange6h, priceChange24h].map((c) => (c === null ? null : -c))
  ])
  if (drops.length === 0) return unread("drawdown", "neither an entry price nor price evidence was observed")
  const worst = Math.max(...drops)
  return reading(
    "drawdown",
    worst,
    DRAWDOWN_PCT_TIERS,
    `no entry price: worst drop ${formatPct(worst)} over the scans since entry and the 1h, 6h and 24h price windows`,
    (tier) => `the price drops ${formatPct(tier.threshold)}`
  )
}

const holderConcentration = (context: PressureContext): PressureReading => {
  const first = observe(context.first).top10Pct
  const now = observe(context.latest).top10Pct
  if (first === null || now === null) return unread("holder_concentration", "the holder list was not observed")
  const gain = now - first
  return reading(
    "holder_concentration",
    gain,
    CONCENTRATION_GAIN_PP_TIERS,
    `top-10 holders (pool, locker, burn excluded) own ${formatPct(now)}, ${roundTo2(gain)} points from ${formatPct(first)} at entry`,
    (tier) => `the top-10 holder share reaches ${formatPct(first + tier.threshold)}`
  )
}

const newHardCaps = ({ assessment, baseline }: PressureContext): PressureReading => {
  if (baseline === null) return unread("new_hard_caps", "no earlier scan to compare hard caps with")
  const appeared = assessment.hardCaps.filter((cap) => !baseline.hardCaps.includes(cap))
  return {
    signal: {
      signal: "new_hard_caps",
      level: appeared.length > 0 ? "high" : "none",
      value: appeared.length,
      detail:
        appeared.length > 0
          ? `hard caps appeared since entry: ${appeared.join(", ")}`
          : "no hard cap appeared since entry"
    },
    escalation: appeared.length > 0 ? null : "a hard cap appears (high new_hard_caps)"
  }
}

const increase = (from: number | null, to: number | null): number =>
  from === null || to === null ? 0 : Math.max(0, to - from)

// 1.1: dev sold % gained since the first scan (unknown then counts 0), when the launch holding is not dust.
const devSoldGain = ({ first, latest }: PressureContext): number => {
  const now = latest.deployer.soldPct ?? null
  const initial = latest.deployer.initialPct ?? null
  if (now === null || (initial !== null && initial < DEV_SOLD_MIN_INITIAL_PCT)) return 0
  return Math.max(0, now - (first.deployer.soldPct ?? 0))
}

const LEVEL_RANK: Readonly<Record<PressureLevel, number>> = { none: 0, low: 1, medium: 2, high: 3 }

const deployerActivity = (context: PressureContext): PressureReading => {
  const { first, latest } = context
  const before = first.deployer
  const now = latest.deployer
  const sold = devSoldGain(context)
  if (
    [now.priorLaunches, now.priorRugs, now.priorHoneypots, now.flagged, now.soldPct ?? null].every((v) => v === null)
  ) {
    return unread("deployer_activity", "deployer evidence was not observed")
  }
  const badLaunches = increase(before.priorRugs, now.priorRugs) + increase(before.priorHoneypots, now.priorHoneypots)
  const newlyFlagged = now.flagged === true && before.flagged !== true
  const launches = increase(before.priorLaunches, now.priorLaunches)
  const [recordLevel, recordDetail]: readonly [PressureLevel, string] =
    badLaunches > 0
      ? ["high", `the deployer gained ${badLaunches} rugged or honeypot launches since entry`]
      : newlyFlagged
        ? ["high", "the deployer was flagged since entry"]
        : now.flagged === true
          ? ["medium", "the deployer is flagged"]
          : launches > 0
            ? ["low", `the deployer launched ${launches} more tokens since entry`]
            : ["none", "no new deployer activity since entry"]
  // The higher of the record's level and the dev sale's; a record finding keeps its own words first.
  const soldLevel = levelOf(sold, DEV_SOLD_GAIN_PP_TIERS)
  const soldDetail = `the deployer sold ${formatPct(sold)} more of its launch holding since entry (dev sold ${formatPct(now.soldPct ?? 0)})`
  const level = LEVEL_RANK[soldLevel] > LEVEL_RANK[recordLevel] ? soldLevel : recordLevel
  const detail =
    soldLevel === "none"
      ? recordDetail
      : recordLevel === "none"
        ? soldDetail
        : `${recordLevel === level ? recordDetail : soldDetail}; ${recordLevel === level ? soldDetail : recordDetail}`
  return {
    signal: { signal: "deployer_activity", level, value: badLaunches, detail },
    escalation:
      level === "high"
        ? null
        : `the deployer gains a rugged or honeypot launch${now.flagged === true ? "" : ", or is flagged"}${soldEscalation(context)} (high deployer_activity)`
  }
}

// With dev sold % observed: the figure at which the sale since entry turns the signal high.
const soldEscalation = ({ first, latest }: PressureContext): string => {
  const high = (first.deployer.soldPct ?? 0) + (DEV_SOLD_GAIN_PP_TIERS[0]?.threshold ?? 0)
  return (latest.deployer.soldPct ?? null) === null || high > 100 ? "" : `, or dev sold % reaches ${formatPct(high)}`
}

// All six, in this order.
export const pressureOf = (context: PressureContext): ReadonlyArray<PressureReading> => [
  liquidityDrain(context),
  sellPressure(context),
  drawdown(context),
  holderConcentration(context),
  newHardCaps(context),
  deployerActivity(context)
]
