import { type Address, getUtf8Encoder } from "@solana/kit"
import { venueProgram } from "../Programs.ts"
import { addressAt, anchorAccountDiscriminator, sortedPair, startsWith, u64At, u8At, keyBytes } from "./Bytes.ts"
import { sqrtPricePool } from "./Concentrated.ts"
import type { CpmmSwapState, PoolProgram } from "./Types.ts"
import { programDerivedAddress } from "./Curve.ts"

// Raydium's three pool programs. Layouts read from @raydium-io/raydium-sdk-v2 0.2.73-alpha (npm pack),
// whose marshmallow layouts are byte-for-byte the programs' account structs.

const programOf = venueProgram

// ---- AMM v4 -------------------------------------------------------------------------------------
// src/raydium/liquidity/layout.ts liquidityStateV4Layout: 32 u64 (0..256), 4 u128 + 2 u64 of swap
// totals (256..336), then base_vault 336, quote_vault 368, base_mint 400, quote_mint 432, lp_mint 464,
// open_orders 496, market 528, market program 560, target_orders 592, withdraw_queue 624, lp_vault 656,
// owner 688, lp_reserve (the program's lp_amount) 720, 3 u64 padding: 752 bytes. Not Anchor: no
// discriminator; status (u64 at 0) is 1..7 for an initialised pool (raydium-amm AmmStatus).
const AMM_V4_SIZE = 752
export const raydiumAmmV4: PoolProgram = {
  venue: "raydium-amm-v4",
  program: programOf("raydium-amm-v4"),
  shape: "constant_product",
  dataSize: AMM_V4_SIZE,
  mintOffsets: [400, 432],
  source: "@raydium-io/raydium-sdk-v2 src/raydium/liquidity/layout.ts liquidityStateV4Layout",
  decode: (address, data) => {
    if (data.length !== AMM_V4_SIZE) return undefined
    const status = u64At(data, 0)
    if (status < 1n || status > 7n) return undefined
    return {
      address,
      venue: "raydium-amm-v4",
      shape: "constant_product",
      mintA: addressAt(data, 400),
      mintB: addressAt(data, 432),
      vaultA: addressAt(data, 336),
      vaultB: addressAt(data, 368),
      storedReserves: null,
      priceBPerA: null,
      lpMint: addressAt(data, 464),
      lpSupplyTracked: u64At(data, 720),
      curve: null,
      related: []
    }
  }
}

// ---- CPMM ---------------------------------------------------------------------------------------
// src/raydium/cpmm/layout.ts CpmmPoolInfoLayout: discriminator 8, configId (amm_config) 8, poolCreator 40,
// vaultA (token_0_vault) 72, vaultB 104, mintLp 136, mintA (token_0_mint) 168, mintB 200, mintProgramA 232,
// mintProgramB 264, observationId 296, bump 328, status 329, lpDecimals 330, mintDecimalA 331,
// mintDecimalB 332, lpAmount (lp_supply) 333, protocolFeesMintA 341, protocolFeesMintB 349,
// fundFeesMintA 357, fundFeesMintB 365, openTime 373, epoch 381, feeOn 389, enableCreatorFee 390,
// 6 bytes of padding, creatorFeesMintA 397, creatorFeesMintB 405, 28 u64 of padding: 637 bytes.
const CPMM_SIZE = 637
const CPMM_DISCRIMINATOR = anchorAccountDiscriminator("PoolState")
// CpmmConfigInfoLayout (the program's AmmConfig): discriminator 8, bump 8, disableCreatePool 9, index u16 10,
// tradeFeeRate 12, protocolFeeRate 20, fundFeeRate 28, createPoolFee 36, protocolOwner 44, fundOwner 76,
// creatorFeeRate 108, creatorFeeShareRate 116, 14 u64 of padding: 236 bytes.
const AMM_CONFIG_SIZE = 236
const AMM_CONFIG_DISCRIMINATOR = anchorAccountDiscriminator("AmmConfig")
/**
 * Fee-tier configs whose pools the scan derives: AmmConfig PDAs ["amm_config", index u16 big-endian]
 * (src/raydium/cpmm/pda.ts getCpmmPdaAmmConfigId). Indexes 0..3 are Raydium's first four CPMM tiers
 * (0.25 %, 1 %, 2 %, 4 %); pools on other configs, or created at a keypair address, are not found.
 */
const CPMM_CONFIG_INDEXES: ReadonlyArray<number> = [0, 1, 2, 3]
const u16BigEndian = (value: number): Uint8Array => Uint8Array.of((value >> 8) & 0xff, value & 0xff)

