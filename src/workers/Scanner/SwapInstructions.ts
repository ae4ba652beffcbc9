import {
  type AccountMeta,
  AccountRole,
  type Address,
  type Instruction,
  address,
  getU64Encoder,
  getUtf8Encoder
} from "@solana/kit"
import { SYSTEM_PROGRAM, VENUES } from "./Programs.ts"
import { associatedTokenAddressSync, findProgramAddressSync, keyBytes } from "./Pools/Bytes.ts"
import { PUMP_FEE_PROGRAM } from "./Pools/Pump.ts"
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022"

// The swaps the sell path simulates (SellPath.ts simulateSwap), without keys: the pools' sides as the
// scan read them, the output their curve and fee tier give, and the venues' instructions (PumpSwap
// `sell` and `extend_account`, Raydium CPMM `swap_base_input`) built from the IDL and SDK layouts.

/** One side of a pool. */
interface PoolSide {
  readonly mint: Address
  /** The pool's token account of this mint (decoder: vaultA / vaultB). */
  readonly vault: Address
  /** The mint's owner program. */
  readonly tokenProgram: Address
  /** Base units of this side the curve trades against. */
  readonly reserve: bigint
}

/**
 * A PumpSwap pool (@pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json, account `Pool`), selling
 * `base` (the pool's base_mint, the scanned token) for `quote` (quote_mint, usually WSOL).
 */
export interface PumpSwapPool {
  readonly venue: "pumpswap"
  /** The pool account. */
  readonly pool: Address
  /** Pool.base_mint / pool_base_token_account, and the base reserve. */
  readonly base: PoolSide
  /** Pool.quote_mint / pool_quote_token_account, and the quote reserve. */
  readonly quote: PoolSide
  /** Pool.virtual_quote_reserves (0 for most pools); added to the quote reserve by the curve. */
  readonly virtualQuoteReserves: bigint
  /** Pool.coin_creator (the zero address when unset). */
  readonly coinCreator: Address
  /** Pool.is_cashback_coin. */
  readonly isCashbackCoin: boolean
  /**
   * One of GlobalConfig.protocol_fee_recipients (GlobalConfig: PDA ["global_config"] of the program), or
   * for a mayhem-mode pool its reserved_fee_recipient (src/sdk/fees.ts getFeeRecipient).
   */
  readonly protocolFeeRecipient: Address
  /** One of GlobalConfig.buyback_fee_recipients. */
  readonly buybackFeeRecipient: Address
  /** The fee tier in effect (pump-fees FeeConfig tier by market cap, or GlobalConfig's fees), in basis points: Pools/Pump.ts pumpSwapFeesOf. */
  readonly fees: { readonly lpBps: bigint; readonly protocolBps: bigint; readonly creatorBps: bigint }
  /**
   * The pool account is shorter than 300 bytes: the trade is preceded by `extend_account`, as the SDK's
   * withFixPoolInstructions does (src/sdk/offlinePumpAmm.ts, POOL_ACCOUNT_NEW_SIZE).
   */
  readonly needsExtension?: boolean
}

/**
 * A Raydium CPMM pool (@raydium-io/raydium-sdk-v2 0.2.73-alpha src/raydium/cpmm/layout.ts
 * CpmmPoolInfoLayout and CpmmConfigInfoLayout), selling `base` (the scanned mint) for `quote`.
 */
export interface RaydiumCpmmPool {
  readonly venue: "raydium-cpmm"
  /** The pool state account. */
  readonly pool: Address
  /** PoolState.configId (amm_config). */
  readonly ammConfig: Address
  /** PoolState.observationId (observation_key). */
  readonly observationState: Address
  /** The scanned mint's side: mintA/vaultA/mintProgramA or B; reserve = vault amount less protocol, fund and creator fees owed on that side. */
  readonly base: PoolSide
  readonly quote: PoolSide
  /** AmmConfig.tradeFeeRate, AmmConfig.creatorFeeRate (0 unless PoolState.enableCreatorFee), per million. */
  readonly tradeFeeRate: bigint
  readonly creatorFeeRate: bigint
  /**
   * Whether the creator fee is taken from the input: PoolState.feeOn (creator_fee_on) and the swap's
   * direction, as raydium-io/raydium-cp-swap programs/cp-swap/src/states/pool.rs is_creator_fee_on_input
   * decides (both tokens; or token 0 only and selling token 0; or token 1 only and selling token 1).
   */
  readonly creatorFeeOnInput: boolean
}

