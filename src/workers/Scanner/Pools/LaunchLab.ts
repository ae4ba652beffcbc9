import { type Address, getUtf8Encoder } from "@solana/kit"
import { venueProgram } from "../Programs.ts"
import { addressAt, anchorAccountDiscriminator, startsWith, u64At, u8At, keyBytes } from "./Bytes.ts"
import type { PoolProgram, PoolState } from "./Types.ts"
import { programDerivedAddress } from "./Curve.ts"

// Raydium LaunchLab's bonding curve (LetsBonk and other launchpads). Layout from raydium-io/raydium-cpi
// programs/launch-cpi/src/states.rs PoolState (Borsh, PoolState::LEN = 429): discriminator 8, epoch 8,
// auth_bump 16, status 17 (0 Fund: trading on the curve, 1 Migrate: fundraising done, 2 Trade:
// migrated), base_decimals 18, quote_decimals 19, migrate_type 20, supply 21, total_base_sell 29,
// virtual_base 37, virtual_quote 45, real_base 53 (base sold), real_quote 61 (quote raised),
// total_quote_fund_raising 69 (the migration threshold), 3 fee u64, vesting_schedule 101 (5 u64),
// global_config 141, platform_config 173, base_mint 205, quote_mint 237, base_vault 269,
// quote_vault 301, creator 333, token_program_flag 365, amm_creator_fee_on 366, padding 62.
// The pool is the PDA ["pool", base_mint, quote_mint] (the same file's POOL_SEED); its vaults are owned
// by the program's ["vault_auth_seed"] authority. GlobalConfig: discriminator 8, epoch 8, curve_type 16
// (0 constant product, 1 fixed price, 2 linear).
const POOL_SIZE = 429
const POOL_DISCRIMINATOR = anchorAccountDiscriminator("PoolState")
const GLOBAL_DISCRIMINATOR = anchorAccountDiscriminator("GlobalConfig")
const BASE_MINT = 205
const PROGRAM = venueProgram("raydium-launchlab")

const progressOf = (raised: bigint, target: bigint): number =>
  target <= 0n ? 0 : Math.min(100, Number((raised * 1_000_000n) / target) / 10_000)

/** Constant-product curve price: (virtual_quote + real_quote) / (virtual_base - real_base). */
const constantPrice = (data: Uint8Array): number | null => {
  const base = u64At(data, 37) - u64At(data, 53)
  return base <= 0n ? null : Number(u64At(data, 45) + u64At(data, 61)) / Number(base)
}

export const raydiumLaunchLab: PoolProgram = {
  venue: "raydium-launchlab",
  program: PROGRAM,
  shape: "bonding_curve",
  dataSize: POOL_SIZE,
  mintOffsets: [BASE_MINT],
  source: "raydium-io/raydium-cpi programs/launch-cpi/src/states.rs PoolState, GlobalConfig; POOL_SEED",
  canonical: async (mint, quotes) =>
    Promise.all(
      quotes.map(
        async (quote) =>
          (
            await programDerivedAddress({
              programAddress: PROGRAM,
              seeds: [getUtf8Encoder().encode("pool"), keyBytes(mint), keyBytes(quote)]
            })
          )[0]
      )
    ),
  decode: (address: Address, data: Uint8Array): PoolState | undefined => {
    if (data.length !== POOL_SIZE || !startsWith(data, POOL_DISCRIMINATOR)) return undefined
    const complete = u8At(data, 17) !== 0
    return {
      address,
      venue: "raydium-launchlab",
      shape: "bonding_curve",
      mintA: addressAt(data, BASE_MINT),
      mintB: addressAt(data, 237),
      vaultA: addressAt(data, 269),
      vaultB: addressAt(data, 301),
      storedReserves: null,
      priceBPerA: constantPrice(data),
      lpMint: null,
      lpSupplyTracked: null,
      curve: {
        complete,
        progressPct: complete ? 100 : progressOf(u64At(data, 61), u64At(data, 69)),
        // The constant-product curve prices on virtual_quote + real_quote (constantPrice above).
        quoteDepth: u64At(data, 45) + u64At(data, 61)
      },
      related: [addressAt(data, 141)]
    }
  },
  // A fixed-price or linear curve's price is not the constant-product one: none rather than a wrong one.
  complete: (state, related) => {
    const global = related[0]
    if (global === null || global === undefined || global.length < 17 || !startsWith(global, GLOBAL_DISCRIMINATOR))
      return state
    if (u8At(global, 16) === 0) return state
    // Nor a constant-product depth: the depth of a fixed-price or linear curve is not read.
    const curve = state.curve === null ? null : { complete: state.curve.complete, progressPct: state.curve.progressPct }
    return { ...state, priceBPerA: null, curve }
  }
}
