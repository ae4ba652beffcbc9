import { epochMillisOf, type Holder, type ScanEvidence } from "../../domain/ScanEvidence.ts"
import { evidenceCompletenessOf } from "./completeness.ts"
import { impersonatedBy } from "./impersonation.ts"
import {
  CONCENTRATION_EXCLUDED_KINDS,
  LIQUIDITY_USD_TIERS,
  type Tier,
  TOKEN_LOCK_RELEASE_WINDOW_HOURS
} from "./model.ts"

/** A buy or sell's total cost in percent: the transfer fee plus the trading tax (null parts not observed). */
export interface EffectiveTax {
  readonly totalPct: number | null
  readonly transferFeePct: number | null
  readonly tradingPct: number | null
}

// Values the rules derive from the evidence; null when the evidence needed for them was not observed.
export interface Observed {
  readonly evidence: ScanEvidence
  readonly liquidityUsd: number | null
  /**
   * 2.1: the depth a sell meets, in USD: liquidity, or with a live bonding curve the larger of liquidity and the
   * curve's depth (its virtual + real quote reserve, which prices its trades); null when liquidity is not observed.
   */
  readonly depthUsd: number | null
  /** 2.1: why there is no market to sell into (no pool, only completed curves, $0 and no live curve), or null. */
  readonly noMarket: string | null
  /**
   * 2.1: a live curve whose depth was not read (Meteora DBC) and whose real reserve, a lower bound of its depth,
   * is under the low-liquidity tiers: low_liquidity cannot be weighed, and the token is thin evidence.
   */
  readonly curveDepthMissing: boolean
  readonly top10Pct: number | null
  readonly largestHolderPct: number | null
  readonly insiderPct: number | null
  /** 2.1: bundled + sniped launch supply (a part not observed counts 0); null when neither was observed. */
  readonly launchCapturePct: number | null
  readonly tokenAgeHours: number | null
  readonly lpLockHoursLeft: number | null
  readonly buy: EffectiveTax
  readonly sell: EffectiveTax
  /** Evidence completeness in percent (0 to 100): the assessment's `evidenceCompleteness` × 100. */
  readonly completenessPct: number
  /** A sell simulation ran, or its static equivalent holds (docs/scoring-model.md, thin evidence). */
  readonly sellPathObserved: boolean
  /**
   * 2.1: the facts that decide whether the token can be sold into a market and were not observed (pools and
   * liquidity, the LP lock, the holders), each described. Missing, they keep the token at `warn` at best.
   */
  readonly unobservedMarket: ReadonlyArray<string>
  /** Supply held by accounts that are not holders (pools, lockers, burn, exchanges), by kind. */
  readonly excludedPct: Readonly<Record<(typeof CONCENTRATION_EXCLUDED_KINDS)[number], number>> | null
  /** The issuer-verified token this one's name or symbol imitates, if any. */
  readonly impersonates: { readonly mint: string; readonly symbol: string; readonly issuer: string } | null
}

const effectiveTax = (feeBps: number | null, trading: number | null): EffectiveTax => {
  const transferFeePct = feeBps === null ? null : feeBps / 100
  const totalPct =
    transferFeePct === null && trading === null
      ? null
      : Math.min(100, Math.round(((transferFeePct ?? 0) + (trading ?? 0)) * 100) / 100)
  return { totalPct, transferFeePct, tradingPct: trading }
}

// Without a simulation, a token can be shown sellable from its mint alone: no freeze authority, and on
// Token-2022 none of the extensions that can stop a transfer (all observed).
const staticallySellable = (e: ScanEvidence): boolean => {
  if (e.freezeAuthority !== null || e.decimals === null) return false
  if (e.tokenProgram === "spl-token") return true
  return (
    e.extensions.nonTransferable === false &&
    e.extensions.defaultAccountStateFrozen === false &&
    e.extensions.transferHook === null &&
    (e.extensions.pausableAuthority ?? null) === null &&
    e.extensions.paused !== true
  )
}

