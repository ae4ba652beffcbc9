import type { Address } from "@solana/kit"

// What a scan reads from a pool program's state account (issue 14). Each venue's decoder lives beside
// this file with the package and file its layout was read from.

type PoolShape = "constant_product" | "concentrated" | "bins" | "bonding_curve"

export interface PoolState {
  /** The pool state account. */
  readonly address: Address
  /** Venue label, as in Programs.ts VENUES (e.g. "raydium-cpmm"). */
  readonly venue: string
  readonly shape: PoolShape
  /** Base / token0 / tokenX / tokenA, as the pool stores them. */
  readonly mintA: Address
  readonly mintB: Address
  /** Token accounts holding each side's reserves; the scan reads their balances. pump.fun: the curve's associated token account for the mint, and null for SOL (lamports). */
  readonly vaultA: Address | null
  readonly vaultB: Address | null
  /**
   * Other addresses the side-A vault may have when the decoder cannot tell the mint's token program
   * from the pool account (pump.fun: the curve's associated token account under Token-2022, for
   * create_v2 coins). The scan may read them too and keep the one that is a token account of mintA.
   */
  readonly vaultAAlternates?: ReadonlyArray<Address>
  /** Reserves the account stores itself where balances are not in a vault (pump.fun real_token_reserves / real_sol_reserves). */
  readonly storedReserves: { readonly a: bigint; readonly b: bigint } | null
  /** Where storedReserves come from when not the pool account itself: DAMM v1's shares of its Meteora vaults. */
  readonly reservesFrom?: "vault_shares"
  /** Price of one raw unit of A in raw units of B where the pool defines it apart from vault balances (sqrt price of CLMM/Whirlpool/DAMM v2, DLMM active bin, bonding-curve virtual reserves); null for plain constant-product pools (the scan uses vault balances). */
  readonly priceBPerA: number | null
  /** null where no LP mint exists (CLMM, Whirlpool, DLMM, DAMM v2 positions, bonding curves). */
  readonly lpMint: Address | null
  /** LP supply as the program tracks it (AMM v4 lp_amount, CPMM lp_supply, PumpSwap lp_supply); tokens burned = tracked - mint supply. null where the program does not track it. */
  readonly lpSupplyTracked: bigint | null
  /** LP the pool program itself records as locked (DAMM v1 total_locked_lp, through its LockEscrow accounts); absent elsewhere. */
  readonly lpLockedTracked?: bigint
  /**
   * Bonding curves: whether migrated/complete, and progress to migration in percent where readable from this
   * account alone; null otherwise. quoteDepth: the quote reserve the curve prices trades against, in raw
   * quote units (virtual + real), where the account defines one (pump.fun virtual_quote_reserves; LaunchLab
   * virtual_quote + real_quote); absent where it does not (Meteora DBC's price-range curve).
   */
  readonly curve: {
    readonly complete: boolean
    readonly progressPct: number | null
    readonly quoteDepth?: bigint
  } | null
  /** Other accounts whose data the figures need (e.g. the DBC pool's config for its migration threshold); the scan reads them with the vaults and passes them to `complete`. */
  readonly related: ReadonlyArray<Address>
  /** What a simulated sell into this pool needs beyond the fields above, for the venues whose swap the scan simulates (src/workers/Scanner/SellPath.ts). */
  readonly swap?: CpmmSwapState | PumpSwapSwapState
}

/**
 * Raydium CPMM's PoolState fields a swap reads (@raydium-io/raydium-sdk-v2 0.2.73-alpha
 * src/raydium/cpmm/layout.ts CpmmPoolInfoLayout), and its AmmConfig's fee rates (CpmmConfigInfoLayout)
 * once `complete` has read the config.
 */
