import { type Address, getU16Encoder } from "@solana/kit"
import { venueProgram } from "../Programs.ts"
import {
  DEFAULT_ADDRESS,
  addressAt,
  anchorAccountDiscriminator,
  findProgramAddressSync,
  i32At,
  keyBytes,
  priceFromSqrtQ64,
  sortedPair,
  startsWith,
  u128At,
  u16At,
  u64At,
  u8At,
  view
} from "./Bytes.ts"
import { sqrtPricePool } from "./Concentrated.ts"
import type { PoolProgram, PoolState } from "./Types.ts"
import { programDerivedAddress } from "./Curve.ts"

// Meteora's four pool programs. Layouts read from the Anchor IDLs the SDKs ship (npm pack; the IDL
// JSON is in each package's source map, sourcesContent of the path named below).

const programOf = venueProgram

// ---- DLMM ---------------------------------------------------------------------------------------
// @meteora-ag/dlmm 1.9.14 src/dlmm/idl/idl.json LbPair (bytemuck, repr C, 904 bytes): discriminator 8,
// StaticParameters 8 (32), VariableParameters 40 (32), bump_seed 72, bin_step_seed 73, pair_type 75,
// active_id i32 76, bin_step u16 80, status 82, ..., token_x_mint 88, token_y_mint 120, reserve_x 152,
// reserve_y 184, ... The price of bin `id` is (1 + bin_step / 10000)^id, Y per X in raw units
// (src/dlmm/helpers/math.ts getPriceOfBinByBinId).
const DLMM_SIZE = 904
const DLMM_DISCRIMINATOR = anchorAccountDiscriminator("LbPair")

/**
 * Pairs the scan derives: deriveLbPair2 (src/dlmm/helpers/derive.ts) seeds [min mint, max mint,
 * bin_step u16 LE, base_factor u16 LE] at base factor 10000 (base fee = bin step in bps) for bin steps
 * 25, 50, 80, 100, 200; and the customizable permissionless pair [ILM_BASE, min, max]
 * (src/dlmm/constants/index.ts ILM_BASE), the one launchpads create. Pairs at other presets are missed.
 */
const DLMM_BIN_STEPS: ReadonlyArray<number> = [25, 50, 80, 100, 200]
const DLMM_BASE_FACTOR = 10_000
const DLMM_ILM_BASE = "MFGQxwAmB91SwuYX36okv2Qmdc9aMuHTwWGUrp4AtB1" as Address

const dlmmPairAddress = async (
  mintX: Address,
  mintY: Address,
  binStep: number,
  baseFactor: number
): Promise<Address> => {
  const [min, max] = sortedPair(mintX, mintY)
  return (
    await programDerivedAddress({
      programAddress: programOf("meteora-dlmm"),
      seeds: [keyBytes(min), keyBytes(max), getU16Encoder().encode(binStep), getU16Encoder().encode(baseFactor)]
    })
  )[0]
}

const dlmmCustomizablePairAddress = async (mintX: Address, mintY: Address): Promise<Address> => {
  const [min, max] = sortedPair(mintX, mintY)
  return (
    await programDerivedAddress({
      programAddress: programOf("meteora-dlmm"),
      seeds: [keyBytes(DLMM_ILM_BASE), keyBytes(min), keyBytes(max)]
    })
  )[0]
}

