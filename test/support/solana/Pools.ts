import { readFileSync } from "node:fs"
import { getWhirlpoolAddress, getWhirlpoolEncoder } from "@orca-so/whirlpools-client"
import {
  type Address,
  type ReadonlyUint8Array,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  getU64Encoder,
  getUtf8Encoder
} from "@solana/kit"
import { getCreateAccountInstruction } from "@solana-program/system"
import {
  AccountState,
  getInitializeAccount3Instruction,
  getMintEncoder,
  getMintToInstruction,
  getTokenEncoder,
  TOKEN_PROGRAM_ADDRESS
} from "@solana-program/token"
import { VENUES, type Venue, authorityOf } from "../../../src/workers/Scanner/Programs.ts"
import { type Idl, IdlCoder } from "./AnchorIdl.ts"
import { encodeWithLayout, layoutFromBufferLayoutStatement, layoutsFromTypeScript } from "./LayoutText.ts"
import { anchorDiscriminator } from "./VenueLayouts.ts"
import { USDC } from "../../../src/workers/Scanner/Pools/Quotes.ts"
import { type BuiltMint, type Holder, NATIVE_MINT, type World } from "./World.ts"

// Pool and lock fixtures in their programs' real layouts, encoded from the layout descriptions the
// programs' packages ship (./idl/, see its README) and never from the decoders' offsets: Anchor IDL
// JSON through ./AnchorIdl.ts, Raydium's and Streamflow's buffer-layout files through ./LayoutText.ts,
// Orca through its official client's encoder. Vaults and LP mints are real token accounts and mints,
// filled by real token-program transactions in the LiteSVM world.

const IDL_DIR = new URL("./idl/", import.meta.url).pathname
const coder = (file: string): IdlCoder => new IdlCoder(JSON.parse(readFileSync(IDL_DIR + file, "utf8")) as Idl)
const IDL = {
  dlmm: coder("meteora_dlmm.json"),
  dammV1: coder("meteora_damm_v1.json"),
  dammV2: coder("meteora_damm_v2.json"),
  dbc: coder("meteora_dbc.json"),
  launchLab: coder("raydium_launchpad_instructions.json"),
  pump: coder("pump.json"),
  pumpAmm: coder("pump_amm.json"),
  jupiterLock: coder("jupiter_locker.json"),
  raydiumLock: coder("raydium_locking.json"),
  vault: coder("meteora_vault.json")
}
/** The Meteora dynamic vault program (meteora_vault.json address). */
const METEORA_VAULT = "24Uqj9JCLxUeoC3hGfh5W3s9FM9uCHDS2SG3LYwBpyTi" as Address
const RAYDIUM = {
  ...layoutsFromTypeScript(`${IDL_DIR}raydium_liquidity_layout.ts.txt`, ["liquidityStateV4Layout"]),
  ...layoutsFromTypeScript(`${IDL_DIR}raydium_cpmm_layout.ts.txt`, ["CpmmPoolInfoLayout", "CpmmConfigInfoLayout"]),
  // Constants the file imports, from the SDK's src/raydium/clmm/libraries/constants.ts.
  ...layoutsFromTypeScript(`${IDL_DIR}raydium_clmm_layout.ts.txt`, ["PoolInfoLayout"], {
    REWARD_NUM: 3,
    OBSERVATION_NUM: 100,
    OPERATION_SIZE_USIZE: 10,
    WHITE_MINT_SIZE_USIZE: 100,
    EXTENSION_TICKARRAY_BITMAP_SIZE: 14,
    TICK_ARRAY_SIZE: 60
  })
}
// CREATE_PARAMS_PADDING: @streamflow/stream dist/esm/solana/index.js (121). Accounts are 1104 bytes (METADATA_ACC_SIZE).
const STREAM_LAYOUT = layoutFromBufferLayoutStatement(`${IDL_DIR}streamflow_layout.js.txt`, "streamLayout", {
  CREATE_PARAMS_PADDING: 121
})

const addressBytes = (key: Address): Uint8Array => Uint8Array.from(getAddressEncoder().encode(key))
const u16le = (value: number): Uint8Array => Uint8Array.of(value & 0xff, value >> 8)
const u64le = (value: bigint): Uint8Array => Uint8Array.from(getU64Encoder().encode(value))
const randomAddress = async (): Promise<Address> => (await generateKeyPairSigner()).address
const venueOf = (label: string): Venue => {
  const venue = VENUES.find((candidate) => candidate.label === label)
  if (venue === undefined) throw new Error(`unknown venue ${label}`)
  return venue
}
/** Byte order, as the programs sort mints. */
const ordered = (a: Address, b: Address): readonly [Address, Address] => {
  const left = addressBytes(a)
  const right = addressBytes(b)
  for (let index = 0; index < 32; index++) {
    if (left[index] !== right[index]) return (left[index] ?? 0) < (right[index] ?? 0) ? [a, b] : [b, a]
  }
  return [a, b]
}
/** A Q64.64 square root of a price (raw B per raw A). */
const sqrtPriceQ64 = (price: number): bigint => BigInt(Math.round(Math.sqrt(price) * 2 ** 32)) << 32n

// ---- LP mints and locks -------------------------------------------------------------------------