export interface CpmmSwapState {
  readonly venue: "raydium-cpmm"
  /** configId (amm_config). */
  readonly ammConfig: Address
  /** observationId (observation_key). */
  readonly observationState: Address
  /** mintProgramA / mintProgramB. */
  readonly tokenProgramA: Address
  readonly tokenProgramB: Address
  /** protocolFeesMint + fundFeesMint + creatorFeesMint of each side: held by the vault, not traded against. */
  readonly feesOwedA: bigint
  readonly feesOwedB: bigint
  /** feeOn (the program's creator_fee_on): 0 both tokens, 1 token 0 only, 2 token 1 only. */
  readonly creatorFeeOn: number
  readonly enableCreatorFee: boolean
  /** status bits (bit 2: swaps disabled) and openTime: the program refuses swaps before it. */
  readonly status: number
  readonly openTime: bigint
  /** AmmConfig.tradeFeeRate and creatorFeeRate (per million); null until read, or when the config does not decode. */
  readonly config: { readonly tradeFeeRate: bigint; readonly creatorFeeRate: bigint } | null
}

/** PumpSwap fees in basis points (@pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json type `Fees`). */
export interface PumpFees {
  readonly lpBps: bigint
  readonly protocolBps: bigint
  readonly creatorBps: bigint
}

/** The pump fees program's FeeConfig (pump_amm.json account `FeeConfig`, read as src/sdk/offlinePumpAmm.ts versionedFeeConfigData reads it). */
export interface PumpFeeConfig {
  readonly flatFees: PumpFees
  readonly feeTiers: ReadonlyArray<{ readonly marketCapLamportsThreshold: bigint; readonly fees: PumpFees }>
  readonly stableFeeTiers: ReadonlyArray<{ readonly marketCapLamportsThreshold: bigint; readonly fees: PumpFees }>
  readonly exoticFlatFees: PumpFees
}

/** PumpSwap's GlobalConfig (pump_amm.json account `GlobalConfig`), the fields a sell reads. */
export interface PumpGlobalConfig {
  readonly fees: PumpFees
  /** Bit 4: sells disabled. */
  readonly disableFlags: number
  readonly protocolFeeRecipients: ReadonlyArray<Address>
  readonly reservedFeeRecipient: Address
  readonly reservedFeeRecipients: ReadonlyArray<Address>
  readonly buybackFeeRecipients: ReadonlyArray<Address>
  readonly creatorFeeConfigurable: boolean
}

/** PumpSwap's Pool fields a sell reads (pump_amm.json `Pool`), and the program-wide configs once `complete` has read them. */
export interface PumpSwapSwapState {
  readonly venue: "pumpswap"
  /** Pool.creator: pump's ["pool-authority", base_mint] for a canonical (migrated) pool. */
  readonly poolCreator: Address
  /** Pool.coin_creator (the zero address when unset or on pools written before the field). */
  readonly coinCreator: Address
  readonly isMayhemMode: boolean
  readonly isCashbackCoin: boolean
  /** Pool.virtual_quote_reserves (i128; 0 for most pools). */
  readonly virtualQuoteReserves: bigint
  /** Pool.creator_fee_bps (0 when unset). */
  readonly creatorFeeBps: bigint
  /** The pool account's size: below 300 bytes a trade is preceded by `extend_account`. */
  readonly dataLength: number
  /** GlobalConfig: null until read, or when it does not decode. */
  readonly global: PumpGlobalConfig | null
  /** FeeConfig: "absent" when no account exists (the GlobalConfig's fees apply, as the SDK does); null until read, or when it does not decode. */
  readonly feeConfig: PumpFeeConfig | "absent" | null
}

export interface PoolProgram {
  readonly venue: string
  readonly program: Address
  readonly shape: PoolShape
  /** The state account's size, for getProgramAccounts discovery (dataSize filter). */
  readonly dataSize: number
  /** Byte offsets of the mint fields, for getProgramAccounts discovery with dataSize + memcmp. */
  readonly mintOffsets: ReadonlyArray<number>
  /** Package and file the layout was read from. */
  readonly source: string
  /** Canonical pool addresses of (mint, each quote mint) where the program derives them as PDAs. Undefined: discovered with getProgramAccounts only. */
  readonly canonical?: (mint: Address, quotes: ReadonlyArray<Address>) => Promise<ReadonlyArray<Address>>
  /** undefined when the data is not this program's pool account (wrong size/discriminator). */
  readonly decode: (address: Address, data: Uint8Array) => PoolState | undefined
  /** Fills what needs `related` accounts (DBC migration progress from its config); identity when absent. */
  readonly complete?: (state: PoolState, related: ReadonlyArray<Uint8Array | null>) => PoolState
}
