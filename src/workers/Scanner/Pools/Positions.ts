import {
  getLockConfigAddress,
  getLockConfigDecoder,
  getLockConfigDiscriminatorBytes,
  getLockConfigSize,
  getPositionDecoder,
  getPositionDiscriminatorBytes,
  getPositionSize
} from "@orca-so/whirlpools-client"
import type { Address } from "@solana/kit"
import { venueProgram } from "../Programs.ts"
import {
  addressAt,
  anchorAccountDiscriminator,
  findProgramAddressSync,
  startsWith,
  u128At,
  u64At,
  u8At
} from "./Bytes.ts"

// The position accounts of concentrated-liquidity and bin pools: who holds the liquidity a pool without
// an LP mint has. A scan finds a pool's positions with one getProgramAccounts (the account type and the
// pool's address), each layout with where it was read.

export interface PositionRead {
  readonly address: Address
  /** The NFT whose holder owns the position (Whirlpool, CLMM); null where the account names its owner. */
  readonly nftMint: Address | null
  /** The owner the account names (DLMM); null where the NFT's holder is the owner. */
  readonly owner: Address | null
  readonly liquidity: bigint
}

export interface PositionLayout {
  readonly venue: string
  readonly program: Address
  /** Bytes at offset 0 (the account discriminator): a getProgramAccounts memcmp filter. */
  readonly discriminator: Uint8Array
  /** A dataSize filter where every position has one size; null where positions grow (DLMM). */
  readonly dataSize: number | null
  /** Offset of the pool's address: a memcmp filter. */
  readonly poolOffset: number
  /** The part of each account the call returns (DLMM positions are 8 KB and more). */
  readonly dataSlice: { readonly offset: number; readonly length: number } | null
  /** The position from the (sliced) data; undefined when it does not decode. */
  readonly decode: (address: Address, data: Uint8Array) => PositionRead | undefined
  /** Whether the position is locked, read from other accounts; absent where locks are not read. */
  readonly lock?: {
    /** The accounts that say it (read in one call with the other positions'). */
    readonly accounts: (position: Address, pool: Address) => Promise<ReadonlyArray<Address>>
    /** From those accounts (null: no account): true locked, false not, null when they cannot tell. */
    readonly locked: (
      position: Address,
      accounts: ReadonlyArray<{ readonly owner: Address; readonly data: Uint8Array } | null>,
      now: { readonly slot: bigint; readonly unixTime: bigint }
    ) => boolean | null
  }
  /** A locker whose holding of the position NFT locks the position for good (no extra read); absent where none. */
  readonly lockHolder?: { readonly address: Address; readonly label: string; readonly source: string }
  readonly source: string
}

// Orca Whirlpool: @orca-so/whirlpools-client 7.0.0 src/generated/accounts/position.ts (getPositionDecoder,
// getPositionSize 216): discriminator 8, whirlpool 8, position_mint 40, liquidity u128 72, ... Bundled
// positions name the bundle's NFT, whose holder owns every position of the bundle.
const whirlpool: PositionLayout = {
  venue: "orca-whirlpool",
  program: venueProgram("orca-whirlpool"),
  discriminator: Uint8Array.from(getPositionDiscriminatorBytes()),
  dataSize: getPositionSize(),
  poolOffset: 8,
  dataSlice: null,
  decode: (address, data) => {
    if (data.length !== getPositionSize() || !startsWith(data, Uint8Array.from(getPositionDiscriminatorBytes())))
      return undefined
    const position = getPositionDecoder().decode(data)
    return { address, nftMint: position.positionMint, owner: null, liquidity: position.liquidity }
  },
  // lock_position writes a LockConfig at ["lock_config", position] (src/generated/pdas/lockConfig.ts
  // getLockConfigAddress, accounts/lockConfig.ts): its only lock type is Permanent, and the program then
  // refuses to decrease the position's liquidity.
  lock: {
    accounts: async (position) => [(await getLockConfigAddress(position))[0]],
    locked: (position, [config]) =>
      config !== null &&
      config !== undefined &&
      config.owner === venueProgram("orca-whirlpool") &&
      config.data.length === getLockConfigSize() &&
      startsWith(config.data, Uint8Array.from(getLockConfigDiscriminatorBytes())) &&
      getLockConfigDecoder().decode(config.data).position === position
  },
  source: "@orca-so/whirlpools-client 7.0.0 src/generated/accounts/position.ts getPositionDecoder, lockConfig.ts"
}