/** The config PDA of a tier index; constant, so derived once per index. */
const cpmmConfigAddress = (index: number): Promise<Address> => {
  const known = cpmmConfigs.get(index)
  if (known !== undefined) return known
  const derived = programDerivedAddress({
    programAddress: programOf("raydium-cpmm"),
    seeds: [getUtf8Encoder().encode("amm_config"), u16BigEndian(index)]
  }).then(([at]) => at)
  cpmmConfigs.set(index, derived)
  return derived
}
const cpmmConfigs = new Map<number, Promise<Address>>()

/** The pool PDA ["pool", amm_config, token_0_mint, token_1_mint], token_0 < token_1 (src/raydium/cpmm/pda.ts getCpmmPdaPoolId). */
const cpmmPoolAddress = async (config: Address, mintA: Address, mintB: Address): Promise<Address> => {
  const [token0, token1] = sortedPair(mintA, mintB)
  return (
    await programDerivedAddress({
      programAddress: programOf("raydium-cpmm"),
      seeds: [getUtf8Encoder().encode("pool"), keyBytes(config), keyBytes(token0), keyBytes(token1)]
    })
  )[0]
}

/** An AmmConfig's trade and creator fee rates (per million), when the data is one. */
const decodeCpmmConfig = (data: Uint8Array | null): CpmmSwapState["config"] =>
  data === null || data.length !== AMM_CONFIG_SIZE || !startsWith(data, AMM_CONFIG_DISCRIMINATOR)
    ? null
    : { tradeFeeRate: u64At(data, 12), creatorFeeRate: u64At(data, 108) }

export const raydiumCpmm: PoolProgram = {
  venue: "raydium-cpmm",
  program: programOf("raydium-cpmm"),
  shape: "constant_product",
  dataSize: CPMM_SIZE,
  mintOffsets: [168, 200],
  source: "@raydium-io/raydium-sdk-v2 src/raydium/cpmm/layout.ts CpmmPoolInfoLayout, CpmmConfigInfoLayout",
  canonical: async (mint, quotes) => {
    const configs = await Promise.all(CPMM_CONFIG_INDEXES.map(cpmmConfigAddress))
    return Promise.all(quotes.flatMap((quote) => configs.map((config) => cpmmPoolAddress(config, mint, quote))))
  },
  decode: (address, data) => {
    if (data.length !== CPMM_SIZE || !startsWith(data, CPMM_DISCRIMINATOR)) return undefined
    const ammConfig = addressAt(data, 8)
    return {
      address,
      venue: "raydium-cpmm",
      shape: "constant_product",
      mintA: addressAt(data, 168),
      mintB: addressAt(data, 200),
      vaultA: addressAt(data, 72),
      vaultB: addressAt(data, 104),
      storedReserves: null,
      priceBPerA: null,
      lpMint: addressAt(data, 136),
      lpSupplyTracked: u64At(data, 333),
      curve: null,
      // The pool's AmmConfig: its fee rates price the swap.
      related: [ammConfig],
      swap: {
        venue: "raydium-cpmm",
        ammConfig,
        observationState: addressAt(data, 296),
        tokenProgramA: addressAt(data, 232),
        tokenProgramB: addressAt(data, 264),
        feesOwedA: u64At(data, 341) + u64At(data, 357) + u64At(data, 397),
        feesOwedB: u64At(data, 349) + u64At(data, 365) + u64At(data, 405),
        creatorFeeOn: u8At(data, 389),
        enableCreatorFee: u8At(data, 390) !== 0,
        status: u8At(data, 329),
        openTime: u64At(data, 373),
        config: null
      }
    }
  },
  complete: (state, [config]) =>
    state.swap?.venue !== "raydium-cpmm"
      ? state
      : { ...state, swap: { ...state.swap, config: decodeCpmmConfig(config ?? null) } }
}

// ---- CLMM ---------------------------------------------------------------------------------------
// src/raydium/clmm/layout.ts PoolInfoLayout: discriminator 8, bump 8, amm_config 9, owner 41,
// token_mint_0 73, token_mint_1 105, token_vault_0 137, token_vault_1 169, observation 201,
// decimals 233/234, tick_spacing 235, liquidity u128 237, sqrt_price_x64 u128 253, tick_current 269,
// ..., 3 reward infos, bitmap, dynamic fee info, padding: 1544 bytes.
const CLMM_SIZE = 1544
const CLMM_DISCRIMINATOR = anchorAccountDiscriminator("PoolState")
export const raydiumClmm: PoolProgram = sqrtPricePool({
  venue: "raydium-clmm",
  size: CLMM_SIZE,
  discriminator: CLMM_DISCRIMINATOR,
  mints: [73, 105],
  vaults: [137, 169],
  sqrtPrice: 253,
  source: "@raydium-io/raydium-sdk-v2 src/raydium/clmm/layout.ts PoolInfoLayout"
})