// No market (2.1): no pool; or only bonding curves, all completed, whose migration pool was not seen (a completed
// curve trades nothing; when pool discovery did not finish, thin evidence says so beside it); or liquidity of $0 without a live curve. A live curve quotes buys from its virtual
// reserves, so it is a market however little real quote it holds (a launch before its first buy holds none).
const noMarketOf = (e: ScanEvidence, liquidityUsd: number | null): string | null =>
  e.liquidity.poolCount === 0
    ? "liquidity.poolCount is 0"
    : e.liquidity.curve === "complete" && e.liquidity.bondingCurveOnly === true
      ? "every pool is a completed bonding curve and no migration pool was seen"
      : liquidityUsd === 0 && e.liquidity.curve !== "live"
        ? "liquidity is $0"
        : null

// A live curve's depth (its virtual + real quote reserve) includes its real reserve: without it read, liquidity is
// a lower bound of the depth.
const depthOf = (e: ScanEvidence, liquidityUsd: number | null): number | null => {
  const curveDepth = e.liquidity.curve === "live" ? (e.liquidity.curveDepthUsd ?? null) : null
  return liquidityUsd === null || curveDepth === null ? liquidityUsd : Math.max(liquidityUsd, curveDepth)
}

const LOW_LIQUIDITY_TOP = Math.max(...LIQUIDITY_USD_TIERS.map((tier) => tier.threshold))
const curveDepthMissingOf = (e: ScanEvidence, liquidityUsd: number | null): boolean =>
  e.liquidity.curve === "live" &&
  (e.liquidity.curveDepthUsd ?? null) === null &&
  liquidityUsd !== null &&
  liquidityUsd < LOW_LIQUIDITY_TOP

// A market is observed when liquidity was valued or no pool was found (no_market); its LP lock when any lock,
// burn or LP fact was read, the owners of the concentrated-liquidity positions were read (2.1), or there is nothing to lock (no market, a bonding curve only); the holders when
// the top accounts were read. An issuer-verified asset's liquidity is not one team's pool: its LP lock is moot.
const unobservedMarketOf = (e: ScanEvidence, liquidityUsd: number | null): ReadonlyArray<string> => {
  // Observed as no market: no pool, or $0 without a live curve (completed curves alone do not tell whether
  // discovery saw every pool).
  const noMarket = e.liquidity.poolCount === 0 || (liquidityUsd === 0 && e.liquidity.curve !== "live")
  const lpRead =
    e.liquidity.lpLocked !== null ||
    e.liquidity.lpLockPercentage !== null ||
    (e.liquidity.lpBurnedPct ?? null) !== null ||
    (e.liquidity.positionsCreatorPct ?? null) !== null ||
    e.liquidity.bondingCurveOnly === true
  return [
    !noMarket && liquidityUsd === null ? "pools and liquidity not observed" : null,
    curveDepthMissingOf(e, liquidityUsd) ? "bonding curve depth not observed" : null,
    !noMarket && !lpRead && !e.verified ? "LP lock not observed" : null,
    e.holders.top.length === 0 ? "holders not observed" : null
  ].filter((reason): reason is string => reason !== null)
}

const HOUR_MS = 60 * 60 * 1000

const hoursBetween = (from: string, to: string): number => (epochMillisOf(to) - epochMillisOf(from)) / HOUR_MS

// 2.1: a token lock that releases within the window counts as held (a vesting lock is not a permanent one).
const releasesSoon = (holder: Holder, scannedAt: string): boolean =>
  holder.kind === "locker" &&
  holder.unlockAt !== undefined &&
  holder.unlockAt !== null &&
  hoursBetween(scannedAt, holder.unlockAt) <= TOKEN_LOCK_RELEASE_WINDOW_HOURS

