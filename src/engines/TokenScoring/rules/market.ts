import type { ScanEvidence } from "../../../domain/ScanEvidence.ts"
import {
  LIQUIDITY_TO_MCAP_PCT,
  LOW_ORGANIC_VOLUME_POINTS,
  MARKET_CAP_USD_TIERS,
  SELL_PRESSURE_MIN_TRADES,
  SELL_PRESSURE_POINTS,
  SELL_PRESSURE_SHARE,
  TRADES_PER_TRADER,
  TRADES_PER_TRADER_MIN_TRADES,
  VOLATILITY_PCT_TIERS,
  WASH_TRADING_POINTS,
  WASH_VOLUME_TO_LIQUIDITY
} from "../model.ts"
import { formatPct, formatUsd, tierAtLeast, tierBelow } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

// Volume many times the pool depth in a day is churn between a few wallets, not demand. The depth is liquidity,
// or a live bonding curve's depth (2.1), as in thin_liquidity_for_cap.
export const washTrading: Rule = ({ evidence, depthUsd: liquidityUsd }) => {
  const volume = evidence.market.volume24h
  if (volume === null || liquidityUsd === null || volume === 0) return null
  const turnover = liquidityUsd === 0 ? Infinity : volume / liquidityUsd
  if (turnover < WASH_VOLUME_TO_LIQUIDITY) return null
  return finding({
    rule: "wash_trading",
    facet: "market",
    points: WASH_TRADING_POINTS,
    reason: `market.volume24h ${formatUsd(volume)} is ${
      Number.isFinite(turnover) ? `${Math.round(turnover)}x` : "infinitely many times"
    } liquidity ${formatUsd(liquidityUsd)} (>= ${WASH_VOLUME_TO_LIQUIDITY}x)`,
    risk: "Volume is implausibly high for the liquidity: likely wash trading",
    flag: "wash_trading"
  })
}

const tradeCountOf = (market: ScanEvidence["market"]): number | null =>
  market.tradeCount24h ??
  (market.buyCount24h !== null && market.sellCount24h !== null ? market.buyCount24h + market.sellCount24h : null)

export const lowOrganicVolume: Rule = ({ evidence }) => {
  const trades = tradeCountOf(evidence.market)
  const traders = evidence.market.uniqueTraders24h
  if (trades === null || traders === null || trades < TRADES_PER_TRADER_MIN_TRADES) return null
  const perTrader = traders === 0 ? Infinity : trades / traders
  if (perTrader < TRADES_PER_TRADER) return null
  return finding({
    rule: "low_organic_volume",
    facet: "market",
    points: LOW_ORGANIC_VOLUME_POINTS,
    reason: `${trades} trades by ${traders} unique traders in 24 h (>= ${TRADES_PER_TRADER} per trader)`,
    risk: "Few wallets make most of the trades: volume is not organic",
    flag: "low_organic_volume"
  })
}

const largestPriceMove = (market: ScanEvidence["market"]): number | null => {
  const moves = [market.priceChange5m, market.priceChange1h, market.priceChange6h, market.priceChange24h]
    .filter((change): change is number => change !== null)
    .map(Math.abs)
  return moves.length === 0 ? null : Math.max(...moves)
}

export const extremeVolatility: Rule = ({ evidence }) => {
  const move = largestPriceMove(evidence.market)
  const tier = move === null ? undefined : tierAtLeast(move, VOLATILITY_PCT_TIERS)
  if (move === null || tier === undefined) return null
  return finding({
    rule: "extreme_volatility",
    facet: "market",
    points: tier.points,
    reason: `largest price change ${formatPct(move)} >= ${tier.threshold}%`,
    risk: `Price moved ${formatPct(move)} within a day`,
    flag: "extreme_volatility"
  })
}

export const sellPressure: Rule = ({ evidence }) => {
  const { buyCount24h: buys, sellCount24h: sells } = evidence.market
  if (buys === null || sells === null || buys + sells < SELL_PRESSURE_MIN_TRADES) return null
  const share = sells / (buys + sells)
  if (share < SELL_PRESSURE_SHARE) return null
  return finding({
    rule: "sell_pressure",
    facet: "market",
    points: SELL_PRESSURE_POINTS,
    reason: `${sells} of ${buys + sells} trades in 24 h were sells (>= ${SELL_PRESSURE_SHARE * 100}%)`,
    risk: `Heavy sell pressure: ${Math.round(share * 100)}% of trades were sells`,
    flag: "sell_pressure"
  })
}

// 2.1: an unobserved market cap is no better than the best observed one. With liquidity L, a cap above
// L × 100 / LIQUIDITY_TO_MCAP_PCT is thin for its liquidity, so the best cap is that bound: under the micro
// tiers, it costs what the bound would.
const bestCapFor = (liquidityUsd: number | null): number | null =>
  liquidityUsd === null || liquidityUsd === 0 ? null : (liquidityUsd * 100) / LIQUIDITY_TO_MCAP_PCT

export const microMarketCap: Rule = ({ evidence, depthUsd: liquidityUsd }) => {
  const cap = evidence.market.marketCap
  const bound = cap === null ? bestCapFor(liquidityUsd) : null
  const value = cap ?? bound
  const tier = value === null ? undefined : tierBelow(value, MARKET_CAP_USD_TIERS)
  if (value === null || tier === undefined) return null
  return finding({
    rule: "micro_market_cap",
    facet: "market",
    points: tier.points,
    reason:
      cap === null
        ? `market.marketCap not observed; with liquidity ${formatUsd(liquidityUsd ?? 0)} any cap above ${formatUsd(value)} is thin for it, and ${formatUsd(value)} < ${formatUsd(tier.threshold)}`
        : `market.marketCap ${formatUsd(cap)} < ${formatUsd(tier.threshold)}`,
    risk:
      cap === null
        ? `Tiny market (${formatUsd(liquidityUsd ?? 0)} liquidity, market cap not observed)`
        : `Tiny market cap (${formatUsd(cap)})`,
    flag: "micro_market_cap"
  })
}