export const meteoraDlmm: PoolProgram = {
  venue: "meteora-dlmm",
  program: programOf("meteora-dlmm"),
  shape: "bins",
  dataSize: DLMM_SIZE,
  mintOffsets: [88, 120],
  source: "@meteora-ag/dlmm 1.9.14 src/dlmm/idl/idl.json LbPair (in dist/index.js.map)",
  canonical: async (mint, quotes) =>
    Promise.all(
      quotes.flatMap((quote) => [
        ...DLMM_BIN_STEPS.map((step) => dlmmPairAddress(mint, quote, step, DLMM_BASE_FACTOR)),
        dlmmCustomizablePairAddress(mint, quote)
      ])
    ),
  decode: (address, data) => {
    if (data.length !== DLMM_SIZE || !startsWith(data, DLMM_DISCRIMINATOR)) return undefined
    const binStep = u16At(data, 80)
    return {
      address,
      venue: "meteora-dlmm",
      shape: "bins",
      mintA: addressAt(data, 88),
      mintB: addressAt(data, 120),
      vaultA: addressAt(data, 152),
      vaultB: addressAt(data, 184),
      storedReserves: null,
      priceBPerA: (1 + binStep / 10_000) ** i32At(data, 76),
      lpMint: null,
      lpSupplyTracked: null,
      curve: null,
      related: []
    }
  }
}

// ---- DAMM v1 ------------------------------------------------------------------------------------
// @meteora-ag/dynamic-bonding-curve-sdk 1.5.12 src/idl/damm-v1/idl.json Pool (Borsh, 944 bytes):
// discriminator 8, lp_mint 8, token_a_mint 40, token_b_mint 72, a_vault 104, b_vault 136,
// a_vault_lp 168, b_vault_lp 200, a_vault_lp_bump 232, enabled 233, protocol fee accounts 234/266,
// fee_last_updated_at 298, padding 306, fees 330 (32), pool_type (enum, 1 byte) 362, stake 363,
// total_locked_lp 395, bootstrapping, partner info, padding, curve_type. Same layout in
// @meteora-ag/dynamic-amm-sdk src/amm/idl.ts. The tokens sit in Meteora's dynamic vaults (a_vault /
// b_vault, Vault accounts of the vault program), of which the pool owns the a_vault_lp / b_vault_lp
// shares: there is no token account whose balance is the pool's reserve, so vaultA/vaultB are null
// and the vault accounts and the pool's share accounts are `related`, with each vault's LP mint and the
// Clock sysvar: a side's reserve is the pool's share of the vault's withdrawable amount, as the vault SDK
// computes it (@meteora-ag/vault-sdk 2.3.1 src/vault/helper getAmountByShare, calculateWithdrawableAmount).
const DAMM_V1_SIZE = 944
const DAMM_V1_DISCRIMINATOR = anchorAccountDiscriminator("Pool")
export const meteoraDammV1: PoolProgram = {
  venue: "meteora-damm-v1",
  program: programOf("meteora-damm-v1"),
  shape: "constant_product",
  dataSize: DAMM_V1_SIZE,
  mintOffsets: [40, 72],
  source: "@meteora-ag/dynamic-bonding-curve-sdk 1.5.12 src/idl/damm-v1/idl.json Pool (in dist/index.js.map)",
  decode: (address, data) => {
    if (data.length !== DAMM_V1_SIZE || !startsWith(data, DAMM_V1_DISCRIMINATOR)) return undefined
    return {
      address,
      venue: "meteora-damm-v1",
      shape: "constant_product",
      mintA: addressAt(data, 40),
      mintB: addressAt(data, 72),
      vaultA: null,
      vaultB: null,
      storedReserves: null,
      priceBPerA: null,
      lpMint: addressAt(data, 8),
      lpSupplyTracked: null,
      lpLockedTracked: u64At(data, 395),
      curve: null,
      related: [
        addressAt(data, 104),
        addressAt(data, 136),
        addressAt(data, 168),
        addressAt(data, 200),
        vaultLpMintOf(addressAt(data, 104)),
        vaultLpMintOf(addressAt(data, 136)),
        CLOCK_SYSVAR
      ]
    }
  },
  complete: (state, related) => {
    const [aVault, bVault, aShares, bShares, aLpMint, bLpMint, clock] = related
    const now =
      clock !== null && clock !== undefined && clock.length >= 40
        ? view(clock).getBigInt64(32, true)
        : BigInt(Math.floor(Date.now() / 1000))
    const a = vaultShareAmount(aVault, aShares, aLpMint, state.related[4], state.mintA, now)
    const b = vaultShareAmount(bVault, bShares, bLpMint, state.related[5], state.mintB, now)
    return a === undefined || b === undefined
      ? state
      : { ...state, storedReserves: { a, b }, reservesFrom: "vault_shares" }
  }
}

