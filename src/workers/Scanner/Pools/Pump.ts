import { type Address, getU16Encoder, getUtf8Encoder } from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, venueProgram } from "../Programs.ts"
import {
  DEFAULT_ADDRESS,
  addressAt,
  anchorAccountDiscriminator,
  associatedTokenAddressSync,
  findProgramAddressSync,
  keyBytes,
  startsWith,
  u128At,
  u64At,
  u8At,
  view
} from "./Bytes.ts"
import { USDC, WSOL } from "./Quotes.ts"
import type { PoolProgram, PoolState, PumpFeeConfig, PumpFees, PumpGlobalConfig, PumpSwapSwapState } from "./Types.ts"
import { programDerivedAddress } from "./Curve.ts"

// pump.fun's bonding curve and PumpSwap. Layouts from the IDLs in @pump-fun/pump-sdk 2.0.0
// src/idl/pump.json and @pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json; PDAs from
// @pump-fun/pump-sdk src/pda.ts and @pump-fun/pump-swap-sdk src/sdk/pda.ts.

const programOf = venueProgram
const PUMP = programOf("pump-fun")
const PUMP_AMM = programOf("pumpswap")

// ---- Bonding curve ------------------------------------------------------------------------------
// BondingCurve (Borsh): discriminator 8, virtual_token_reserves 8, virtual_quote_reserves 16,
// real_token_reserves 24, real_quote_reserves 32, token_total_supply 40, complete 48, creator 49,
// is_mayhem_mode 81, is_cashback_coin 82, quote_mint 83, creator_fee_bps 115, can_edit_creator_fee 123,
// is_holder_reward 124: 125 bytes in the current IDL. Older curves are shorter (49 bytes before
// `creator`, 81 before mayhem mode): the program extends them on use, so any length from 49 decodes.
// A curve stores no mint: it is the PDA ["bonding-curve", mint] (src/pda.ts bondingCurvePda), so the
// decoder needs the mint from its caller, or from `canonical`, which remembers what it derived.
// quote_mint is the all-zero key (or absent) for SOL coins (src/pda.ts normalizeQuoteMint).
const CURVE_MIN_SIZE = 49
const PUMP_CURVE_SIZE = 125
const CURVE_DISCRIMINATOR = anchorAccountDiscriminator("BondingCurve")

/**
 * Tokens the curve sells before it completes: the Global account's initial_real_token_reserves, which
 * a new curve starts with (src/bondingCurve.ts newBondingCurve: realTokenReserves =
 * global.initialRealTokenReserves). On mainnet that is 793,100,000 tokens × 10^6 (6 decimals) out of a
 * 1,000,000,000 supply, with initial virtual reserves 1,073,000,000 × 10^6 tokens and 30 SOL; the value
 * is read from the Global account on chain, not shipped in the SDK, so it is a constant here.
 */
const PUMP_INITIAL_REAL_TOKEN_RESERVES = 793_100_000_000_000n

const bondingCurveAddress = async (mint: Address): Promise<Address> =>
  (
    await programDerivedAddress({
      programAddress: PUMP,
      seeds: [getUtf8Encoder().encode("bonding-curve"), keyBytes(mint)]
    })
  )[0]

/** A mint's bonding curve, synchronously (the same PDA as bondingCurveAddress). */
export const pumpCurveOf = (mint: Address): Address =>
  findProgramAddressSync(PUMP, [new TextEncoder().encode("bonding-curve"), keyBytes(mint)])

/**
 * The curve's real quote reserve (real_quote_reserves: the SOL, as lamports of the curve account, or USDC its
 * buyers paid in) and whether it completed; undefined when the data is not a BondingCurve.
 */
export const pumpCurveReserve = (
  data: Uint8Array
): { readonly realQuote: bigint; readonly complete: boolean } | undefined =>
  data.length < CURVE_MIN_SIZE || !startsWith(data, CURVE_DISCRIMINATOR)
    ? undefined
    : { realQuote: u64At(data, 32), complete: u8At(data, 48) !== 0 }

/** Curves `canonical` derived, so that `decode` knows their mint (bounded; oldest dropped first). */
const curveMints = new Map<string, Address>()
const rememberCurve = (curve: Address, mint: Address): void => {
  curveMints.delete(curve)
  curveMints.set(curve, mint)
  if (curveMints.size > 10_000) {
    const oldest = curveMints.keys().next()
    if (oldest.done !== true) curveMints.delete(oldest.value)
  }
}