export type LockerLabel = "jupiter-lock" | "streamflow" | "raydium-lp-lock"

export interface LpSpec {
  /** LP tokens sent to the incinerator's account. */
  readonly incinerated: bigint
  /** LP tokens in the locker's vault, and until when (ignored by the Raydium lock, which is permanent). */
  readonly locked: bigint
  readonly locker: LockerLabel
  readonly unlockAt: Date
  /** LP tokens of each wallet. */
  readonly wallets: ReadonlyArray<bigint>
  /** Burned with a Burn instruction from the first wallet after minting: tracked supply - mint supply. */
  readonly burned: bigint
}

export interface BuiltLock {
  readonly locker: LockerLabel
  /** The lock state account (owner: the locker program). */
  readonly state: Address
  /** Its token account holding the LP. */
  readonly vault: Address
  readonly amount: bigint
  readonly permanent: boolean
  readonly unlockAt: Date | null
  readonly cliffAt: Date | null
}

interface BuiltLp {
  readonly mint: BuiltMint
  /** Every LP token ever minted: what the pool program tracks (lp_amount / lp_supply). */
  readonly tracked: bigint
  /** The mint's supply after the burn. */
  readonly supply: bigint
  readonly incinerator: Holder
  readonly wallets: ReadonlyArray<Holder>
  readonly lock: BuiltLock
}

const seconds = (date: Date): bigint => BigInt(Math.floor(date.getTime() / 1000))

/** A lock state account of `locker` holding `amount` of `mint` (its vault filled by mintTo). */
export const buildLock = async (
  world: World,
  mint: BuiltMint,
  locker: LockerLabel,
  amount: bigint,
  unlockAt: Date,
  pool: Address
): Promise<BuiltLock> => {
  const venue = venueOf(locker)
  if (locker === "jupiter-lock") {
    // Vesting: a cliff a day before the end, then 4 periods of 6 hours.
    const state = await randomAddress()
    const vault = await world.fund(mint, state, amount)
    const end = seconds(unlockAt)
    const frequency = 6n * 3600n
    const periods = 4n
    const cliff = end - frequency * periods
    const perPeriod = amount / 8n
    const cliffAmount = amount - perPeriod * periods
    world.setAccount(
      state,
      venue.program,
      IDL.jupiterLock.encodeAccount(
        "VestingEscrow",
        {
          recipient: await randomAddress(),
          token_mint: mint.address,
          creator: mint.deployer.address,
          base: await randomAddress(),
          cliff_time: cliff,
          frequency,
          cliff_unlock_amount: cliffAmount,
          amount_per_period: perPeriod,
          number_of_period: periods,
          vesting_start_time: cliff
        },
        296
      )
    )
    return {
      locker,
      state,
      vault,
      amount,
      permanent: false,
      unlockAt: new Date(Number(end) * 1000),
      cliffAt: new Date(Number(cliff) * 1000)
    }
  }
  if (locker === "streamflow") {
    // A cliff 12 hours before the end releases the first part.
    const cliff = seconds(unlockAt) - 12n * 3600n
    const state = await randomAddress()
    const vault = await world.fund(mint, state, amount)
    const data = encodeWithLayout(
      STREAM_LAYOUT,
      {
        magic: u64le(0n),
        version: Uint8Array.of(2),
        created_at: u64le(BigInt(world.blockTime)),
        end_time: u64le(seconds(unlockAt)),
        start_time: u64le(BigInt(world.blockTime)),
        net_amount_deposited: u64le(amount),
        period: u64le(1n),
        amount_per_period: u64le(amount),
        cliff: u64le(cliff),
        // The layout reads keys as 32-byte blobs.
        sender: addressBytes(mint.deployer.address),
        recipient: addressBytes(await randomAddress()),
        mint: addressBytes(mint.address),
        escrow_tokens: addressBytes(vault)
      },
      1104
    )
    world.setAccount(state, venue.program, data)
    return {
      locker,
      state,
      vault,
      amount,
      permanent: false,
      unlockAt: new Date(Number(seconds(unlockAt)) * 1000),
      cliffAt: new Date(Number(cliff) * 1000)
    }
  }
  // Raydium Burn & Earn: the LP sits with the program-wide lock authority; the state is the PDA
  // ["locked_liquidity", fee_nft_mint] (raydium-locking-cpi LOCKED_LIQUIDITY_SEED).
  const feeNftMint = await randomAddress()
  const [state] = await getProgramDerivedAddress({
    programAddress: venue.program,
    seeds: [getUtf8Encoder().encode("locked_liquidity"), addressBytes(feeNftMint)]
  })
  const authority = await authorityOf(venue)
  if (authority === undefined) throw new Error("the Raydium lock has a program-wide authority")
  const vault = await world.fund(mint, authority, amount)
  world.setAccount(
    state,
    venue.program,
    IDL.raydiumLock.encodeAccount(
      "LockedCpLiquidityState",
      {
        locked_lp_amount: amount,
        last_lp: amount,
        recent_epoch: 800n,
        pool_id: pool,
        fee_nft_mint: feeNftMint,
        locked_owner: mint.deployer.address,
        locked_lp_mint: mint.address
      },
      256
    )
  )
  return { locker, state, vault, amount, permanent: true, unlockAt: null, cliffAt: null }
}