// The Meteora dynamic vault program (@meteora-ag/vault-sdk 2.3.1 src/vault/constants.ts PROGRAM_ID) and
// its Vault account (src/vault/idl.ts, Anchor 0.x Borsh): discriminator 8, enabled 8, bumps 9, total_amount
// u64 11, token_vault 19, fee_vault 51, token_mint 83, lp_mint 115, strategies 147 (30 keys), base 1107,
// admin 1139, operator 1171, locked_profit_tracker 1203 (last_updated_locked_profit, last_report,
// locked_profit_degradation: u64 each), 1227 bytes in all.
const METEORA_VAULT_PROGRAM = "24Uqj9JCLxUeoC3hGfh5W3s9FM9uCHDS2SG3LYwBpyTi" as Address
const VAULT_DISCRIMINATOR = anchorAccountDiscriminator("Vault")
const VAULT_SIZE = 1227
const LOCKED_PROFIT_DEGRADATION_DENOMINATOR = 1_000_000_000_000n
const CLOCK_SYSVAR = "SysvarC1ock11111111111111111111111111111111" as Address

/** A vault's LP mint, ["lp_mint", vault] (src/vault/utils getVaultPdas); the few vaults with another one are checked against the account. */
const vaultLpMintOf = (vault: Address): Address =>
  findProgramAddressSync(METEORA_VAULT_PROGRAM, [new TextEncoder().encode("lp_mint"), keyBytes(vault)])

/** The vault's amount a holder of `shares` can withdraw at `now`; undefined when an account is missing or does not match. */
const vaultShareAmount = (
  vault: Uint8Array | null | undefined,
  shares: Uint8Array | null | undefined,
  lpMint: Uint8Array | null | undefined,
  lpMintAddress: Address | undefined,
  tokenMint: Address,
  now: bigint
): bigint | undefined => {
  if (vault === null || vault === undefined || vault.length < VAULT_SIZE || !startsWith(vault, VAULT_DISCRIMINATOR))
    return undefined
  if (addressAt(vault, 83) !== tokenMint || addressAt(vault, 115) !== lpMintAddress) return undefined
  if (shares === null || shares === undefined || shares.length < 72 || addressAt(shares, 0) !== lpMintAddress)
    return undefined
  if (lpMint === null || lpMint === undefined || lpMint.length < 82) return undefined
  const supply = u64At(lpMint, 36)
  if (supply === 0n) return 0n
  const total = u64At(vault, 11)
  const [lockedProfit, lastReport, degradation] = [u64At(vault, 1203), u64At(vault, 1211), u64At(vault, 1219)]
  const ratio = (now - lastReport) * degradation
  const withdrawable =
    ratio > LOCKED_PROFIT_DEGRADATION_DENOMINATOR
      ? total
      : total - (lockedProfit * (LOCKED_PROFIT_DEGRADATION_DENOMINATOR - ratio)) / LOCKED_PROFIT_DEGRADATION_DENOMINATOR
  return (u64At(shares, 64) * withdrawable) / supply
}

// ---- DAMM v2 ------------------------------------------------------------------------------------
// @meteora-ag/cp-amm-sdk 1.5.0 src/idl/cp_amm.json Pool (bytemuck, repr C, 1112 bytes): discriminator
// 8, PoolFeesStruct 8 (160), token_a_mint 168, token_b_mint 200, token_a_vault 232, token_b_vault 264,
// whitelisted_vault 296, partner 328, liquidity u128 360, ..., sqrt_price u128 456. Liquidity is held
// as position NFTs, not an LP mint.
const DAMM_V2_SIZE = 1112
const DAMM_V2_DISCRIMINATOR = anchorAccountDiscriminator("Pool")
export const meteoraDammV2: PoolProgram = sqrtPricePool({
  venue: "meteora-damm-v2",
  size: DAMM_V2_SIZE,
  discriminator: DAMM_V2_DISCRIMINATOR,
  mints: [168, 200],
  vaults: [232, 264],
  sqrtPrice: 456,
  source: "@meteora-ag/cp-amm-sdk 1.5.0 src/idl/cp_amm.json Pool (in dist/index.js.map)"
})