const curveProgress = (realTokenReserves: bigint, complete: boolean): number => {
  if (complete) return 100
  const sold = PUMP_INITIAL_REAL_TOKEN_RESERVES - realTokenReserves
  if (sold <= 0n) return 0
  return Math.min(100, Number((sold * 1_000_000n) / PUMP_INITIAL_REAL_TOKEN_RESERVES) / 10_000)
}

/** Decodes a bonding curve of a known mint. */
const decodeBondingCurve = (address: Address, data: Uint8Array, mint: Address): PoolState | undefined => {
  if (data.length < CURVE_MIN_SIZE || !startsWith(data, CURVE_DISCRIMINATOR)) return undefined
  const virtualToken = u64At(data, 8)
  const virtualQuote = u64At(data, 16)
  const complete = u8At(data, 48) !== 0
  const storedQuote = data.length >= 115 ? addressAt(data, 83) : DEFAULT_ADDRESS
  const sol = storedQuote === DEFAULT_ADDRESS || storedQuote === WSOL
  return {
    address,
    venue: "pump-fun",
    shape: "bonding_curve",
    mintA: mint,
    mintB: sol ? WSOL : storedQuote,
    vaultA: associatedTokenAddressSync(address, mint, TOKEN_PROGRAM_ADDRESS),
    vaultAAlternates: [associatedTokenAddressSync(address, mint, TOKEN_2022_PROGRAM_ADDRESS)],
    vaultB: sol ? null : associatedTokenAddressSync(address, storedQuote, TOKEN_PROGRAM_ADDRESS),
    storedReserves: { a: u64At(data, 24), b: u64At(data, 32) },
    priceBPerA: virtualToken === 0n ? null : Number(virtualQuote) / Number(virtualToken),
    lpMint: null,
    lpSupplyTracked: null,
    // Buys and sells are priced on the virtual reserves (which include the real ones): the curve's depth.
    curve: { complete, progressPct: curveProgress(u64At(data, 24), complete), quoteDepth: virtualQuote },
    related: []
  }
}

export const pumpFun: PoolProgram = {
  venue: "pump-fun",
  program: PUMP,
  shape: "bonding_curve",
  // Informational: curves are found at their PDA, never by getProgramAccounts (sizes vary, see above).
  dataSize: PUMP_CURVE_SIZE,
  mintOffsets: [],
  source: "@pump-fun/pump-sdk 2.0.0 src/idl/pump.json BondingCurve; src/pda.ts bondingCurvePda",
  canonical: async (mint) => {
    const curve = await bondingCurveAddress(mint)
    rememberCurve(curve, mint)
    return [curve]
  },
  decode: (address, data) => {
    const mint = curveMints.get(address)
    return mint === undefined ? undefined : decodeBondingCurve(address, data, mint)
  }
}

// ---- PumpSwap -----------------------------------------------------------------------------------
// Pool (Borsh): discriminator 8, pool_bump 8, index u16 9, creator 11, base_mint 43, quote_mint 75,
// lp_mint 107, pool_base_token_account 139, pool_quote_token_account 171, lp_supply u64 203,
// coin_creator 211, is_mayhem_mode 243, is_cashback_coin 244, virtual_quote_reserves i128 245,
// creator_fee_bps 261, can_edit_creator_fee 269: 270 bytes in the current IDL; older pools end after
// lp_supply (211) or coin_creator (243), so any length from 211 decodes, the missing fields reading as
// zero (src/sdk/offlinePumpAmm.ts decodePool pads to POOL_SIZE the same way).
const AMM_POOL_MIN_SIZE = 211
const PUMPSWAP_POOL_SIZE = 270
const AMM_POOL_DISCRIMINATOR = anchorAccountDiscriminator("Pool")

/** The pump fees program (src/sdk/pda.ts PUMP_FEE_PROGRAM_ID; the IDL's fee_program address). */
export const PUMP_FEE_PROGRAM = "pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ" as Address
const seed = (text: string): Uint8Array => new TextEncoder().encode(text)
/** GlobalConfig: PDA ["global_config"] of PumpSwap (src/sdk/pda.ts GLOBAL_CONFIG_PDA). */
export const PUMPSWAP_GLOBAL_CONFIG = findProgramAddressSync(PUMP_AMM, [seed("global_config")])
/** FeeConfig: PDA ["fee_config", PumpSwap's id] of the fee program (src/sdk/pda.ts PUMP_AMM_FEE_CONFIG_PDA). */
export const PUMPSWAP_FEE_CONFIG = findProgramAddressSync(PUMP_FEE_PROGRAM, [seed("fee_config"), keyBytes(PUMP_AMM)])

