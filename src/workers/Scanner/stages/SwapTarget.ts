import type { Address } from "@solana/kit"
import { type Fact, notApplicable, notObserved } from "../../../domain/EvidenceV2.ts"
import { pumpSwapFeesOf } from "../Pools/Pump.ts"
import type { CpmmSwapState, PumpSwapSwapState } from "../Pools/Types.ts"
import type { PoolState } from "../Pools/Venue.ts"
import type { SwapPool } from "../SwapInstructions.ts"
import type { AccountInfos } from "./Accounts.ts"
import { ZERO_ADDRESS } from "./Extensions.ts"
import type { PoolBalances } from "./Pools.ts"

// The pool the sell path swaps into: the deepest (USD liquidity) PumpSwap or Raydium CPMM pool of the
// mint whose swap can be built from what round 3 read; else why none is simulated.

const isSet = (at: Address): boolean => at !== ZERO_ADDRESS
/** PoolState.creator_fee_on (raydium-cp-swap states/pool.rs is_creator_fee_on_input): 0 both tokens, 1 token 0 only, 2 token 1 only. */
const creatorFeeOnInput = (feeOn: number, sellingTokenZero: boolean): boolean =>
  feeOn === 0 || (feeOn === 1 && sellingTokenZero) || (feeOn === 2 && !sellingTokenZero)

/** src/sdk/offlinePumpAmm.ts POOL_ACCOUNT_NEW_SIZE: a smaller pool account is extended before a trade. */
const PUMPSWAP_EXTENDED_SIZE = 300

const cpmmPoolOf = (pool: PoolBalances, swap: CpmmSwapState, mintIsA: boolean, label: string): SwapPool | string => {
  const { state, balanceA, balanceB } = pool
  if (swap.config === null) return `${label}: its AmmConfig ${swap.ammConfig} was not read or does not decode`
  const reserveA = balanceA! - swap.feesOwedA
  const reserveB = balanceB! - swap.feesOwedB
  if (reserveA < 0n || reserveB < 0n) return `${label}: a vault holds less than the fees the pool owes from it`
  const a = { mint: state.mintA, vault: state.vaultA!, tokenProgram: swap.tokenProgramA, reserve: reserveA }
  const b = { mint: state.mintB, vault: state.vaultB!, tokenProgram: swap.tokenProgramB, reserve: reserveB }
  return {
    venue: "raydium-cpmm",
    pool: state.address,
    ammConfig: swap.ammConfig,
    observationState: swap.observationState,
    base: mintIsA ? a : b,
    quote: mintIsA ? b : a,
    tradeFeeRate: swap.config.tradeFeeRate,
    // PoolState::adjust_creator_fee_rate: no creator fee unless the pool enables it.
    creatorFeeRate: swap.enableCreatorFee ? swap.config.creatorFeeRate : 0n,
    creatorFeeOnInput: creatorFeeOnInput(swap.creatorFeeOn, mintIsA)
  }
}

const pumpSwapPoolOf = (
  pool: PoolBalances,
  swap: PumpSwapSwapState,
  mintProgram: Address,
  supply: bigint,
  infos: AccountInfos,
  label: string
): SwapPool | string => {
  const { state } = pool
  const balanceA = pool.balanceA!
  const balanceB = pool.balanceB!
  const global = swap.global
  if (global === null) return `${label}: PumpSwap's GlobalConfig was not read or does not decode`
  if (swap.feeConfig === null) return `${label}: the pump fees program's FeeConfig does not decode`
  const fees = pumpSwapFeesOf(swap, {
    baseMint: state.mintA,
    quoteMint: state.mintB,
    baseReserve: balanceA,
    quoteReserve: balanceB,
    baseSupply: supply
  })
  if (fees === undefined) return `${label}: no fee tier applies (empty FeeConfig tiers or an empty base reserve)`
  // src/sdk/fees.ts getFeeRecipient: a mayhem-mode pool pays the reserved recipients, others the protocol
  // recipients; the program accepts any of the list, so the first set one is used.
  const recipients = swap.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : global.protocolFeeRecipients
  const protocolFeeRecipient = recipients.find(isSet)
  if (protocolFeeRecipient === undefined) return `${label}: GlobalConfig lists no protocol fee recipient`
  const quoteProgram = infos.get(state.vaultB!)?.owner
  if (quoteProgram === undefined) return `${label}: the quote vault was not read`
  return {
    venue: "pumpswap",
    pool: state.address,
    base: { mint: state.mintA, vault: state.vaultA!, tokenProgram: mintProgram, reserve: balanceA },
    quote: { mint: state.mintB, vault: state.vaultB!, tokenProgram: quoteProgram, reserve: balanceB },
    virtualQuoteReserves: swap.virtualQuoteReserves,
    coinCreator: swap.coinCreator,
    isCashbackCoin: swap.isCashbackCoin,
    protocolFeeRecipient,
    buybackFeeRecipient: global.buybackFeeRecipients.find(isSet) ?? global.buybackFeeRecipients[0] ?? ZERO_ADDRESS,
    fees,
    needsExtension: swap.dataLength < PUMPSWAP_EXTENDED_SIZE
  }
}

/** The swap the scan can simulate into one pool, or why it cannot. */
const swapPoolOf = (
  pool: PoolBalances,
  mint: Address,
  mintProgram: Address,
  supply: bigint,
  infos: AccountInfos
): SwapPool | string => {
  const { state, balanceA, balanceB } = pool
  const swap = state.swap
  const label = `${state.venue} ${state.address}`
  if (swap === undefined || state.vaultA === null || state.vaultB === null) return `${label}: its swap is not decoded`
  if (balanceA === null || balanceB === null)
    return `${label}: a vault did not read as a token account of the pool's mint`
  const mintIsA = state.mintA === mint
  if (swap.venue === "raydium-cpmm") return cpmmPoolOf(pool, swap, mintIsA, label)
  if (!mintIsA) return `${label}: the mint is this pool's quote; only sells of a pool's base are simulated`
  return pumpSwapPoolOf(pool, swap, mintProgram, supply, infos, label)
}

export type SwapTarget = { readonly pool: SwapPool } | { readonly skip: Fact<never> }

/** The deepest pool whose swap can be built, or why none is simulated. */
export const swapTargetOf = (
  read: ReadonlyArray<PoolBalances>,
  mint: Address,
  mintProgram: Address,
  supply: bigint,
  infos: AccountInfos,
  depth: (pool: PoolBalances) => number,
  poolMissing: string | null,
  unread: ReadonlyArray<PoolState>
): SwapTarget => {
  const candidates = read.filter((pool) => pool.state.swap !== undefined).sort((x, y) => depth(y) - depth(x))
  if (candidates.length === 0) {
    if (unread.some((state) => state.swap !== undefined))
      return {
        skip: notObserved("the mint's PumpSwap or Raydium CPMM pool is beyond SCANNER_MAX_POOLS and was not read")
      }
    return {
      skip: notApplicable("no PumpSwap or Raydium CPMM pool of the mint, the venues whose swap instruction is decoded")
    }
  }
  if (poolMissing !== null) return { skip: notObserved(poolMissing) }
  const reasons: Array<string> = []
  for (const candidate of candidates) {
    const pool = swapPoolOf(candidate, mint, mintProgram, supply, infos)
    if (typeof pool !== "string") return { pool }
    reasons.push(pool)
  }
  return { skip: notObserved(reasons.join("; ").slice(0, 500)) }
}