export type SwapPool = PumpSwapPool | RaydiumCpmmPool

export interface SwapProbe {
  /** The seller: owner of `holderBaseAccount`, the swap's signer (its signature is not verified). */
  readonly holder: Address
  /** The holder's token account of the scanned mint. */
  readonly holderBaseAccount: Address
  /** The holder's associated account of the quote mint before the swap (0 when it does not exist). */
  readonly holderQuoteBalance: bigint
  /** Base units sold: see probeAmount. */
  readonly amount: bigint
  /** A system-owned account with lamports: pays the fee and the rent of the holder's quote account if it is created. */
  readonly feePayer: Address
  /**
   * The Token-2022 transfer fee the mint withholds from `amount` (0 without one). Raydium CPMM swaps what
   * reaches its vault (swap_base_input.rs: actual_amount_in = amount_in - transfer fee), so the expected
   * output leaves it out and the swap's tax does not count the transfer fee twice.
   */
  readonly inputTransferFee?: bigint
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b

/**
 * The quote the holder should receive for `amount`, fees of the tier included, before any tax:
 * - PumpSwap sell (@pump-fun/pump-swap-sdk src/sdk/sell.ts sellBaseInput, src/sdk/util.ts fee):
 *   out = floor((quoteReserve + virtualQuoteReserves) * amount / (baseReserve + amount)),
 *   expected = out - ceil(out * lpBps / 1e4) - ceil(out * protocolBps / 1e4) - ceil(out * creatorBps / 1e4)
 *   (no creator fee when coin_creator is the zero address).
 * - Raydium CPMM swap_base_input (@raydium-io/raydium-sdk-v2 src/raydium/cpmm/curve/calculator.ts
 *   swapBaseInput, curve/fee.ts; raydium-cp-swap swap_base_input.rs for the transfer fee):
 *   a = amount - inputTransferFee, in = a - ceil(a * tradeFeeRate / 1e6)
 *   [- ceil(a * creatorFeeRate / 1e6) when the creator fee is on the input],
 *   out = floor(quoteReserve * in / (baseReserve + in)), expected = out [- ceil(out * creatorFeeRate / 1e6) otherwise].
 */
export const expectedSwapOutput = (pool: SwapPool, amount: bigint, inputTransferFee = 0n): bigint => {
  if (pool.venue === "pumpswap") {
    const quoteReserve = pool.quote.reserve + pool.virtualQuoteReserves
    if (pool.base.reserve + amount === 0n) return 0n
    const out = (quoteReserve * amount) / (pool.base.reserve + amount)
    const fee = (bps: bigint) => ceilDiv(out * bps, 10_000n)
    const creator = pool.coinCreator === ZERO_ADDRESS ? 0n : fee(pool.fees.creatorBps)
    const expected = out - fee(pool.fees.lpBps) - fee(pool.fees.protocolBps) - creator
    return expected > 0n ? expected : 0n
  }
  const arrived = amount - inputTransferFee
  if (arrived <= 0n) return 0n
  const tradeFee = ceilDiv(arrived * pool.tradeFeeRate, 1_000_000n)
  const creatorOnInput = pool.creatorFeeOnInput ? ceilDiv(arrived * pool.creatorFeeRate, 1_000_000n) : 0n
  const input = arrived - tradeFee - creatorOnInput
  if (input <= 0n || pool.base.reserve + input === 0n) return 0n
  const out = (pool.quote.reserve * input) / (pool.base.reserve + input)
  return pool.creatorFeeOnInput ? out : out - ceilDiv(out * pool.creatorFeeRate, 1_000_000n)
}

const ZERO_ADDRESS = address("11111111111111111111111111111111")

const venueOf = (label: string) => {
  const venue = VENUES.find((candidate) => candidate.label === label)
  if (venue === undefined) throw new Error(`unknown venue ${label}`)
  return venue
}

/** `sell`'s discriminator: @pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json, instructions[sell].discriminator. */
const PUMPSWAP_SELL = new Uint8Array([51, 230, 133, 164, 1, 127, 131, 173])
/** `extend_account`'s discriminator: the same IDL, instructions[extend_account].discriminator. */
const PUMPSWAP_EXTEND_ACCOUNT = new Uint8Array([234, 102, 194, 203, 150, 72, 62, 229])
/** `swap_base_input`'s discriminator: @raydium-io/raydium-sdk-v2 0.2.73-alpha src/raydium/cpmm/instruction.ts anchorDataBuf.swapBaseInput. */
const CPMM_SWAP_BASE_INPUT = new Uint8Array([143, 190, 90, 218, 196, 30, 51, 222])

const text = (seed: string): Uint8Array => getUtf8Encoder().encode(seed) as Uint8Array

// Derivations are remembered: most of a swap's addresses are the same from scan to scan (the program's
// configs and event authority, the fee recipients' accounts, the CPMM authority), and each derivation
// costs a curve check or more (~0.1 ms). Bounded: cleared when full.
const derived = new Map<string, Address>()
const remembered = (key: string, derive: () => Address): Address => {
  const known = derived.get(key)
  if (known !== undefined) return known
  if (derived.size >= 4_096) derived.clear()
  const value = derive()
  derived.set(key, value)
  return value
}
const pda = (program: Address, ...seeds: ReadonlyArray<Uint8Array>): Address =>
  remembered(`${program}:${seeds.map((seed) => Buffer.from(seed).toString("hex")).join(":")}`, () =>
    findProgramAddressSync(program, seeds)
  )
const ata = (owner: Address, side: PoolSide): Address =>
  remembered(`ata:${owner}:${side.mint}:${side.tokenProgram}`, () =>
    associatedTokenAddressSync(owner, side.mint, side.tokenProgram)
  )

const u64 = (value: bigint): Uint8Array => getU64Encoder().encode(value) as Uint8Array

const data = (discriminator: Uint8Array, ...args: ReadonlyArray<bigint>): Uint8Array => {
  const out = new Uint8Array(discriminator.length + args.length * 8)
  out.set(discriminator, 0)
  args.forEach((arg, i) => {
    out.set(u64(arg), discriminator.length + i * 8)
  })
  return out
}

const meta = (at: Address, role: AccountRole): AccountMeta => ({ address: at, role })
const { READONLY: R, WRITABLE: W, WRITABLE_SIGNER: WS, READONLY_SIGNER: RS } = AccountRole

/**
 * PumpSwap `sell(base_amount_in, min_quote_amount_out = 0)`. Accounts in the IDL's order
 * (@pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json instructions[sell].accounts), then the remaining
 * accounts the SDK appends (src/sdk/offlinePumpAmm.ts sellInstructionsNoPool): for a cashback coin the
 * user volume accumulator's quote ATA and the accumulator (PDA ["user_volume_accumulator", user]); when
 * coin_creator is set, PDA ["pool-v2", base_mint]; then the buyback fee recipient and its quote ATA.
 * PDAs as src/sdk/pda.ts derives them.
 */
export const pumpSwapSell = (pool: PumpSwapPool, probe: SwapProbe, userQuote: Address): Instruction => {
  const program = venueOf("pumpswap").program
  const creatorVaultAuthority = pda(program, text("creator_vault"), keyBytes(pool.coinCreator))
  const feeConfig = pda(PUMP_FEE_PROGRAM, text("fee_config"), keyBytes(program))
  const volumeAccumulator = pda(program, text("user_volume_accumulator"), keyBytes(probe.holder))
  const remaining: Array<AccountMeta> = [
    ...(pool.isCashbackCoin ? [meta(ata(volumeAccumulator, pool.quote), W), meta(volumeAccumulator, W)] : []),
    ...(pool.coinCreator === ZERO_ADDRESS ? [] : [meta(pda(program, text("pool-v2"), keyBytes(pool.base.mint)), R)]),
    meta(pool.buybackFeeRecipient, R),
    meta(ata(pool.buybackFeeRecipient, pool.quote), W)
  ]
  return {
    programAddress: program,
    accounts: [
      meta(pool.pool, W),
      meta(probe.holder, WS),
      meta(pda(program, text("global_config")), R),
      meta(pool.base.mint, R),
      meta(pool.quote.mint, R),
      meta(probe.holderBaseAccount, W),
      meta(userQuote, W),
      meta(pool.base.vault, W),
      meta(pool.quote.vault, W),
      meta(pool.protocolFeeRecipient, R),
      meta(ata(pool.protocolFeeRecipient, pool.quote), W),
      meta(pool.base.tokenProgram, R),
      meta(pool.quote.tokenProgram, R),
      meta(SYSTEM_PROGRAM, R),
      meta(ASSOCIATED_TOKEN_PROGRAM_ADDRESS, R),
      meta(pda(program, text("__event_authority")), R),
      meta(program, R),
      meta(ata(creatorVaultAuthority, pool.quote), W),
      meta(creatorVaultAuthority, R),
      meta(feeConfig, R),
      meta(PUMP_FEE_PROGRAM, R),
      ...remaining
    ],
    data: data(PUMPSWAP_SELL, probe.amount, 0n)
  }
}

/**
 * PumpSwap `extend_account` of the pool (IDL instructions[extend_account]: account, user, system program,
 * event authority, program). The SDK passes the trader as `user`, who pays the rent of the extra bytes;
 * here the fee payer does, a wallet the scan knows holds SOL.
 */
export const pumpSwapExtend = (pool: PumpSwapPool, payer: Address): Instruction => {
  const program = venueOf("pumpswap").program
  return {
    programAddress: program,
    accounts: [
      meta(pool.pool, W),
      meta(payer, WS),
      meta(SYSTEM_PROGRAM, R),
      meta(pda(program, text("__event_authority")), R),
      meta(program, R)
    ],
    data: PUMPSWAP_EXTEND_ACCOUNT
  }
}

/**
 * Raydium CPMM `swap_base_input(amount_in, minimum_amount_out = 0)`, accounts as
 * @raydium-io/raydium-sdk-v2 0.2.73-alpha src/raydium/cpmm/instruction.ts makeSwapCpmmBaseInInstruction
 * lists them; the authority is PDA ["vault_and_lp_mint_auth_seed"] (src/raydium/cpmm/pda.ts getPdaPoolAuthority).
 */
export const raydiumCpmmSwap = (pool: RaydiumCpmmPool, probe: SwapProbe, userQuote: Address): Instruction => {
  const venue = venueOf("raydium-cpmm")
  if (venue.authoritySeed === undefined) throw new Error("raydium-cpmm has no authority")
  const authority = pda(venue.program, text(venue.authoritySeed))
  return {
    programAddress: venue.program,
    accounts: [
      meta(probe.holder, RS),
      meta(authority, R),
      meta(pool.ammConfig, R),
      meta(pool.pool, W),
      meta(probe.holderBaseAccount, W),
      meta(userQuote, W),
      meta(pool.base.vault, W),
      meta(pool.quote.vault, W),
      meta(pool.base.tokenProgram, R),
      meta(pool.quote.tokenProgram, R),
      meta(pool.base.mint, R),
      meta(pool.quote.mint, R),
      meta(pool.observationState, W)
    ],
    data: data(CPMM_SWAP_BASE_INPUT, probe.amount, 0n)
  }
}

/** The holder's associated account of the pool's quote mint: where the swap pays out. */
export const holderQuoteAccount = (pool: SwapPool, holder: Address): Address => ata(holder, pool.quote)