/** A coin's pool after migration: index 0, creator = pump's ["pool-authority", mint] (src/pda.ts canonicalPumpPoolPdaWithQuote). */
const canonicalPumpSwapPool = async (mint: Address, quote: Address): Promise<Address> => {
  // Derived once per mint (remembered by pumpPoolAuthority), not once per quote.
  const authority = pumpPoolAuthority(mint)
  return (
    await programDerivedAddress({
      programAddress: PUMP_AMM,
      seeds: [
        getUtf8Encoder().encode("pool"),
        getU16Encoder().encode(0),
        keyBytes(authority),
        keyBytes(mint),
        keyBytes(quote)
      ]
    })
  )[0]
}

/** pump's ["pool-authority", mint] (@pump-fun/pump-swap-sdk src/sdk/pda.ts pumpPoolAuthorityPda), synchronously. */
export const pumpPoolAuthority = (mint: Address): Address => {
  const known = poolAuthorities.get(mint)
  if (known !== undefined) return known
  if (poolAuthorities.size >= 10_000) poolAuthorities.clear()
  const authority = findProgramAddressSync(PUMP, [seed("pool-authority"), keyBytes(mint)])
  poolAuthorities.set(mint, authority)
  return authority
}
const poolAuthorities = new Map<string, Address>()

const padded = (data: Uint8Array, size: number): Uint8Array => {
  if (data.length >= size) return data
  const out = new Uint8Array(size)
  out.set(data)
  return out
}
const i128At = (data: Uint8Array, offset: number): bigint => {
  const raw = u128At(data, offset)
  return raw >= 1n << 127n ? raw - (1n << 128n) : raw
}
const feesAt = (data: Uint8Array, offset: number): PumpFees => ({
  lpBps: u64At(data, offset),
  protocolBps: u64At(data, offset + 8),
  creatorBps: u64At(data, offset + 16)
})
const addressesAt = (data: Uint8Array, offset: number, count: number): ReadonlyArray<Address> =>
  Array.from({ length: count }, (_, i) => addressAt(data, offset + i * 32))

// GlobalConfig (pump_amm.json): discriminator 8, admin 8, lp_fee_basis_points 40, protocol_fee_basis_points
// 48, disable_flags u8 56, protocol_fee_recipients [8] 57, coin_creator_fee_basis_points 313,
// admin_set_coin_creator_authority 321, whitelist_pda 353, reserved_fee_recipient 385, mayhem_mode_enabled
// 417, reserved_fee_recipients [7] 418, is_cashback_enabled 642, buyback_fee_recipients [8] 643,
// buyback_basis_points 899, boost_authority 907, boost_enabled 939, creator_fee_configurable 940,
// max_configurable_creator_fee_bps 941: 949 bytes (src/sdk/offlinePumpAmm.ts GLOBAL_CONFIG_SIZE). Older
// accounts are shorter and read as zero-padded (decodeGlobalConfig pads them).
const GLOBAL_CONFIG_SIZE = 949
const GLOBAL_CONFIG_MIN_SIZE = 321
const GLOBAL_CONFIG_DISCRIMINATOR = anchorAccountDiscriminator("GlobalConfig")

const decodePumpGlobalConfig = (data: Uint8Array | null): PumpGlobalConfig | null => {
  if (data === null || data.length < GLOBAL_CONFIG_MIN_SIZE || !startsWith(data, GLOBAL_CONFIG_DISCRIMINATOR))
    return null
  const full = padded(data, GLOBAL_CONFIG_SIZE)
  return {
    fees: { lpBps: u64At(full, 40), protocolBps: u64At(full, 48), creatorBps: u64At(full, 313) },
    disableFlags: u8At(full, 56),
    protocolFeeRecipients: addressesAt(full, 57, 8),
    reservedFeeRecipient: addressAt(full, 385),
    reservedFeeRecipients: addressesAt(full, 418, 7),
    buybackFeeRecipients: addressesAt(full, 643, 8),
    creatorFeeConfigurable: u8At(full, 940) !== 0
  }
}