/** A real LP mint (created by transaction) with the spec's incinerated, locked and wallet holdings, and a burn. */
const buildLp = async (world: World, pool: Address, spec: LpSpec): Promise<BuiltLp> => {
  const mint = await world.mint({ decimals: 9 })
  const incinerator = await world.incinerate(mint, spec.incinerated)
  const wallets = await world.holders(
    mint,
    spec.wallets.map((amount) => ({ amount }))
  )
  const lock = await buildLock(world, mint, spec.locker, spec.locked, spec.unlockAt, pool)
  const tracked = spec.incinerated + spec.locked + spec.wallets.reduce((sum, amount) => sum + amount, 0n)
  const first = wallets[0]
  if (spec.burned > 0n) {
    if (first === undefined) throw new Error("a burn needs a wallet")
    await world.burn(mint, first, spec.burned)
  }
  return { mint, tracked, supply: tracked - spec.burned, incinerator, wallets, lock }
}

// ---- Pools --------------------------------------------------------------------------------------

export type PoolVenue =
  | "raydium-amm-v4"
  | "raydium-cpmm"
  | "raydium-clmm"
  | "orca-whirlpool"
  | "meteora-dlmm"
  | "meteora-damm-v1"
  | "meteora-damm-v2"
  | "meteora-dbc"
  | "raydium-launchlab"
  | "pump-fun"
  | "pumpswap"

export interface PoolSpec {
  /** The traded mint and its quote (WSOL / USDC from world.quoteMint). */
  readonly mint: BuiltMint
  readonly quote: BuiltMint
  /** Raw reserves of the mint and the quote. */
  readonly reserveMint: bigint
  readonly reserveQuote: bigint
  /** LP holdings, for the venues with an LP mint (AMM v4, CPMM, DAMM v1, PumpSwap). */
  readonly lp?: LpSpec
  /** CPMM: its fee settings (default CPMM_FIXTURE_FEES). */
  readonly cpmmFees?: CpmmFixtureFees
}

/**
 * The fee settings the CPMM fixture writes: its AmmConfig (CpmmConfigInfoLayout; Raydium's index-0 tier
 * charges a 0.25 % trade fee) and the pool's creator-fee flags and fees owed (CpmmPoolInfoLayout).
 */
export interface CpmmFixtureFees {
  /** AmmConfig.tradeFeeRate / creatorFeeRate, per million. */
  readonly tradeFeeRate: bigint
  readonly creatorFeeRate: bigint
  /** PoolState.enableCreatorFee and feeOn (0 both tokens, 1 token 0 only, 2 token 1 only). */
  readonly enableCreatorFee: boolean
  readonly feeOn: number
  /** protocolFeesMint + fundFeesMint + creatorFeesMint of each side (the vaults hold them on top of the reserves). */
  readonly owedMint: bigint
  readonly owedQuote: bigint
  /** PoolState.status bits (bit 2: swaps disabled); 0 when absent. */
  readonly status?: number
}
export const CPMM_FIXTURE_FEES: CpmmFixtureFees = {
  tradeFeeRate: 2_500n,
  creatorFeeRate: 500n,
  enableCreatorFee: true,
  feeOn: 0,
  owedMint: 0n,
  owedQuote: 0n
}

/** PumpSwap's fees in basis points (pump_amm.json `Fees`). */
export interface PumpFixtureFees {
  readonly lp_fee_bps: bigint
  readonly protocol_fee_bps: bigint
  readonly creator_fee_bps: bigint
}
/**
 * The program-wide accounts the PumpSwap fixture writes: GlobalConfig (its own fees, used only without
 * a FeeConfig) and the fee program's FeeConfig, whose SOL tiers by market cap (in lamports) set a
 * canonical pool's fees (@pump-fun/pump-swap-sdk src/sdk/fees.ts). Values are the fixture's own.
 */
export const PUMPSWAP_FIXTURE = {
  globalFees: { lp_fee_basis_points: 20n, protocol_fee_basis_points: 5n, coin_creator_fee_basis_points: 5n },
  flatFees: { lp_fee_bps: 25n, protocol_fee_bps: 5n, creator_fee_bps: 0n } as PumpFixtureFees,
  feeTiers: [
    { market_cap_lamports_threshold: 0n, fees: { lp_fee_bps: 2n, protocol_fee_bps: 93n, creator_fee_bps: 30n } },
    {
      market_cap_lamports_threshold: 50_000_000_000n,
      fees: { lp_fee_bps: 20n, protocol_fee_bps: 5n, creator_fee_bps: 95n }
    },
    {
      market_cap_lamports_threshold: 1_000_000_000_000n,
      fees: { lp_fee_bps: 20n, protocol_fee_bps: 5n, creator_fee_bps: 5n }
    }
  ] as ReadonlyArray<{ readonly market_cap_lamports_threshold: bigint; readonly fees: PumpFixtureFees }>,
  /** USDC-quoted canonical pools. */
  stableFeeTiers: [
    { market_cap_lamports_threshold: 0n, fees: { lp_fee_bps: 10n, protocol_fee_bps: 10n, creator_fee_bps: 10n } }
  ] as ReadonlyArray<{ readonly market_cap_lamports_threshold: bigint; readonly fees: PumpFixtureFees }>
} as const
/** The pump fees program (PumpSwap IDL's fee_program address). */
const PUMP_FEE_PROGRAM = "pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ" as Address