// ---- Dynamic bonding curve ----------------------------------------------------------------------
// @meteora-ag/dynamic-bonding-curve-sdk 1.5.12 src/idl/dynamic-bonding-curve/idl.json VirtualPool
// (bytemuck, 424 bytes): discriminator 8, VolatilityTracker 8 (64), config 72, creator 104,
// base_mint 136, base_vault 168, quote_vault 200, base_reserve 232, quote_reserve 240, 4 fee u64,
// sqrt_price u128 280, activation_point 296, pool_type 304, is_migrated 305, ..., migration_progress
// 308 (0 pre-bonding-curve, 1 post-bonding-curve, 2 locked vesting, 3 pool created).
// PoolConfig (1048 bytes): quote_mint 8, ..., migration_quote_threshold u64 264.
// The pool stores no quote mint: mintB is the config's quote_mint, filled by `complete` (the default
// address 11111111111111111111111111111111 until then).
const DBC_SIZE = 424
const DBC_DISCRIMINATOR = anchorAccountDiscriminator("VirtualPool")
const DBC_CONFIG_DISCRIMINATOR = anchorAccountDiscriminator("PoolConfig")
const DBC_CONFIG_SIZE = 1048

const dbcProgress = (quoteReserve: bigint, threshold: bigint): number =>
  threshold <= 0n ? 0 : Math.min(100, Number((quoteReserve * 1_000_000n) / threshold) / 10_000)

export const meteoraDbc: PoolProgram = {
  venue: "meteora-dbc",
  program: programOf("meteora-dbc"),
  shape: "bonding_curve",
  dataSize: DBC_SIZE,
  mintOffsets: [136],
  source:
    "@meteora-ag/dynamic-bonding-curve-sdk 1.5.12 src/idl/dynamic-bonding-curve/idl.json VirtualPool, PoolConfig (in dist/index.js.map)",
  decode: (address, data) => {
    if (data.length !== DBC_SIZE || !startsWith(data, DBC_DISCRIMINATOR)) return undefined
    const complete = u8At(data, 305) !== 0 || u8At(data, 308) >= 1
    return {
      address,
      venue: "meteora-dbc",
      shape: "bonding_curve",
      mintA: addressAt(data, 136),
      mintB: DEFAULT_ADDRESS,
      vaultA: addressAt(data, 168),
      vaultB: addressAt(data, 200),
      storedReserves: { a: u64At(data, 232), b: u64At(data, 240) },
      priceBPerA: priceFromSqrtQ64(u128At(data, 280)),
      lpMint: null,
      lpSupplyTracked: null,
      curve: { complete, progressPct: complete ? 100 : null },
      related: [addressAt(data, 72)]
    }
  },
  complete: (state: PoolState, related: ReadonlyArray<Uint8Array | null>): PoolState => {
    const config = related[0]
    if (
      config === null ||
      config === undefined ||
      config.length < DBC_CONFIG_SIZE ||
      !startsWith(config, DBC_CONFIG_DISCRIMINATOR)
    )
      return state
    const threshold = u64At(config, 264)
    const quoteReserve = state.storedReserves?.b ?? 0n
    const complete = state.curve?.complete === true
    return {
      ...state,
      mintB: addressAt(config, 8),
      curve: { complete, progressPct: complete ? 100 : dbcProgress(quoteReserve, threshold) }
    }
  }
}