// FeeConfig (pump_amm.json, owned by the fee program): discriminator 8, bump 8, admin 9, flat_fees 41
// (3 u64), fee_tiers Vec<FeeTier> at 65 (u32 length, then u128 market_cap_lamports_threshold + Fees,
// 40 bytes each), stable_fee_tiers Vec<FeeTier>, exotic_flat_fees Fees. The account's length selects
// its version (src/sdk/offlinePumpAmm.ts versionedFeeConfigData): from 2512 bytes fee_tiers only, from
// 4073 stable_fee_tiers too, from 4097 exotic_flat_fees too; fields of a later version read as empty.
const FEE_CONFIG_SIZE_PRE_STABLE = 2512
const FEE_CONFIG_SIZE_POST_STABLE = 4073
const FEE_CONFIG_SIZE_POST_EXOTIC = 4097
const FEE_CONFIG_DISCRIMINATOR = anchorAccountDiscriminator("FeeConfig")
const ZERO_FEES: PumpFees = { lpBps: 0n, protocolBps: 0n, creatorBps: 0n }

export const decodePumpFeeConfig = (data: Uint8Array): PumpFeeConfig | null => {
  if (data.length < FEE_CONFIG_SIZE_PRE_STABLE || !startsWith(data, FEE_CONFIG_DISCRIMINATOR)) return null
  const tiersAt = (offset: number) => {
    if (offset + 4 > data.length) return undefined
    const count = view(data).getUint32(offset, true)
    const end = offset + 4 + count * 40
    if (end > data.length) return undefined
    const tiers = Array.from({ length: count }, (_, i) => ({
      marketCapLamportsThreshold: u128At(data, offset + 4 + i * 40),
      fees: feesAt(data, offset + 4 + i * 40 + 16)
    }))
    return { tiers, end }
  }
  const feeTiers = tiersAt(65)
  if (feeTiers === undefined) return null
  const stable = data.length >= FEE_CONFIG_SIZE_POST_STABLE ? tiersAt(feeTiers.end) : { tiers: [], end: feeTiers.end }
  if (stable === undefined) return null
  const exotic =
    data.length >= FEE_CONFIG_SIZE_POST_EXOTIC
      ? stable.end + 24 <= data.length
        ? feesAt(data, stable.end)
        : undefined
      : ZERO_FEES
  if (exotic === undefined) return null
  return { flatFees: feesAt(data, 41), feeTiers: feeTiers.tiers, stableFeeTiers: stable.tiers, exoticFlatFees: exotic }
}

/** The Token-2022 native mint, SOL-like for the fee schedule (src/sdk/fees.ts SOL_LIKE_QUOTE_MINTS, NATIVE_MINT_2022). */
const NATIVE_MINT_2022 = "9pan9bMn5HatX4EJdBwg9VgCa7Uz5HL8N1m5D3NdXejP" as Address
/** pump-amm TOTAL_TOKEN_SUPPLY: the market-cap basis of mayhem-mode pools (src/sdk/util.ts PUMP_AMM_TOTAL_TOKEN_SUPPLY). */
const PUMP_AMM_TOTAL_TOKEN_SUPPLY = 1_000_000_000_000_000n

type FeeTier = PumpFeeConfig["feeTiers"][number]
/** src/sdk/fees.ts calculateFeeTier: the first tier below its threshold, else the highest tier reached. */
const feeTierOf = (tiers: ReadonlyArray<FeeTier>, marketCap: bigint): PumpFees | undefined => {
  const first = tiers[0]
  if (first === undefined) return undefined
  if (marketCap < first.marketCapLamportsThreshold) return first.fees
  return [...tiers].reverse().find((tier) => marketCap >= tier.marketCapLamportsThreshold)?.fees ?? first.fees
}
const isZeroFees = (fees: PumpFees): boolean => fees.lpBps === 0n && fees.protocolBps === 0n && fees.creatorBps === 0n

/**
 * The fees a sell pays, as @pump-fun/pump-swap-sdk 1.20.0 src/sdk/fees.ts computeFeesBps picks them (the
 * SDK's sellBaseInput in src/sdk/sell.ts calls it with the pool's reserves, virtual quote included):
 * - without a FeeConfig account, the GlobalConfig's lp / protocol / coin-creator basis points;
 * - with one (feesForQuoteMint): a pool whose creator is not pump's ["pool-authority", base_mint] pays
 *   flat_fees; a canonical pool pays the fee_tiers tier of its market cap for a SOL-like quote, the
 *   stable_fee_tiers tier (fee_tiers while empty) for USDC, else exotic_flat_fees (flat_fees while all
 *   zero); market cap = quote reserve × base supply / base reserve (src/sdk/util.ts poolMarketCap; a fixed
 *   1e15 supply in mayhem mode);
 * - then a nonzero Pool.creator_fee_bps replaces the creator rate while GlobalConfig.creator_fee_configurable.
 * undefined when the configs are not read, or the tiers are empty (the SDK throws).
 */