const countsTowardConcentration = (holder: Holder, scannedAt: string): boolean =>
  !(CONCENTRATION_EXCLUDED_KINDS as ReadonlyArray<string>).includes(holder.kind) || releasesSoon(holder, scannedAt)

const sumPct = (holders: ReadonlyArray<Holder>): number =>
  Math.min(
    100,
    holders.reduce((total, holder) => total + holder.pct, 0)
  )

const top10PctOf = (holders: ReadonlyArray<Holder>): number => {
  const largestFirst = [...holders].sort((a, b) => b.pct - a.pct)
  return sumPct(largestFirst.slice(0, 10))
}

const launchCapturePctOf = (holders: ScanEvidence["holders"]): number | null => {
  const bundled = holders.bundledLaunchPct
  const sniped = holders.sniperPct ?? null
  return bundled === null && sniped === null ? null : Math.min(100, (bundled ?? 0) + (sniped ?? 0))
}

export const observe = (evidence: ScanEvidence): Observed => {
  const top = evidence.holders.top
  const concentrated = top.filter((holder) => countsTowardConcentration(holder, evidence.scannedAt))
  const holdersObserved = top.length > 0
  const lockExpiresAt = evidence.liquidity.lpLockExpiresAt
  const liquidityUsd = evidence.liquidity.liquidityUsd ?? evidence.market.liquidityUsd
  const excluded = (kind: (typeof CONCENTRATION_EXCLUDED_KINDS)[number]) =>
    Math.round(
      sumPct(top.filter((holder) => holder.kind === kind && !releasesSoon(holder, evidence.scannedAt))) * 100
    ) / 100
  return {
    evidence,
    buy: effectiveTax(evidence.extensions.transferFeeBps, evidence.trading.buyTax),
    sell: effectiveTax(evidence.extensions.transferFeeBps, evidence.trading.sellTax),
    completenessPct: Math.round(evidenceCompletenessOf(evidence) * 100),
    sellPathObserved: evidence.trading.isHoneypot !== null || staticallySellable(evidence),
    unobservedMarket: unobservedMarketOf(evidence, liquidityUsd),
    excludedPct: holdersObserved
      ? { pool: excluded("pool"), locker: excluded("locker"), burn: excluded("burn"), exchange: excluded("exchange") }
      : null,
    impersonates: evidence.verified ? null : impersonatedBy(evidence.mint, evidence.name, evidence.symbol),
    liquidityUsd,
    depthUsd: depthOf(evidence, liquidityUsd),
    noMarket: noMarketOf(evidence, liquidityUsd),
    curveDepthMissing: curveDepthMissingOf(evidence, liquidityUsd),
    top10Pct: holdersObserved ? top10PctOf(concentrated) : null,
    largestHolderPct: holdersObserved ? Math.max(0, ...concentrated.map((holder) => holder.pct)) : null,
    insiderPct: holdersObserved ? sumPct(top.filter((holder) => holder.kind === "insider")) : null,
    launchCapturePct: launchCapturePctOf(evidence.holders),
    tokenAgeHours: evidence.createdAt === null ? null : hoursBetween(evidence.createdAt, evidence.scannedAt),
    lpLockHoursLeft: lockExpiresAt === null ? null : hoursBetween(evidence.scannedAt, lockExpiresAt)
  }
}

export const tierAtLeast = (value: number, tiers: ReadonlyArray<Tier>): Tier | undefined =>
  tiers.find((tier) => value >= tier.threshold)

export const tierBelow = (value: number, tiers: ReadonlyArray<Tier>): Tier | undefined =>
  tiers.find((tier) => value < tier.threshold)

// Formatting by hand keeps reasons identical whatever locale data the runtime carries.
const withThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")

export const formatUsd = (value: number): string =>
  value < 100 ? `$${Number(value.toFixed(2))}` : `$${withThousands(Math.round(value).toString())}`

export const formatPct = (value: number): string => `${Number(value.toFixed(2))}%`
