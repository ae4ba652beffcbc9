import type { Address } from "@solana/kit"
import { notObserved, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { poolFiguresOf, type QuotePrice, sidesOf } from "../PoolFigures.ts"
import {
  canonicalPoolsOf,
  decodePool,
  discover,
  discoveryCalls,
  poolProgramOf,
  QUOTE_MINTS,
  USDC,
  WSOL
} from "../PoolScan.ts"
import type { PoolState } from "../Pools/Venue.ts"
import { type AccountInfos, balanceOf, readAccounts, supplyOf } from "./Accounts.ts"
import { ours, reasonOf, type ScanContext, type ScanSettings } from "./Context.ts"

// Stage "pools": where the mint trades and what each pool holds. Round 1 reads the canonical pool
// addresses (PDAs of the mint and each quote mint) and the reference SOL–USDC pool; round 2 discovers
// the pools of programs without canonical addresses (getProgramAccounts); round 3 reads each pool's
// vaults, LP mint and related accounts (CPMM AmmConfig, PumpSwap GlobalConfig and FeeConfig, ...) and the
// reference pool's vaults. The LP holders follow in stage "lp" (Lp.ts).

const quoteMints = [...QUOTE_MINTS.keys()] as Array<Address>

type SolUsd = NonNullable<ScanEvidenceV2["liquidity"]["solUsd"]>

/** Round 1: the canonical pool addresses of the mint against every quote mint. */
export const canonicalAccountsOf = (mint: Address): Promise<ReadonlyArray<Address>> =>
  canonicalPoolsOf(mint, quoteMints)

export interface Found {
  /** The mint's pools found so far, by address. */
  readonly pools: Map<string, PoolState>
  readonly reference: PoolState | undefined
  readonly referenceFound: boolean
}

/** Round 1's answer: the canonical pools that exist and trade the mint, and the reference pool. */
export const foundOf = (
  mint: Address,
  canonical: ReadonlyArray<Address>,
  infos: AccountInfos,
  settings: ScanSettings
): Found => {
  const pools = new Map<string, PoolState>()
  for (const at of canonical) {
    const info = infos.get(at)
    const state = info === null || info === undefined ? undefined : decodePool(at, info.owner, info.data)
    if (state !== undefined && sidesOf(state, mint) !== undefined) pools.set(at, state)
  }
  const referenceInfo = infos.get(settings.referencePool) ?? null
  const reference =
    referenceInfo === null ? undefined : decodePool(settings.referencePool, referenceInfo.owner, referenceInfo.data)
  return { pools, reference, referenceFound: referenceInfo !== null }
}

/** Round 2: getProgramAccounts for each program and mint offset without canonical addresses. */
export const readDiscovery = ({ rpc, mint, slot }: ScanContext) => {
  const calls = discoveryCalls()
  return Promise.allSettled(calls.map((call) => discover(rpc, call, mint, slot))).then((results) => ({
    calls,
    results
  }))
}

/**
 * Adds the discovered pools; gives the pools round 3 reads (SCANNER_MAX_POOLS at most) and why discovery
 * is incomplete (a failed call, or pools beyond the limit).
 */
export const discoveredOf = (
  { mint, settings, gaps }: ScanContext,
  found: Found,
  discovery: Awaited<ReturnType<typeof readDiscovery>>
): {
  readonly poolStates: ReadonlyArray<PoolState>
  readonly unread: ReadonlyArray<PoolState>
  readonly discoveryMissing: ReadonlyArray<string>
} => {
  const discoveryMissing: Array<string> = []
  discovery.results.forEach((result, i) => {
    const call = discovery.calls[i]!
    if (result.status === "rejected") {
      discoveryMissing.push(reasonOf(`${call.program.venue} pools (mint at offset ${call.offset})`, result.reason))
      return
    }
    for (const discovered of result.value) {
      const state = decodePool(discovered.address, discovered.owner, discovered.data)
      if (state !== undefined && sidesOf(state, mint) !== undefined) found.pools.set(discovered.address, state)
    }
  })
  gaps.note(...discoveryMissing)
  const all = [...found.pools.values()]
  if (all.length > settings.maxPools)
    discoveryMissing.push(
      `${all.length - settings.maxPools} of ${all.length} pools not read (SCANNER_MAX_POOLS ${settings.maxPools})`
    )
  return { poolStates: all.slice(0, settings.maxPools), unread: all.slice(settings.maxPools), discoveryMissing }
}

/** Round 3: the pools' vaults, LP mints and related accounts, and the reference pool's. */
export const readPoolAccounts = (
  { rpc, slot }: ScanContext,
  poolStates: ReadonlyArray<PoolState>,
  reference: PoolState | undefined
) => {
  const addresses = [
    ...new Set(
      [
        ...poolStates.flatMap((state) => [state.vaultA, state.vaultB, state.lpMint, ...state.related]),
        ...(reference === undefined ? [] : [reference.vaultA, reference.vaultB, ...reference.related])
      ].filter((at): at is Address => at !== null)
    )
  ]
  return addresses.length === 0
    ? Promise.resolve({ slot, infos: new Map() as AccountInfos })
    : (readAccounts(rpc, addresses, slot) as Promise<{ slot: bigint; infos: AccountInfos }>)
}

/** One pool as round 3 read it: its state completed from related accounts, its balances and LP supply. */
export interface PoolBalances {
  readonly state: PoolState
  readonly balanceA: bigint | null
  readonly balanceB: bigint | null
  readonly missing: string | null
  readonly lpSupply: bigint | null
}

export interface PoolsRead {
  readonly infos: AccountInfos
  readonly slot: number
  /** Why round 3 failed, when it did. */
  readonly missing: string | null
  readonly pools: ReadonlyArray<PoolBalances>
  readonly solUsd: SolUsd
  readonly quotePrices: ReadonlyMap<string, QuotePrice>
  readonly quoteMissing: string
}

export const poolsReadOf = (
  ctx: ScanContext,
  found: Found,
  poolStates: ReadonlyArray<PoolState>,
  poolRead: PromiseSettledResult<{ readonly slot: bigint; readonly infos: AccountInfos }>
): PoolsRead => {
  const infos: AccountInfos = poolRead.status === "fulfilled" ? poolRead.value.infos : new Map()
  const slot = Number(poolRead.status === "fulfilled" ? poolRead.value.slot : ctx.slot)
  const missing = poolRead.status === "rejected" ? reasonOf("pool vaults", poolRead.reason) : null
  if (missing !== null) ctx.gaps.note(missing)
  const solUsd = solUsdOf(ctx.settings, found, infos, slot, missing)
  const quotePrices = new Map<string, QuotePrice>()
  for (const [quote, { decimals: quoteDecimals, usdPegged }] of QUOTE_MINTS) {
    if (usdPegged) quotePrices.set(quote, { usd: 1, decimals: quoteDecimals })
    else if (quote === WSOL && solUsd.status === "observed")
      quotePrices.set(quote, { usd: solUsd.value.value, decimals: quoteDecimals })
  }
  const quoteMissing =
    solUsd.status === "observed" ? "only SOL, USDC and USDT are priced" : `SOL/USD not observed: ${solUsd.reason}`
  const pools = poolStates.map((raw): PoolBalances => {
    const state = completed(raw, infos)
    const { a, b } = reservesOf(state, infos)
    return {
      state,
      balanceA: a,
      balanceB: b,
      missing:
        missing ?? (a === null || b === null ? "a vault did not read as a token account of the pool's mint" : null),
      lpSupply: state.lpMint === null ? null : (supplyOf(infos.get(state.lpMint)) ?? null)
    }
  })
  return { infos, slot, missing, pools, solUsd, quotePrices, quoteMissing }
}

const completed = (state: PoolState, infos: AccountInfos): PoolState => {
  const program = poolProgramOf(state)
  return program?.complete === undefined
    ? state
    : program.complete(
        state,
        state.related.map((at) => infos.get(at)?.data ?? null)
      )
}

const reservesOf = (state: PoolState, infos: AccountInfos): { a: bigint | null; b: bigint | null } =>
  state.storedReserves !== null
    ? state.storedReserves
    : {
        a: state.vaultA === null ? null : (balanceOf(infos.get(state.vaultA), state.mintA) ?? null),
        b: state.vaultB === null ? null : (balanceOf(infos.get(state.vaultB), state.mintB) ?? null)
      }

/** SOL/USD from the reference pool, read in this scan. */
const solUsdOf = (
  settings: ScanSettings,
  found: Found,
  infos: AccountInfos,
  slot: number,
  missing: string | null
): SolUsd => {
  const { reference } = found
  if (reference === undefined)
    return notObserved(
      !found.referenceFound
        ? `reference pool ${settings.referencePool} not found`
        : `reference pool ${settings.referencePool} does not decode as a pool`
    )
  const sides = sidesOf(reference, WSOL)
  if (sides === undefined || sides.quote !== USDC)
    return notObserved(`reference pool ${settings.referencePool} does not pair SOL with USDC`)
  if (missing !== null) return notObserved(missing)
  const state = completed(reference, infos)
  const { a, b } = reservesOf(state, infos)
  const sol = sides.mintIsA ? a : b
  const usdc = sides.mintIsA ? b : a
  const raw =
    state.priceBPerA !== null && state.priceBPerA > 0
      ? sides.mintIsA
        ? state.priceBPerA
        : 1 / state.priceBPerA
      : sol !== null && usdc !== null && sol > 0n
        ? Number(usdc) / Number(sol)
        : null
  return raw === null
    ? notObserved("reference pool reserves not read")
    : observed({
        value: Math.round(raw * 10 ** (9 - 6) * 1e6) / 1e6,
        pool: ours(settings.referencePool),
        venue: state.venue,
        slot
      })
}

/** A pool's USD liquidity before its LP holders are read: what ranks pools for the LP reads and the swap. */
export const depthOf =
  (ctx: ScanContext, decimals: number, read: PoolsRead) =>
  (pool: PoolBalances): number =>
    poolFiguresOf(
      { ...pool, slot: read.slot, lpHolders: null, lpMissing: null },
      ctx.mint,
      decimals,
      read.quotePrices,
      read.quoteMissing
    ).liquidityUsd ?? 0