export const pumpSwapFeesOf = (
  swap: PumpSwapSwapState,
  pool: {
    readonly baseMint: Address
    readonly quoteMint: Address
    readonly baseReserve: bigint
    readonly quoteReserve: bigint
    readonly baseSupply: bigint
  }
): PumpFees | undefined => {
  const global = swap.global
  if (global === null || swap.feeConfig === null) return undefined
  if (swap.feeConfig === "absent") return global.fees
  const feeConfig = swap.feeConfig
  if (pool.baseReserve === 0n) return undefined
  const effectiveQuote = pool.quoteReserve + swap.virtualQuoteReserves
  const marketCap =
    (effectiveQuote * (swap.isMayhemMode ? PUMP_AMM_TOTAL_TOKEN_SUPPLY : pool.baseSupply)) / pool.baseReserve
  const solLike = pool.quoteMint === DEFAULT_ADDRESS || pool.quoteMint === WSOL || pool.quoteMint === NATIVE_MINT_2022
  const fees =
    swap.poolCreator !== pumpPoolAuthority(pool.baseMint)
      ? feeConfig.flatFees
      : solLike
        ? feeTierOf(feeConfig.feeTiers, marketCap)
        : pool.quoteMint === USDC
          ? feeTierOf(feeConfig.stableFeeTiers.length > 0 ? feeConfig.stableFeeTiers : feeConfig.feeTiers, marketCap)
          : isZeroFees(feeConfig.exoticFlatFees)
            ? feeConfig.flatFees
            : feeConfig.exoticFlatFees
  if (fees === undefined) return undefined
  return global.creatorFeeConfigurable && swap.creatorFeeBps > 0n ? { ...fees, creatorBps: swap.creatorFeeBps } : fees
}

export const pumpSwap: PoolProgram = {
  venue: "pumpswap",
  program: PUMP_AMM,
  shape: "constant_product",
  // Informational: canonical pools are found at their PDA (sizes vary, see above).
  dataSize: PUMPSWAP_POOL_SIZE,
  mintOffsets: [43, 75],
  source:
    "@pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json Pool, GlobalConfig, FeeConfig; src/sdk/pda.ts poolPda, @pump-fun/pump-sdk src/pda.ts canonicalPumpPoolPda",
  canonical: async (mint, quotes) => Promise.all(quotes.map((quote) => canonicalPumpSwapPool(mint, quote))),
  decode: (address, data) => {
    if (data.length < AMM_POOL_MIN_SIZE || !startsWith(data, AMM_POOL_DISCRIMINATOR)) return undefined
    const full = padded(data, PUMPSWAP_POOL_SIZE)
    return {
      address,
      venue: "pumpswap",
      shape: "constant_product",
      mintA: addressAt(data, 43),
      mintB: addressAt(data, 75),
      vaultA: addressAt(data, 139),
      vaultB: addressAt(data, 171),
      storedReserves: null,
      priceBPerA: null,
      lpMint: addressAt(data, 107),
      lpSupplyTracked: u64At(data, 203),
      curve: null,
      // The program-wide configs a sell's fees and fee recipients come from.
      related: [PUMPSWAP_GLOBAL_CONFIG, PUMPSWAP_FEE_CONFIG],
      swap: {
        venue: "pumpswap",
        poolCreator: addressAt(data, 11),
        coinCreator: addressAt(full, 211),
        isMayhemMode: u8At(full, 243) !== 0,
        isCashbackCoin: u8At(full, 244) !== 0,
        virtualQuoteReserves: i128At(full, 245),
        creatorFeeBps: u64At(full, 261),
        dataLength: data.length,
        global: null,
        feeConfig: null
      }
    }
  },
  complete: (state, [global, feeConfig]) =>
    state.swap?.venue !== "pumpswap"
      ? state
      : {
          ...state,
          swap: {
            ...state.swap,
            global: decodePumpGlobalConfig(global ?? null),
            feeConfig: feeConfig === null || feeConfig === undefined ? "absent" : decodePumpFeeConfig(feeConfig)
          }
        }
}
