import type { Address } from "@solana/kit"
import type { Address as EvidenceAddress } from "../../domain/Address.ts"
import {
  type Fact,
  type LpHolder,
  notApplicable,
  notObserved,
  observed,
  type PoolLp,
  type ScanEvidenceV2
} from "../../domain/EvidenceV2.ts"
import type { PoolState } from "./Pools/Venue.ts"

// Pure arithmetic from what a scan read about its pools to the evidence's figures: reserves, price and
// liquidity in USD per pool, LP burned / locked / unlocked, and the mint's price and market cap from its
// deepest pool. Nothing here reads the chain; every input says where it came from and what it lacks.

/** A quote asset with a USD price in this scan: SOL at the reference pool's price, stablecoins at 1. */
export interface QuotePrice {
  readonly usd: number
  readonly decimals: number
}

interface LpHolderRead {
  readonly owner: Address
  readonly tokenAccount: Address
  readonly amount: bigint
  readonly kind: LpHolder["kind"]
  readonly label: string | null
  readonly unlockAt: Date | null
  readonly permanent: boolean | null
}

/** What the scan read about one pool, at one slot. A null balance or supply was not read (reason given). */
export interface PoolRead {
  readonly state: PoolState
  readonly slot: number
  readonly balanceA: bigint | null
  readonly balanceB: bigint | null
  readonly missing: string | null
  /** The LP mint's current supply, when the pool has one and it was read. */
  readonly lpSupply: bigint | null
  readonly lpHolders: ReadonlyArray<LpHolderRead> | null
  readonly lpMissing: string | null
}

const ours = (value: Address): EvidenceAddress => value as string as EvidenceAddress

const pctOf = (part: bigint, whole: bigint): number =>
  whole <= 0n ? 0 : Math.min(100, Math.max(0, Number((part * 1_000_000n) / whole) / 10_000))

