import {
  CAPS,
  LIQUIDITY_DROP_PCT,
  LIQUIDITY_DROP_POINTS,
  LIQUIDITY_TO_MCAP_PCT,
  LIQUIDITY_USD_TIERS,
  LP_BURNED_LOCKED_PCT,
  LP_FEW_WALLETS,
  LP_WIDELY_HELD_PCT,
  THIN_LIQUIDITY_FOR_CAP_POINTS,
  LP_LOCK_EXPIRING_POINTS,
  LP_LOCK_EXPIRY_WINDOW_HOURS,
  LP_LOCKED_PCT_TIERS,
  LP_UNLOCKED_POINTS,
  NO_MARKET_POINTS,
  POSITIONS_CREATOR_PCT_TIERS,
  POSITIONS_PULLABLE_PCT
} from "../model.ts"
import { formatPct, formatUsd, type Observed, tierAtLeast, tierBelow } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

export const noMarket: Rule = (observed) => {
  const reason = observed.noMarket
  if (reason === null) return null
  return finding({
    rule: "no_market",
    facet: "liquidity",
    points: NO_MARKET_POINTS,
    reason,
    risk: "No market: there is no pool to sell into",
    flag: "no_market",
    cap: CAPS.noMarket
  })
}

// 2.1: a live bonding curve's depth is what its trades are priced on (its virtual + real quote reserve); the
// reason says which figure was weighed, and the risk that it is a curve's depth, not pool liquidity.
const onCurve = ({ depthUsd, liquidityUsd }: Observed): boolean =>
  depthUsd !== null && liquidityUsd !== null && depthUsd > liquidityUsd

export const lowLiquidity: Rule = (observed) => {
  const usd = observed.depthUsd
  const tier = usd === null ? undefined : tierBelow(usd, LIQUIDITY_USD_TIERS)
  // A live curve's depth not read: its real reserve is only a lower bound, so thin evidence speaks instead.
  if (usd === null || tier === undefined || observed.noMarket !== null || observed.curveDepthMissing) return null
  const curve = onCurve(observed)
  return finding({
    rule: "low_liquidity",
    facet: "liquidity",
    points: tier.points,
    reason: curve
      ? `bonding curve depth ${formatUsd(usd)} (virtual + real quote reserve; real liquidity ${formatUsd(observed.liquidityUsd ?? 0)}) < ${formatUsd(tier.threshold)}`
      : `liquidity ${formatUsd(usd)} < ${formatUsd(tier.threshold)}`,
    risk: curve
      ? `Low liquidity (a bonding curve ${formatUsd(usd)} deep): a sell will move the price sharply`
      : `Low liquidity (${formatUsd(usd)}): a sell will move the price sharply`,
    flag: "low_liquidity"
  })
}

// An expired lock protects no more than no lock, so it counts as unlocked; burned LP counts as locked for good.
const lpUnlockedReason = ({ evidence, lpLockHoursLeft }: Observed): string | null => {
  if ((evidence.liquidity.lpBurnedPct ?? 0) >= LP_BURNED_LOCKED_PCT) return null
  if (evidence.liquidity.lpLocked === false) return "liquidity.lpLocked is false"
  if (lpLockHoursLeft !== null && lpLockHoursLeft <= 0) {
    return `LP lock expired ${Math.floor(-lpLockHoursLeft)} h before the scan`
  }
  return null
}

// 2.1: who can pull it. Unless the LP is observed to be widely held, a few wallets (an unknown party when the
// LP holders were not read) can withdraw the pool at will: a standing power, capped like a mint authority.
// An issuer-verified asset waives it, as it waives the authorities.
const pullableBy = ({ evidence }: Observed): string | null => {
  const top = evidence.liquidity.lpTopWalletsPct ?? null
  if (evidence.verified || (top !== null && top < LP_WIDELY_HELD_PCT)) return null
  return top === null
    ? "LP holders not observed"
    : `the ${LP_FEW_WALLETS} largest LP wallets hold ${formatPct(top)} (>= ${LP_WIDELY_HELD_PCT}%)`
}

export const lpUnlocked: Rule = (observed) => {
  const reason = lpUnlockedReason(observed)
  if (reason === null) return null
  const pullable = pullableBy(observed)
  return finding({
    rule: "lp_unlocked",
    facet: "liquidity",
    points: LP_UNLOCKED_POINTS,
    reason: pullable === null ? reason : `${reason}; ${pullable}`,
    risk:
      pullable === null
        ? "LP tokens are not locked: liquidity can be pulled at any time"
        : "LP tokens are not locked and a few wallets hold them: liquidity can be pulled at any time",
    flag: "lp_unlocked",
    cap: pullable === null ? null : CAPS.pullableLiquidity
  })
}

