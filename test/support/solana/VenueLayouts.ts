import { createHash } from "node:crypto"

// The per-pool (or per-lock) state account of each venue, as the fixture writes it with setAccount:
// real size, the Anchor discriminator where the program is Anchor, and the offset of the token mint
// where the account stores one. Fields beyond those stay zero.

export interface VenueLayout {
  /** Account type name; Anchor accounts start with sha256("account:<name>")[0..8]. */
  readonly account: string
  readonly anchor: boolean
  readonly size: number
  /** Offset of the traded/locked mint, when the account stores it. */
  readonly mintOffset?: number
  /** PDA seed prefix before the mint, when the program derives the account from the mint alone. */
  readonly mintSeed?: string
  /** Where the layout was read. */
  readonly source: string
}

export const VENUE_LAYOUTS: Readonly<Record<string, VenueLayout>> = {
  "raydium-amm-v4": {
    account: "AmmInfo",
    anchor: false,
    size: 752,
    mintOffset: 400,
    source: "raydium-io/raydium-amm program/src/state.rs AmmInfo; raydium-sdk-v2 liquidityStateV4Layout baseMint"
  },
  "raydium-cpmm": {
    account: "PoolState",
    anchor: true,
    size: 637,
    mintOffset: 168,
    source: "raydium-io/raydium-cp-swap programs/cp-swap/src/states/pool.rs PoolState::LEN, token_0_mint"
  },
  "raydium-clmm": {
    account: "PoolState",
    anchor: true,
    size: 1544,
    mintOffset: 73,
    source: "raydium-io/raydium-clmm programs/amm/src/states/pool.rs PoolState::LEN, token_mint_0"
  },
  "orca-whirlpool": {
    account: "Whirlpool",
    anchor: true,
    size: 653,
    mintOffset: 101,
    source: "@orca-so/whirlpools-client src/generated/accounts/whirlpool.ts getWhirlpoolSize, tokenMintA"
  },
  "meteora-dlmm": {
    account: "LbPair",
    anchor: true,
    size: 904,
    mintOffset: 88,
    source: "@meteora-ag/dlmm src/dlmm/idl.ts LbPair, tokenXMint"
  },
  "meteora-vault": {
    account: "Vault",
    anchor: true,
    size: 1227,
    mintOffset: 83,
    source: "@meteora-ag/vault-sdk src/vault/idl.ts vault, tokenMint"
  },
  "meteora-damm-v1": {
    // The real program keeps the tokens in Meteora's dynamic vaults; here the pool owns its vault.
    account: "Pool",
    anchor: true,
    size: 944,
    mintOffset: 40,
    source: "@meteora-ag/dynamic-amm-sdk src/amm/idl.ts Pool, tokenAMint"
  },
  "meteora-damm-v2": {
    account: "Pool",
    anchor: true,
    size: 1112,
    mintOffset: 168,
    source: "@meteora-ag/cp-amm-sdk src/idl/cp_amm.json Pool, token_a_mint"
  },
  "raydium-launchlab": {
    account: "PoolState",
    anchor: true,
    size: 429,
    mintOffset: 205,
    source: "raydium-io/raydium-cpi programs/launch-cpi/src/states.rs PoolState::LEN, base_mint"
  },
  "meteora-dbc": {
    account: "VirtualPool",
    anchor: true,
    size: 424,
    mintOffset: 136,
    source: "@meteora-ag/dynamic-bonding-curve-sdk src/idl/dynamic-bonding-curve/idl.json VirtualPool, base_mint"
  },
  "pump-fun": {
    // The curve stores no mint: it is the PDA ["bonding-curve", mint].
    account: "BondingCurve",
    anchor: true,
    size: 81,
    mintSeed: "bonding-curve",
    source: "@pump-fun/pump-sdk src/idl/pump.json BondingCurve (5 u64, complete, creator)"
  },
  pumpswap: {
    account: "Pool",
    anchor: true,
    size: 243,
    mintOffset: 43,
    source: "@pump-fun/pump-swap-sdk src/idl/pump_amm.json Pool, base_mint"
  },
  "raydium-lp-lock": {
    account: "LockedCpLiquidityState",
    anchor: true,
    size: 201,
    source: "raydium-io/raydium-cp-swap lock program LockedCpLiquidityState (the vault belongs to the lock authority)"
  },
  "jupiter-lock": {
    account: "VestingEscrow",
    anchor: true,
    size: 296,
    mintOffset: 40,
    source: "jup-ag/jup-lock programs/locker/src/state/vesting_escrow.rs VestingEscrow (INIT_SPACE 288 + 8)"
  },
  streamflow: {
    // Not Anchor: a fixed 1104-byte Contract with the mint after the magic, times and four keys.
    account: "Contract",
    anchor: false,
    size: 1104,
    mintOffset: 177,
    source: "@streamflow/stream solana/layout.ts streamLayout (METADATA_LEN 1104), mint"
  }
}

export const anchorDiscriminator = (account: string): Uint8Array =>
  new Uint8Array(createHash("sha256").update(`account:${account}`).digest().subarray(0, 8))