/** What a simulated swap into the pool needs that the fixture wrote besides the pool account. */
type BuiltSwap =
  | {
      readonly venue: "raydium-cpmm"
      readonly ammConfig: Address
      readonly observation: Address
      readonly fees: CpmmFixtureFees
    }
  | {
      readonly venue: "pumpswap"
      readonly globalConfig: Address
      readonly feeConfig: Address
      readonly protocolFeeRecipients: ReadonlyArray<Address>
      readonly buybackFeeRecipients: ReadonlyArray<Address>
      readonly coinCreator: Address
    }

/** What the fixture wrote, in the pool's own order of sides. */
export interface BuiltPool {
  readonly venue: PoolVenue
  readonly program: Address
  readonly address: Address
  readonly data: Uint8Array
  readonly mintA: Address
  readonly mintB: Address
  readonly vaultA: Address | null
  readonly vaultB: Address | null
  readonly priceBPerA: number | null
  readonly storedReserves: { readonly a: bigint; readonly b: bigint } | null
  readonly lp: BuiltLp | null
  /** quoteDepth: the quote reserve the curve prices on (virtual + real), where the venue's account defines one. */
  readonly curve: {
    readonly complete: boolean
    readonly progressPct: number | null
    readonly quoteDepth?: bigint
  } | null
  readonly related: ReadonlyArray<Address>
  /** DBC: its config account. */
  readonly config?: { readonly address: Address; readonly quoteMint: Address; readonly threshold: bigint }
  /** DAMM v1: total_locked_lp written. */
  readonly lpLockedTracked?: bigint
  /** CPMM and PumpSwap: the accounts and settings their swap reads. */
  readonly swap?: BuiltSwap
}

interface Sides {
  readonly mintA: BuiltMint
  readonly mintB: BuiltMint
  readonly reserveA: bigint
  readonly reserveB: bigint
}
const baseFirst = (spec: PoolSpec): Sides => ({
  mintA: spec.mint,
  mintB: spec.quote,
  reserveA: spec.reserveMint,
  reserveB: spec.reserveQuote
})
const sortedSides = (spec: PoolSpec): Sides => {
  const [first] = ordered(spec.mint.address, spec.quote.address)
  return first === spec.mint.address
    ? baseFirst(spec)
    : { mintA: spec.quote, mintB: spec.mint, reserveA: spec.reserveQuote, reserveB: spec.reserveMint }
}

const vaults = async (world: World, venue: Venue, pool: Address, sides: Sides) => {
  const owner = (await authorityOf(venue)) ?? pool
  return {
    vaultA: await world.fund(sides.mintA, owner, sides.reserveA),
    vaultB: await world.fund(sides.mintB, owner, sides.reserveB)
  }
}

/**
 * A vault that is not the owner's associated account: a fresh token account of `mint` owned by `owner`
 * holding `amount` (created, initialised and filled by real transactions; wrapped SOL by its lamports).
 * CPMM's vaults are per-pool PDAs ["pool_vault", pool, mint] under the program-wide authority
 * (@raydium-io/raydium-sdk-v2 src/raydium/cpmm/pda.ts getPdaVault), so two CPMM pools never share one;
 * only the pool state names them, so a keypair address stands in for the PDA.
 */
const vaultAccount = async (world: World, mint: BuiltMint, owner: Address, amount: bigint): Promise<Address> => {
  const account = await generateKeyPairSigner()
  const native = mint.address === "So11111111111111111111111111111111111111112"
  const rent = world.svm.minimumBalanceForRentExemption(165n)
  const fill =
    native || amount === 0n
      ? []
      : [
          getMintToInstruction(
            { mint: mint.address, token: account.address, mintAuthority: mint.mintAuthority!, amount },
            { programAddress: mint.program as typeof TOKEN_PROGRAM_ADDRESS }
          )
        ]
  await world.send(mint.deployer, [
    getCreateAccountInstruction({
      payer: mint.deployer,
      newAccount: account,
      lamports: rent + (native ? amount : 0n),
      space: 165n,
      programAddress: mint.program
    }),
    getInitializeAccount3Instruction(
      { account: account.address, mint: mint.address, owner },
      { programAddress: mint.program as typeof TOKEN_PROGRAM_ADDRESS }
    ),
    ...fill
  ])
  return account.address
}

/** Concatenates seeds for kit's PDA derivation. */
const pda = async (program: Address, seeds: ReadonlyArray<ReadonlyUint8Array>): Promise<Address> =>
  (await getProgramDerivedAddress({ programAddress: program, seeds: [...seeds] }))[0]

const requireLp = (spec: PoolSpec): LpSpec => {
  if (spec.lp === undefined) throw new Error("this venue has an LP mint: give spec.lp")
  return spec.lp
}