// 2.1: concentrated-liquidity positions (CLMM, Whirlpool, DLMM) have no LP mint: whoever owns a position can
// withdraw it. Unlocked positions of the deployer or its insider cluster holding half or more of the token's
// concentrated liquidity are the same standing power as unlocked LP in a few wallets: the same points and
// Pullable Liquidity cap (waived for an issuer-verified asset). Its flag is lp_unlocked: for a caller the same fact.
export const positionsUnlocked: Rule = ({ evidence }) => {
  const pct = evidence.liquidity.positionsCreatorPct ?? null
  const tier = pct === null ? undefined : tierAtLeast(pct, POSITIONS_CREATOR_PCT_TIERS)
  if (pct === null || tier === undefined) return null
  const pullable = tier.threshold >= POSITIONS_PULLABLE_PCT && !evidence.verified
  return finding({
    rule: "positions_unlocked",
    facet: "liquidity",
    points: tier.points,
    reason: `liquidity.positionsCreatorPct ${formatPct(pct)} >= ${tier.threshold}%`,
    risk: `The deployer and its insiders own ${formatPct(pct)} of the concentrated liquidity in unlocked positions: they can withdraw it at any time`,
    flag: "lp_unlocked",
    cap: pullable ? CAPS.pullableLiquidity : null
  })
}

export const lpPartiallyLocked: Rule = (observed) => {
  const pct = observed.evidence.liquidity.lpLockPercentage
  const tier = pct === null ? undefined : tierBelow(pct, LP_LOCKED_PCT_TIERS)
  if (pct === null || tier === undefined || lpUnlockedReason(observed) !== null) return null
  return finding({
    rule: "lp_partially_locked",
    facet: "liquidity",
    points: tier.points,
    reason: `liquidity.lpLockPercentage ${formatPct(pct)} < ${tier.threshold}%`,
    risk: `Only ${formatPct(pct)} of LP tokens are locked`,
    flag: "lp_partially_locked"
  })
}

export const lpLockExpiring: Rule = (observed) => {
  const hoursLeft = observed.lpLockHoursLeft
  if (hoursLeft === null || hoursLeft > LP_LOCK_EXPIRY_WINDOW_HOURS || lpUnlockedReason(observed) !== null) return null
  return finding({
    rule: "lp_lock_expiring",
    facet: "liquidity",
    points: LP_LOCK_EXPIRING_POINTS,
    reason: `LP lock expires ${Math.ceil(hoursLeft)} h after the scan (window ${LP_LOCK_EXPIRY_WINDOW_HOURS} h)`,
    risk: "LP lock expires within 7 days",
    flag: "lp_lock_expiring"
  })
}

// Liquidity against market cap: a market cap far above what can be sold into.
// Silent when no_market fired, as low_liquidity is: no pool (even with a stale liquidity figure beside it) is
// no_market's finding, so emptying the pool cannot drop a finding and raise the score.
// 2.1: with a live bonding curve, its depth (what a sell is priced on) is the liquidity weighed.
export const thinLiquidityForCap: Rule = (observed) => {
  const { evidence, depthUsd: liquidityUsd } = observed
  const cap = evidence.market.marketCap
  if (liquidityUsd === null || cap === null || cap <= 0 || observed.noMarket !== null) return null
  const ratioPct = (liquidityUsd / cap) * 100
  if (ratioPct >= LIQUIDITY_TO_MCAP_PCT) return null
  return finding({
    rule: "thin_liquidity_for_cap",
    facet: "liquidity",
    points: THIN_LIQUIDITY_FOR_CAP_POINTS,
    reason: `liquidity ${formatUsd(liquidityUsd)} is ${formatPct(ratioPct)} of market cap ${formatUsd(cap)} (< ${LIQUIDITY_TO_MCAP_PCT}%)`,
    risk: `Liquidity is only ${formatPct(ratioPct)} of the market cap: the price cannot be sold into`,
    flag: "thin_liquidity_for_cap"
  })
}

// The trend across the scan history: liquidity now against the highest of the previous 24 hours.
export const liquidityDrop: Rule = ({ evidence, liquidityUsd }) => {
  const peak = evidence.liquidity.peak24hUsd ?? null
  if (peak === null || liquidityUsd === null || peak <= 0) return null
  const dropPct = ((peak - liquidityUsd) / peak) * 100
  if (dropPct < LIQUIDITY_DROP_PCT) return null
  return finding({
    rule: "liquidity_drop",
    facet: "liquidity",
    points: LIQUIDITY_DROP_POINTS,
    reason: `liquidity ${formatUsd(liquidityUsd)} is ${formatPct(dropPct)} below the 24 h high of ${formatUsd(peak)} (>= ${LIQUIDITY_DROP_PCT}%)`,
    risk: `Liquidity fell ${formatPct(dropPct)} within 24 hours (${formatUsd(peak)} to ${formatUsd(liquidityUsd)}): a pull may be in progress`,
    flag: "liquidity_drop",
    cap: CAPS.liquidityPull
  })
}