// Raydium CLMM: @raydium-io/raydium-sdk-v2 0.2.73-alpha src/raydium/clmm/layout.ts PersonalPositionLayout
// (raydium-io/raydium-clmm programs/amm/src/states/personal_position.rs PersonalPositionState, LEN 281):
// discriminator 8, bump 8, nft_mint 9, pool_id 41, tick_lower 73, tick_upper 77, liquidity u128 81, ...
const CLMM_POSITION_SIZE = 281
const CLMM_POSITION_DISCRIMINATOR = anchorAccountDiscriminator("PersonalPositionState")
const raydiumClmm: PositionLayout = {
  venue: "raydium-clmm",
  program: venueProgram("raydium-clmm"),
  discriminator: CLMM_POSITION_DISCRIMINATOR,
  dataSize: CLMM_POSITION_SIZE,
  poolOffset: 41,
  dataSlice: null,
  decode: (address, data) =>
    data.length !== CLMM_POSITION_SIZE || !startsWith(data, CLMM_POSITION_DISCRIMINATOR)
      ? undefined
      : { address, nftMint: addressAt(data, 9), owner: null, liquidity: u128At(data, 81) },
  // Raydium's locking program (raydium-io/raydium-cpi programs/locking-cpi: lock_clmm_position moves the
  // NFT to an account of the authority PDA ["program_authority_seed"], LOCK_CLMM_AUTH_SEED; the program
  // has no unlock, only fee collection): an NFT held there is locked for good.
  lockHolder: {
    address: findProgramAddressSync(venueProgram("raydium-lp-lock"), [
      new TextEncoder().encode("program_authority_seed")
    ]),
    label: "raydium-lp-lock",
    source: "raydium-io/raydium-cpi programs/locking-cpi LOCK_CLMM_AUTH_SEED"
  },
  source: "@raydium-io/raydium-sdk-v2 src/raydium/clmm/layout.ts PersonalPositionLayout"
}

// Meteora DLMM: MeteoraAg/dlmm-sdk ts-client/src/dlmm/idl/idl.json (program lb_clmm 0.12.0, as in
// @meteora-ag/dlmm 1.9.14) PositionV2, 8,120 bytes and more (positions wider than 70 bins are extended):
// discriminator 8, lb_pair 8, owner 40, liquidity_shares [u128; 70] 72, reward_infos, fee_infos,
// lower_bin_id, upper_bin_id, ..., operator 7960, lock_release_point u64 7992, ... The call returns
// lb_pair, owner and the 70 shares (offset 8, 1,184 bytes); an extended position's further bins are not
// summed. Locks: lock_release_point ("time point which the locked liquidity can be withdrawn") is a slot or
// a unix time as the pair's LbPair.activation_type says (offset 86: 0 slot, 1 timestamp); the top
// positions and their pair are read whole with the locks of the other venues.
const DLMM_POSITION_DISCRIMINATOR = anchorAccountDiscriminator("PositionV2")
const DLMM_BINS = 70
const DLMM_LOCK_RELEASE_POINT = 7992
const DLMM_PAIR_DISCRIMINATOR = anchorAccountDiscriminator("LbPair")
const DLMM_ACTIVATION_TYPE = 86
const meteoraDlmm: PositionLayout = {
  venue: "meteora-dlmm",
  program: venueProgram("meteora-dlmm"),
  discriminator: DLMM_POSITION_DISCRIMINATOR,
  dataSize: null,
  poolOffset: 8,
  dataSlice: { offset: 8, length: 64 + 16 * DLMM_BINS },
  decode: (address, data) => {
    if (data.length !== 64 + 16 * DLMM_BINS) return undefined
    let liquidity = 0n
    for (let bin = 0; bin < DLMM_BINS; bin++) liquidity += u128At(data, 64 + 16 * bin)
    return { address, nftMint: null, owner: addressAt(data, 32), liquidity }
  },
  lock: {
    accounts: async (position, pool) => [position, pool],
    locked: (_position, [position, pair], now) => {
      if (
        position === null ||
        position === undefined ||
        pair === null ||
        pair === undefined ||
        !startsWith(position.data, DLMM_POSITION_DISCRIMINATOR) ||
        position.data.length < DLMM_LOCK_RELEASE_POINT + 8 ||
        !startsWith(pair.data, DLMM_PAIR_DISCRIMINATOR) ||
        pair.data.length <= DLMM_ACTIVATION_TYPE
      )
        return null
      const point = u64At(position.data, DLMM_LOCK_RELEASE_POINT)
      const type = u8At(pair.data, DLMM_ACTIVATION_TYPE)
      if (point === 0n) return false
      return type === 0 ? point > now.slot : type === 1 ? point > now.unixTime : null
    }
  },
  source: "MeteoraAg/dlmm-sdk ts-client/src/dlmm/idl/idl.json PositionV2"
}

const LAYOUTS: ReadonlyMap<string, PositionLayout> = new Map(
  [whirlpool, raydiumClmm, meteoraDlmm].map((layout) => [layout.venue, layout])
)

/** The position layout of a venue's pools; undefined for venues whose liquidity is not held in positions. */
export const positionLayoutOf = (venue: string): PositionLayout | undefined => LAYOUTS.get(venue)