/** Writes a pool of `venue` for (mint, quote): state account, vaults, LP mint and lock, related accounts. */
export const buildPool = async (world: World, venue: PoolVenue, spec: PoolSpec): Promise<BuiltPool> => {
  const program = venueOf(venue).program
  const common = { venue, program, storedReserves: null, lp: null, curve: null, related: [] as ReadonlyArray<Address> }
  const price = (sides: Sides): number => Number(sides.reserveB) / Number(sides.reserveA)

  switch (venue) {
    case "raydium-amm-v4": {
      const sides = baseFirst(spec)
      const address = await randomAddress()
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const lp = await buildLp(world, address, requireLp(spec))
      const data = encodeWithLayout(RAYDIUM.liquidityStateV4Layout!, {
        status: 6n,
        nonce: 254n,
        baseDecimal: BigInt(sides.mintA.decimals),
        quoteDecimal: BigInt(sides.mintB.decimals),
        baseVault: vaultA,
        quoteVault: vaultB,
        baseMint: sides.mintA.address,
        quoteMint: sides.mintB.address,
        lpMint: lp.mint.address,
        marketId: await randomAddress(),
        lpReserve: lp.tracked
      })
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: null,
        lp
      }
    }
    case "raydium-cpmm": {
      // The pool PDA on config index 0: @raydium-io/raydium-sdk-v2 src/raydium/cpmm/pda.ts
      // (["amm_config", u16 big-endian], then ["pool", config, token_0, token_1]).
      const sides = sortedSides(spec)
      const config = await pda(program, [getUtf8Encoder().encode("amm_config"), Uint8Array.of(0, 0)])
      const address = await pda(program, [
        getUtf8Encoder().encode("pool"),
        addressBytes(config),
        addressBytes(sides.mintA.address),
        addressBytes(sides.mintB.address)
      ])
      // The vaults hold the reserves plus the fees the pool owes (protocol, fund, creator), which the
      // curve does not trade against: written as protocol fees.
      const fees = spec.cpmmFees ?? CPMM_FIXTURE_FEES
      const mintIsA = sides.mintA.address === spec.mint.address
      const owedA = mintIsA ? fees.owedMint : fees.owedQuote
      const owedB = mintIsA ? fees.owedQuote : fees.owedMint
      const authority = (await authorityOf(venueOf(venue)))!
      const vaultA = await vaultAccount(world, sides.mintA, authority, sides.reserveA + owedA)
      const vaultB = await vaultAccount(world, sides.mintB, authority, sides.reserveB + owedB)
      const lp = await buildLp(world, address, requireLp(spec))
      const observation = await randomAddress()
      const data = encodeWithLayout(RAYDIUM.CpmmPoolInfoLayout!, {
        configId: config,
        poolCreator: spec.mint.deployer.address,
        vaultA,
        vaultB,
        mintLp: lp.mint.address,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        mintProgramA: sides.mintA.program,
        mintProgramB: sides.mintB.program,
        observationId: observation,
        bump: 255,
        status: fees.status ?? 0,
        lpDecimals: 9,
        mintDecimalA: sides.mintA.decimals,
        mintDecimalB: sides.mintB.decimals,
        lpAmount: lp.tracked,
        protocolFeesMintA: owedA,
        protocolFeesMintB: owedB,
        openTime: BigInt(world.blockTime),
        feeOn: fees.feeOn,
        enableCreatorFee: fees.enableCreatorFee
      })
      data.set(anchorDiscriminator("PoolState"), 0)
      world.setAccount(address, program, data)
      // Its AmmConfig at the index-0 PDA (a shared account: the last pool built sets its rates).
      const configData = encodeWithLayout(RAYDIUM.CpmmConfigInfoLayout!, {
        bump: 255,
        disableCreatePool: false,
        index: 0,
        tradeFeeRate: fees.tradeFeeRate,
        protocolFeeRate: 120_000n,
        fundFeeRate: 40_000n,
        createPoolFee: 150_000_000n,
        protocolOwner: spec.mint.deployer.address,
        fundOwner: spec.mint.deployer.address,
        creatorFeeRate: fees.creatorFeeRate
      })
      configData.set(anchorDiscriminator("AmmConfig"), 0)
      world.setAccount(config, program, configData)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: null,
        lp,
        related: [config],
        swap: { venue: "raydium-cpmm", ammConfig: config, observation, fees }
      }
    }
    case "raydium-clmm": {
      const sides = sortedSides(spec)
      const address = await randomAddress()
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const sqrtPriceX64 = sqrtPriceQ64(price(sides))
      const data = encodeWithLayout(RAYDIUM.PoolInfoLayout!, {
        bump: 255,
        configId: await randomAddress(),
        creator: spec.mint.deployer.address,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        observationId: await randomAddress(),
        mintDecimalsA: sides.mintA.decimals,
        mintDecimalsB: sides.mintB.decimals,
        tickSpacing: 60,
        liquidity: 10n ** 12n,
        sqrtPriceX64,
        tickCurrent: -1000
      })
      data.set(anchorDiscriminator("PoolState"), 0)
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: (Number(sqrtPriceX64) / 2 ** 64) ** 2
      }
    }
    case "orca-whirlpool": {
      const sides = sortedSides(spec)
      const [address] = await getWhirlpoolAddress(sides.mintA.address, sides.mintB.address, 64)
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const sqrtPrice = sqrtPriceQ64(price(sides))
      const reward = {
        mint: "11111111111111111111111111111111" as Address,
        vault: "11111111111111111111111111111111" as Address,
        extension: new Uint8Array(32),
        emissionsPerSecondX64: 0n,
        growthGlobalX64: 0n
      }
      const data = Uint8Array.from(
        getWhirlpoolEncoder().encode({
          whirlpoolsConfig: "2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ" as Address,
          whirlpoolBump: Uint8Array.of(255),
          tickSpacing: 64,
          feeTierIndexSeed: u16le(64),
          feeRate: 3000,
          protocolFeeRate: 1300,
          liquidity: 10n ** 12n,
          sqrtPrice,
          tickCurrentIndex: -1000,
          protocolFeeOwedA: 0n,
          protocolFeeOwedB: 0n,
          tokenMintA: sides.mintA.address,
          tokenVaultA: vaultA,
          feeGrowthGlobalA: 0n,
          tokenMintB: sides.mintB.address,
          tokenVaultB: vaultB,
          feeGrowthGlobalB: 0n,
          rewardLastUpdatedTimestamp: 0n,
          rewardInfos: [reward, reward, reward]
        })
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: (Number(sqrtPrice) / 2 ** 64) ** 2
      }
    }
    case "meteora-dlmm": {
      // deriveLbPair2 (@meteora-ag/dlmm src/dlmm/helpers/derive.ts): [min, max, bin_step LE, base_factor LE].
      const sides = baseFirst(spec)
      const binStep = 80
      const [min, max] = ordered(sides.mintA.address, sides.mintB.address)
      const address = await pda(program, [addressBytes(min), addressBytes(max), u16le(binStep), u16le(10_000)])
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const activeId = Math.round(Math.log(price(sides)) / Math.log(1 + binStep / 10_000))
      const data = IDL.dlmm.encodeAccount(
        "LbPair",
        {
          parameters: { base_factor: 10_000 },
          bin_step_seed: u16le(binStep),
          base_factor_seed: u16le(10_000),
          active_id: activeId,
          bin_step: binStep,
          token_x_mint: sides.mintA.address,
          token_y_mint: sides.mintB.address,
          reserve_x: vaultA,
          reserve_y: vaultB,
          oracle: await randomAddress(),
          creator: spec.mint.deployer.address
        },
        904
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: (1 + binStep / 10_000) ** activeId
      }
    }
    case "meteora-damm-v1": {
      // The tokens of a DAMM v1 pool sit in Meteora dynamic vaults: each side's Vault account (vault
      // program, its IDL), the vault's LP mint at ["lp_mint", vault], and the pool's share of that LP in
      // a_vault_lp / b_vault_lp. Each vault holds twice the pool's reserve plus half a locked profit that
      // is half degraded (other depositors hold the other half of the vault's LP), so the pool's share of
      // the withdrawable amount is exactly its reserve.
      const sides = baseFirst(spec)
      const address = await randomAddress()
      const lp = await buildLp(world, address, requireLp(spec))
      const side = async (mint: BuiltMint, reserve: bigint) => {
        const vault = await randomAddress()
        const lpMint = (
          await getProgramDerivedAddress({
            programAddress: METEORA_VAULT,
            seeds: [getUtf8Encoder().encode("lp_mint"), addressBytes(vault)]
          })
        )[0]
        const tokenVault = await world.fund(mint, vault, reserve * 2n)
        return { mint, reserve, vault, lpMint, tokenVault, shares: await randomAddress() }
      }
      const sidesBuilt = [await side(sides.mintA, sides.reserveA), await side(sides.mintB, sides.reserveB)] as const
      // Written after the funding transactions, at the world's current time: 1,000 s since the last report.
      for (const { mint, reserve, vault, lpMint, tokenVault, shares } of sidesBuilt) {
        const lockedProfit = 2_000_000n
        world.setAccount(
          vault,
          METEORA_VAULT,
          IDL.vault.encodeAccount(
            "Vault",
            {
              enabled: 1,
              totalAmount: reserve * 2n + lockedProfit / 2n,
              tokenVault,
              tokenMint: mint.address,
              lpMint,
              lockedProfitTracker: {
                lastUpdatedLockedProfit: lockedProfit,
                lastReport: BigInt(world.blockTime) - 1_000n,
                lockedProfitDegradation: 500_000_000n
              }
            },
            1227
          )
        )
        world.setAccount(
          lpMint,
          TOKEN_PROGRAM_ADDRESS,
          Uint8Array.from(
            getMintEncoder().encode({
              mintAuthority: vault,
              supply: 2_000_000_000n,
              decimals: mint.decimals,
              isInitialized: true,
              freezeAuthority: null
            })
          )
        )
        world.setAccount(
          shares,
          TOKEN_PROGRAM_ADDRESS,
          Uint8Array.from(
            getTokenEncoder().encode({
              mint: lpMint,
              owner: address,
              amount: 1_000_000_000n,
              delegate: null,
              state: AccountState.Initialized,
              isNative: null,
              delegatedAmount: 0n,
              closeAuthority: null
            })
          )
        )
      }
      const [a, b] = sidesBuilt
      const data = IDL.dammV1.encodeAccount(
        "Pool",
        {
          lp_mint: lp.mint.address,
          token_a_mint: sides.mintA.address,
          token_b_mint: sides.mintB.address,
          a_vault: a.vault,
          b_vault: b.vault,
          a_vault_lp: a.shares,
          b_vault_lp: b.shares,
          enabled: true,
          pool_type: { __kind: "Permissionless" },
          total_locked_lp: lp.lock.amount
        },
        944
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA: null,
        vaultB: null,
        priceBPerA: null,
        lp,
        storedReserves: { a: sides.reserveA, b: sides.reserveB },
        related: [
          a.vault,
          b.vault,
          a.shares,
          b.shares,
          a.lpMint,
          b.lpMint,
          "SysvarC1ock11111111111111111111111111111111" as Address
        ],
        lpLockedTracked: lp.lock.amount
      }
    }
    case "meteora-damm-v2": {
      const sides = baseFirst(spec)
      const address = await randomAddress()
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const sqrtPrice = sqrtPriceQ64(price(sides))
      const data = IDL.dammV2.encodeAccount(
        "Pool",
        {
          token_a_mint: sides.mintA.address,
          token_b_mint: sides.mintB.address,
          token_a_vault: vaultA,
          token_b_vault: vaultB,
          liquidity: 10n ** 20n,
          sqrt_price: sqrtPrice,
          creator: spec.mint.deployer.address,
          token_a_amount: sides.reserveA,
          token_b_amount: sides.reserveB
        },
        1112
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: (Number(sqrtPrice) / 2 ** 64) ** 2
      }
    }
    case "meteora-dbc": {
      const sides = baseFirst(spec)
      const address = await randomAddress()
      const config = await randomAddress()
      const threshold = sides.reserveB * 4n
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      world.setAccount(
        config,
        program,
        IDL.dbc.encodeAccount(
          "PoolConfig",
          {
            quote_mint: sides.mintB.address,
            migration_quote_threshold: threshold,
            token_decimal: sides.mintA.decimals
          },
          1048
        )
      )
      const sqrtPrice = sqrtPriceQ64(price(sides))
      const data = IDL.dbc.encodeAccount(
        "VirtualPool",
        {
          pool_state: {
            config,
            creator: spec.mint.deployer.address,
            base_mint: sides.mintA.address,
            base_vault: vaultA,
            quote_vault: vaultB,
            base_reserve: sides.reserveA,
            quote_reserve: sides.reserveB,
            sqrt_price: sqrtPrice,
            is_migrated: 0,
            migration_progress: 0
          }
        },
        424
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: (Number(sqrtPrice) / 2 ** 64) ** 2,
        storedReserves: { a: sides.reserveA, b: sides.reserveB },
        curve: { complete: false, progressPct: 25 },
        related: [config],
        config: { address: config, quoteMint: sides.mintB.address, threshold }
      }
    }
    case "raydium-launchlab": {
      // PoolState at ["pool", base, quote] (raydium-cpi launch-cpi states.rs POOL_SEED), vaults under the
      // program's authority; a constant-product curve that has sold (total_base_sell - reserveMint).
      const sides = baseFirst(spec)
      const address = await pda(program, [
        getUtf8Encoder().encode("pool"),
        addressBytes(sides.mintA.address),
        addressBytes(sides.mintB.address)
      ])
      const globalConfig = await randomAddress()
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      world.setAccount(
        globalConfig,
        program,
        IDL.launchLab.encodeAccount("GlobalConfig", { curve_type: 0, quote_mint: sides.mintB.address }, 371)
      )
      const totalSell = 793_100_000_000_000n
      const sold = totalSell > sides.reserveA ? totalSell - sides.reserveA : 0n
      const virtualBase = 1_073_000_000_000_000n
      const virtualQuote = 30_000_000_000n
      const data = IDL.launchLab.encodeAccount(
        "PoolState",
        {
          status: 0,
          base_decimals: sides.mintA.decimals,
          quote_decimals: sides.mintB.decimals,
          supply: 1_000_000_000_000_000n,
          total_base_sell: totalSell,
          virtual_base: virtualBase,
          virtual_quote: virtualQuote,
          real_base: sold,
          real_quote: sides.reserveB,
          total_quote_fund_raising: sides.reserveB * 4n,
          global_config: globalConfig,
          base_mint: sides.mintA.address,
          quote_mint: sides.mintB.address,
          base_vault: vaultA,
          quote_vault: vaultB,
          creator: spec.mint.deployer.address
        },
        429
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: Number(virtualQuote + sides.reserveB) / Number(virtualBase - sold),
        curve: { complete: false, progressPct: 25, quoteDepth: virtualQuote + sides.reserveB },
        related: [globalConfig]
      }
    }
    case "pump-fun": {
      // ["bonding-curve", mint] (@pump-fun/pump-sdk src/pda.ts bondingCurvePda); SOL reserves in lamports.
      const address = await pda(program, [getUtf8Encoder().encode("bonding-curve"), addressBytes(spec.mint.address)])
      const initialReal = 793_100_000_000_000n
      const sold = initialReal - spec.reserveMint
      const virtualToken = 1_073_000_000_000_000n - sold
      const virtualQuote = 30_000_000_000n + spec.reserveQuote
      const vaultA = await world.fund(spec.mint, address, spec.reserveMint)
      const data = IDL.pump.encodeAccount(
        "BondingCurve",
        {
          virtual_token_reserves: virtualToken,
          virtual_quote_reserves: virtualQuote,
          real_token_reserves: spec.reserveMint,
          real_quote_reserves: spec.reserveQuote,
          token_total_supply: 1_000_000_000_000_000n,
          complete: false,
          creator: spec.mint.deployer.address
        },
        125
      )
      world.setAccount(address, program, data)
      return {
        ...common,
        address,
        data,
        mintA: spec.mint.address,
        mintB: spec.quote.address,
        vaultA,
        vaultB: null,
        priceBPerA: Number(virtualQuote) / Number(virtualToken),
        storedReserves: { a: spec.reserveMint, b: spec.reserveQuote },
        curve: {
          complete: false,
          progressPct: Number((sold * 1_000_000n) / initialReal) / 10_000,
          quoteDepth: virtualQuote
        }
      }
    }
    case "pumpswap": {
      // Canonical pool: ["pool", index 0 u16 LE, pump ["pool-authority", mint], base, quote] (@pump-fun/pump-sdk src/pda.ts).
      const sides = baseFirst(spec)
      const authority = await pda(venueOf("pump-fun").program, [
        getUtf8Encoder().encode("pool-authority"),
        addressBytes(spec.mint.address)
      ])
      const address = await pda(program, [
        getUtf8Encoder().encode("pool"),
        u16le(0),
        addressBytes(authority),
        addressBytes(sides.mintA.address),
        addressBytes(sides.mintB.address)
      ])
      const { vaultA, vaultB } = await vaults(world, venueOf(venue), address, sides)
      const lp = await buildLp(world, address, requireLp(spec))
      const data = IDL.pumpAmm.encodeAccount(
        "Pool",
        {
          pool_bump: 255,
          index: 0,
          creator: authority,
          base_mint: sides.mintA.address,
          quote_mint: sides.mintB.address,
          lp_mint: lp.mint.address,
          pool_base_token_account: vaultA,
          pool_quote_token_account: vaultB,
          lp_supply: lp.tracked,
          coin_creator: spec.mint.deployer.address
        },
        270
      )
      world.setAccount(address, program, data)
      // The program-wide GlobalConfig (["global_config"]) and the fee program's FeeConfig (["fee_config",
      // PumpSwap's id]), PDAs as @pump-fun/pump-swap-sdk src/sdk/pda.ts derives them.
      const globalConfig = await pda(program, [getUtf8Encoder().encode("global_config")])
      const feeConfig = await pda(PUMP_FEE_PROGRAM, [getUtf8Encoder().encode("fee_config"), addressBytes(program)])
      const protocolFeeRecipients = await Promise.all(Array.from({ length: 8 }, randomAddress))
      const buybackFeeRecipients = await Promise.all(Array.from({ length: 8 }, randomAddress))
      const reserved = await Promise.all(Array.from({ length: 7 }, randomAddress))
      world.setAccount(
        globalConfig,
        program,
        IDL.pumpAmm.encodeAccount(
          "GlobalConfig",
          {
            admin: spec.mint.deployer.address,
            ...PUMPSWAP_FIXTURE.globalFees,
            disable_flags: 0n,
            protocol_fee_recipients: protocolFeeRecipients,
            reserved_fee_recipient: await randomAddress(),
            reserved_fee_recipients: reserved,
            buyback_fee_recipients: buybackFeeRecipients,
            buyback_basis_points: 0n,
            creator_fee_configurable: false
          },
          949
        )
      )
      world.setAccount(
        feeConfig,
        PUMP_FEE_PROGRAM,
        IDL.pumpAmm.encodeAccount(
          "FeeConfig",
          {
            bump: 255,
            admin: spec.mint.deployer.address,
            flat_fees: PUMPSWAP_FIXTURE.flatFees,
            fee_tiers: PUMPSWAP_FIXTURE.feeTiers,
            stable_fee_tiers: PUMPSWAP_FIXTURE.stableFeeTiers,
            exotic_flat_fees: PUMPSWAP_FIXTURE.flatFees
          },
          4097
        )
      )
      return {
        ...common,
        address,
        data,
        mintA: sides.mintA.address,
        mintB: sides.mintB.address,
        vaultA,
        vaultB,
        priceBPerA: null,
        lp,
        related: [globalConfig, feeConfig],
        swap: {
          venue: "pumpswap",
          globalConfig,
          feeConfig,
          protocolFeeRecipients,
          buybackFeeRecipients,
          coinCreator: spec.mint.deployer.address
        }
      }
    }
  }
}

/**
 * The world's quote mints (wrapped SOL, USDC) and the reference SOL–USDC Whirlpool the scanner prices SOL
 * through: 1,000 SOL against 150,000 USDC, so SOL/USD is 150.
 */
export const referenceMarket = async (world: World) => {
  const wsol = await world.quoteMint(NATIVE_MINT, 9)
  const usdc = await world.quoteMint(USDC, 6)
  const reference = await buildPool(world, "orca-whirlpool", {
    mint: wsol,
    quote: usdc,
    reserveMint: 1_000_000_000_000n,
    reserveQuote: 150_000_000_000n
  })
  return { wsol, usdc, reference }
}
