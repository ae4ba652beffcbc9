import { readFileSync } from "node:fs"
import {
  getLockConfigAddress,
  getLockConfigEncoder,
  getPositionEncoder,
  getPositionSize,
  LockTypeLabel
} from "@orca-so/whirlpools-client"
import { type Address, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit"
import { VENUES } from "../../../src/workers/Scanner/Programs.ts"
import { type Idl, IdlCoder } from "./AnchorIdl.ts"
import { encodeWithLayout, layoutsFromTypeScript } from "./LayoutText.ts"
import { anchorDiscriminator } from "./VenueLayouts.ts"
import type { World } from "./World.ts"

// Liquidity positions of concentrated-liquidity and bin pools, in their programs' real layouts (encoded
// from the layout descriptions the packages ship, ./idl/, never from the decoders' offsets):
// - Orca Whirlpool: Position through @orca-so/whirlpools-client's getPositionEncoder; its position NFT
//   is a real mint (supply 1) whose holder's token account is made by real transactions.
// - Raydium CLMM: PersonalPositionState through the SDK's PersonalPositionLayout (raydium_clmm_layout.ts.txt),
//   with its NFT made the same way.
// - Meteora DLMM: PositionV2 through the IDL (meteora_dlmm.json), which names the owner itself.

const IDL_DIR = new URL("./idl/", import.meta.url).pathname
const DLMM = new IdlCoder(JSON.parse(readFileSync(`${IDL_DIR}meteora_dlmm.json`, "utf8")) as Idl)
// Constants the layout file imports, from the SDK's src/raydium/clmm/libraries/constants.ts.
const CLMM = layoutsFromTypeScript(`${IDL_DIR}raydium_clmm_layout.ts.txt`, ["PersonalPositionLayout"], {
  REWARD_NUM: 3,
  OBSERVATION_NUM: 100,
  OPERATION_SIZE_USIZE: 10,
  WHITE_MINT_SIZE_USIZE: 100,
  EXTENSION_TICKARRAY_BITMAP_SIZE: 14,
  TICK_ARRAY_SIZE: 60
})
/** raydium-io/raydium-clmm PersonalPositionState::LEN. */
const CLMM_POSITION_SIZE = 281
/** PositionV2 without extension: 8 + the IDL's fields. */
const DLMM_POSITION_SIZE = 8120

const programOf = (label: string): Address => {
  const venue = VENUES.find((candidate) => candidate.label === label)
  if (venue === undefined) throw new Error(`unknown venue ${label}`)
  return venue.program
}
const randomAddress = async (): Promise<Address> => (await generateKeyPairSigner()).address

export interface BuiltPosition {
  readonly address: Address
  /** The position NFT (Whirlpool, CLMM); null for DLMM. */
  readonly nftMint: Address | null
  /** Who holds the NFT or is named as the owner. */
  readonly owner: Address
  readonly liquidity: bigint
}

/** A position NFT: a real mint of supply 1 in the owner's associated account. */
const positionNft = async (world: World, owner: KeyPairSigner | Address): Promise<Address> => {
  const nft = await world.mint({ decimals: 0 })
  await world.holders(nft, [{ owner, amount: 1n }])
  return nft.address
}

const ownerAddress = (owner: KeyPairSigner | Address): Address => (typeof owner === "string" ? owner : owner.address)

/** An Orca Whirlpool position of `pool` whose NFT `owner` holds. */
export const whirlpoolPosition = async (
  world: World,
  pool: Address,
  owner: KeyPairSigner | Address,
  liquidity: bigint
): Promise<BuiltPosition> => {
  const address = await randomAddress()
  const nftMint = await positionNft(world, owner)
  const data = getPositionEncoder().encode({
    whirlpool: pool,
    positionMint: nftMint,
    liquidity,
    tickLowerIndex: -128,
    tickUpperIndex: 128,
    feeGrowthCheckpointA: 0n,
    feeOwedA: 0n,
    feeGrowthCheckpointB: 0n,
    feeOwedB: 0n,
    rewardInfos: Array.from({ length: 3 }, () => ({ growthInsideCheckpoint: 0n, amountOwed: 0n }))
  })
  if (data.length !== getPositionSize()) throw new Error("Whirlpool position size")
  world.setAccount(address, programOf("orca-whirlpool"), Uint8Array.from(data))
  return { address, nftMint, owner: ownerAddress(owner), liquidity }
}

/** A Raydium CLMM personal position of `pool` whose NFT `owner` holds. */
export const clmmPosition = async (
  world: World,
  pool: Address,
  owner: KeyPairSigner | Address,
  liquidity: bigint
): Promise<BuiltPosition> => {
  const address = await randomAddress()
  const nftMint = await positionNft(world, owner)
  const data = encodeWithLayout(
    CLMM.PersonalPositionLayout!,
    { bump: 254, nftMint, poolId: pool, tickLower: -120, tickUpper: 120, liquidity },
    CLMM_POSITION_SIZE
  )
  data.set(anchorDiscriminator("PersonalPositionState"), 0)
  world.setAccount(address, programOf("raydium-clmm"), data)
  return { address, nftMint, owner: ownerAddress(owner), liquidity }
}

/**
 * A Meteora DLMM position of `pair` owned by `owner`, its liquidity shares spread over `bins` bins, locked
 * until `lockReleasePoint` (a slot for the fixture's pairs, activation_type 0; 0: not locked).
 */
export const dlmmPosition = async (
  world: World,
  pair: Address,
  owner: Address,
  sharesPerBin: bigint,
  bins: number,
  lockReleasePoint = 0n
): Promise<BuiltPosition> => {
  const address = await randomAddress()
  const shares = Array.from({ length: 70 }, (_, bin) => (bin < bins ? sharesPerBin : 0n))
  const data = DLMM.encodeAccount(
    "PositionV2",
    {
      lb_pair: pair,
      owner,
      liquidity_shares: shares,
      lower_bin_id: -35,
      upper_bin_id: 34,
      operator: owner,
      lock_release_point: lockReleasePoint
    },
    DLMM_POSITION_SIZE
  )
  world.setAccount(address, programOf("meteora-dlmm"), data)
  return { address, nftMint: null, owner, liquidity: sharesPerBin * BigInt(bins) }
}

/** Orca's lock_position: a LockConfig at ["lock_config", position] (permanent, the only lock type). */
export const lockWhirlpoolPosition = async (world: World, position: BuiltPosition, pool: Address): Promise<void> => {
  const [address] = await getLockConfigAddress(position.address)
  const data = getLockConfigEncoder().encode({
    position: position.address,
    positionOwner: position.owner,
    whirlpool: pool,
    lockedTimestamp: BigInt(world.blockTime),
    lockType: LockTypeLabel.Permanent
  })
  world.setAccount(address, programOf("orca-whirlpool"), Uint8Array.from(data))
}