const round = (value: number, digits: number): number => {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** Which side of the pool is the scanned mint, and the other side. */
export const sidesOf = (
  state: PoolState,
  mint: Address
): { readonly mintIsA: boolean; readonly quote: Address } | undefined =>
  state.mintA === mint
    ? { mintIsA: true, quote: state.mintB }
    : state.mintB === mint
      ? { mintIsA: false, quote: state.mintA }
      : undefined

export interface PoolFigures {
  readonly fact: PoolLp
  /** For the summary: USD liquidity and price when both were valued. */
  readonly liquidityUsd: number | null
  readonly priceUsd: number | null
  /** Secured (burned + locked) and locked shares of this pool's LP, and its earliest unlock. */
  readonly lp: { readonly burnedPct: number; readonly lockedPct: number; readonly unlockAt: Date | null } | null
}

/** A pool that does not trade the mint: its LP status, and why it has no reserves, liquidity or price. */
const untradedOf = (
  base: Pick<PoolFigures["fact"], "pool" | "venue" | "shape" | "slot">,
  lpStatus: ReturnType<typeof lpStatusOf>,
  reason: string
): PoolFigures => ({
  fact: {
    ...base,
    ...lpStatus.fields,
    reserves: notObserved(reason),
    liquidityUsd: notObserved(reason),
    priceUsd: notObserved(reason)
  },
  liquidityUsd: null,
  priceUsd: null,
  lp: lpStatus.summary
})

/** The bonding curve's progress, and the depth its trades are priced on (in USD), when the pool is one. */
const bondingCurveOf = (state: PoolRead["state"], quote: QuotePrice | undefined) =>
  state.curve === null
    ? notApplicable("not a bonding curve")
    : observed({
        complete: state.curve.complete,
        progressPct:
          state.curve.progressPct === null ? null : round(Math.min(100, Math.max(0, state.curve.progressPct)), 2),
        ...(state.curve.quoteDepth === undefined
          ? {}
          : {
              depthUsd:
                quote === undefined
                  ? null
                  : round((Number(state.curve.quoteDepth) / 10 ** quote.decimals) * quote.usd, 2)
            })
      })

/** The evidence of one pool: reserves, price, liquidity, bonding curve and LP status. */
export const poolFiguresOf = (
  read: PoolRead,
  mint: Address,
  mintDecimals: number,
  quotes: ReadonlyMap<string, QuotePrice>,
  quoteMissing: string
): PoolFigures => {
  const { state } = read
  const sides = sidesOf(state, mint)
  const base = { pool: ours(state.address), venue: state.venue, shape: state.shape, slot: read.slot }
  const lpStatus = lpStatusOf(read)
  if (sides === undefined) return untradedOf(base, lpStatus, `pool ${state.address} does not trade ${mint}`)
  const mintReserve = sides.mintIsA ? read.balanceA : read.balanceB
  const quoteReserve = sides.mintIsA ? read.balanceB : read.balanceA
  const reserves: Fact<NonNullable<PoolLp["reserves"]> extends Fact<infer R> ? R : never> =
    mintReserve === null || quoteReserve === null
      ? notObserved(read.missing ?? "pool reserves not read")
      : observed({
          mintAmount: mintReserve.toString(),
          quoteAmount: quoteReserve.toString(),
          source: state.reservesFrom ?? (state.storedReserves !== null ? ("stored" as const) : ("vaults" as const))
        })
  const quote = quotes.get(sides.quote)
  // Raw quote units per raw mint unit: the pool's own price where it defines one, else the reserve ratio.
  const rawPrice =
    state.priceBPerA !== null && state.priceBPerA > 0
      ? sides.mintIsA
        ? state.priceBPerA
        : 1 / state.priceBPerA
      : mintReserve !== null && quoteReserve !== null && mintReserve > 0n
        ? Number(quoteReserve) / Number(mintReserve)
        : null
  const priceUsd =
    quote === undefined || rawPrice === null || !Number.isFinite(rawPrice)
      ? null
      : rawPrice * 10 ** (mintDecimals - quote.decimals) * quote.usd
  // A bonding curve's token side is unsold supply, not liquidity: only the quote side can be sold into.
  const liquidityUsd =
    quote === undefined ||
    quoteReserve === null ||
    (state.shape !== "bonding_curve" && (mintReserve === null || priceUsd === null))
      ? null
      : (Number(quoteReserve) / 10 ** quote.decimals) * quote.usd +
        (state.shape === "bonding_curve" ? 0 : (Number(mintReserve) / 10 ** mintDecimals) * (priceUsd ?? 0))
  const unpriced = quote === undefined ? `quote ${sides.quote} has no USD price in this scan (${quoteMissing})` : null
  return {
    fact: {
      ...base,
      quoteMint: ours(sides.quote),
      reserves,
      liquidityUsd:
        liquidityUsd !== null
          ? observed(round(liquidityUsd, 2))
          : notObserved(unpriced ?? read.missing ?? "reserves not read"),
      priceUsd:
        priceUsd !== null && Number.isFinite(priceUsd)
          ? observed(priceUsd)
          : notObserved(unpriced ?? "no price: reserves not read or empty"),
      bondingCurve: bondingCurveOf(state, quote),
      lpMint: state.lpMint === null ? null : ours(state.lpMint),
      ...lpStatus.fields
    },
    liquidityUsd: liquidityUsd === null ? null : round(liquidityUsd, 2),
    priceUsd: priceUsd !== null && Number.isFinite(priceUsd) ? priceUsd : null,
    lp: lpStatus.summary
  }
}

type LpFields = Pick<PoolLp, "burnedPct" | "lockedPct" | "locker" | "unlockAt" | "unlockedPct" | "lpHolders">

/**
 * LP burned, locked and unlocked, as shares of the LP ever issued: the supply the program tracks where it
 * tracks one (tokens burned by the token program leave it unchanged, so tracked − supply were burned),
 * else the current supply. Burned also counts LP held by the incinerator; locked counts LP whose owner is
 * a known locker, with the lock's unlock time.
 */
const lpStatusOf = (read: PoolRead): { readonly fields: LpFields; readonly summary: PoolFigures["lp"] } => {
  const { state } = read
  const none = (reason: string, status: "not_applicable" | "not_observed"): { fields: LpFields; summary: null } => {
    const fact = status === "not_applicable" ? notApplicable(reason) : notObserved(reason)
    return {
      fields: { burnedPct: fact, lockedPct: fact, locker: null, unlockAt: null, unlockedPct: fact, lpHolders: fact },
      summary: null
    }
  }
  if (state.shape === "bonding_curve") {
    return none(
      state.curve?.complete === true
        ? "bonding curve complete: its liquidity moved to the migration pool"
        : "bonding curve: no LP tokens until migration",
      "not_applicable"
    )
  }
  if (state.lpMint === null)
    return none(`${state.shape === "bins" ? "bin" : "concentrated"}-liquidity positions, no LP mint`, "not_applicable")
  if (read.lpSupply === null || read.lpHolders === null)
    return none(read.lpMissing ?? "LP mint not read", "not_observed")
  const issued =
    state.lpSupplyTracked !== null && state.lpSupplyTracked >= read.lpSupply ? state.lpSupplyTracked : read.lpSupply
  if (issued === 0n) return none("no LP issued", "not_applicable")
  const sum = (holders: ReadonlyArray<LpHolderRead>) => holders.reduce((total, holder) => total + holder.amount, 0n)
  const incinerated = sum(read.lpHolders.filter((holder) => holder.kind === "burn"))
  const lockers = read.lpHolders.filter((holder) => holder.kind === "locker")
  const burnedPct = pctOf(issued - read.lpSupply + incinerated, issued)
  const lockedPct = Math.min(100 - burnedPct, pctOf(sum(lockers), issued))
  // The lock that releases first decides when the locked share can start to leave.
  const expiring = lockers
    .filter((holder) => holder.permanent !== true && holder.unlockAt !== null)
    .sort((a, b) => a.unlockAt!.getTime() - b.unlockAt!.getTime())[0]
  const mainLocker = [...lockers].sort((a, b) => (a.amount === b.amount ? 0 : a.amount > b.amount ? -1 : 1))[0]
  const holders: Array<LpHolder> = read.lpHolders.slice(0, 10).map((holder) => ({
    address: ours(holder.owner),
    tokenAccount: ours(holder.tokenAccount),
    pct: pctOf(holder.amount, issued),
    kind: holder.kind,
    label: holder.label,
    unlockAt: holder.unlockAt?.toISOString() ?? null,
    permanent: holder.permanent
  }))
  return {
    fields: {
      burnedPct: observed(round(burnedPct, 4)),
      lockedPct: observed(round(lockedPct, 4)),
      locker: mainLocker?.label ?? null,
      unlockAt: expiring?.unlockAt?.toISOString() ?? null,
      unlockedPct: observed(round(Math.max(0, 100 - burnedPct - lockedPct), 4)),
      lpHolders: observed(holders)
    },
    summary: { burnedPct, lockedPct, unlockAt: expiring?.unlockAt ?? null }
  }
}

type Liquidity = ScanEvidenceV2["liquidity"]

/** The LP secured (burned + locked), weighted by the pools' liquidity, and the earliest unlock of a lock. */
const lpSecuredOf = (pools: ReadonlyArray<PoolFigures>) => {
  const lpPools = pools.filter((pool) => pool.lp !== null)
  const weightOf = (pool: PoolFigures) => pool.liquidityUsd ?? 0
  const weights = lpPools.reduce((sum, pool) => sum + weightOf(pool), 0)
  const weighted = (pick: (lp: NonNullable<PoolFigures["lp"]>) => number) =>
    weights > 0
      ? lpPools.reduce((sum, pool) => sum + pick(pool.lp!) * weightOf(pool), 0) / weights
      : lpPools.reduce((sum, pool) => sum + pick(pool.lp!), 0) / lpPools.length
  const securedPct =
    lpPools.length === 0
      ? null
      : Math.min(
          100,
          round(
            weighted((lp) => lp.burnedPct + lp.lockedPct),
            2
          )
        )
  const firstUnlock = lpPools
    .flatMap((pool) => (pool.lp!.unlockAt === null || pool.lp!.lockedPct <= 0 ? [] : [pool.lp!.unlockAt]))
    .sort((a, b) => a.getTime() - b.getTime())[0]
  return { securedPct, firstUnlock }
}

/**
 * The summary across pools: total liquidity, pool count, the mint's price from its deepest pool, market
 * cap over the circulating supply, and LP secured across LP pools weighted by their liquidity. When
 * discovery did not finish (a call failed or the budget ran out) the count and the total are not
 * observed: a pool may be missing, so neither is a safe zero.
 */
export const liquidityOf = (
  pools: ReadonlyArray<PoolFigures>,
  discoveryMissing: ReadonlyArray<string>,
  solUsd: NonNullable<Liquidity["solUsd"]>,
  supply: number | null,
  withheldSupply: number | null
): Liquidity => {
  const complete = discoveryMissing.length === 0
  const incomplete = `pool discovery incomplete: ${discoveryMissing.join("; ")}`.slice(0, 500)
  const valued = pools.filter((pool) => pool.liquidityUsd !== null)
  const unvalued = pools.length - valued.length
  const total = valued.reduce((sum, pool) => sum + pool.liquidityUsd!, 0)
  const deepest = [...valued]
    .filter((pool) => pool.priceUsd !== null)
    .sort((a, b) => b.liquidityUsd! - a.liquidityUsd!)[0]
  const priceUsd: Liquidity["priceUsd"] =
    deepest === undefined
      ? notObserved(
          pools.length === 0 ? (complete ? "no pool trades this mint" : incomplete) : "no pool could be valued in USD"
        )
      : observed({
          value: deepest.priceUsd!,
          pool: deepest.fact.pool,
          venue: deepest.fact.venue,
          slot: deepest.fact.slot ?? 0
        })
  const circulating = supply === null ? null : Math.max(0, supply - (withheldSupply ?? 0))
  const { securedPct, firstUnlock } = lpSecuredOf(pools)
  const lpReason =
    pools.length === 0
      ? complete
        ? "no pool trades this mint"
        : incomplete
      : pools.some((pool) => pool.fact.lpHolders?.status === "not_observed")
        ? "an LP mint's holders were not read"
        : "no pool with an LP mint (concentrated liquidity or bonding curve)"
  const noLp = pools.length === 0 ? complete : pools.every((pool) => pool.fact.lpHolders?.status === "not_applicable")
  const lpFact = <A>(value: A | null): Fact<A> =>
    value !== null ? observed(value) : noLp ? notApplicable(lpReason) : notObserved(lpReason)
  return {
    liquidityUsd:
      complete && unvalued === 0
        ? observed(round(total, 2))
        : notObserved(
            !complete
              ? incomplete
              : `${unvalued} of ${pools.length} pools could not be valued in USD; the valued ones hold ${round(total, 2)}`
          ),
    poolCount: complete ? observed(pools.length) : notObserved(incomplete),
    lpLocked: lpFact(securedPct === null ? null : securedPct > 0),
    lpLockedPct: lpFact(securedPct),
    lpLockExpiresAt:
      firstUnlock !== undefined
        ? observed(firstUnlock.toISOString())
        : securedPct !== null
          ? notApplicable("no LP lock with an unlock time (burned, permanent or none)")
          : lpFact<string>(null),
    pools: observed(pools.map((pool) => pool.fact).slice(0, 100)),
    solUsd,
    priceUsd,
    marketCapUsd:
      deepest === undefined || circulating === null
        ? notObserved(deepest === undefined ? "no price" : "supply not observed")
        : observed(round(deepest.priceUsd! * circulating, 2)),
    circulatingSupply: circulating === null ? notObserved("supply not observed") : observed(circulating)
  }
}
