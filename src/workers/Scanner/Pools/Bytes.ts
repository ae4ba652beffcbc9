import { createHash } from "node:crypto"
import { type Address, getAddressDecoder, getAddressEncoder } from "@solana/kit"
import { findProgramAddress } from "./Curve.ts"

// Reading pool accounts at fixed offsets, and the few derivations the decoders need synchronously
// (a decoder runs on bytes already read; kit's getProgramDerivedAddress is async).

const addressDecoder = getAddressDecoder()
const addressEncoder = getAddressEncoder()
/**
 * An address's 32 bytes (base58-decoded with bigint arithmetic: a cost at every PDA seed), remembered for
 * the last KEY_BYTES addresses. Shared: callers only read them.
 */
export const keyBytes = (key: Address): Uint8Array => {
  const known = decoded.get(key)
  if (known !== undefined) return known
  const bytes = Uint8Array.from(addressEncoder.encode(key))
  decoded.set(key, bytes)
  if (decoded.size > KEY_BYTES) {
    const oldest = decoded.keys().next()
    if (oldest.done !== true) decoded.delete(oldest.value)
  }
  return bytes
}
const KEY_BYTES = 4_096
const decoded = new Map<string, Uint8Array>()

/** The all-zero key Anchor programs store for "none" (`Pubkey::default()`). */
export const DEFAULT_ADDRESS = "11111111111111111111111111111111" as Address

export const view = (data: Uint8Array): DataView => new DataView(data.buffer, data.byteOffset, data.byteLength)

export const addressAt = (data: Uint8Array, offset: number): Address => addressDecoder.decode(data, offset)
export const u8At = (data: Uint8Array, offset: number): number => data[offset] ?? 0
export const u16At = (data: Uint8Array, offset: number): number => view(data).getUint16(offset, true)
export const i32At = (data: Uint8Array, offset: number): number => view(data).getInt32(offset, true)
export const u64At = (data: Uint8Array, offset: number): bigint => view(data).getBigUint64(offset, true)
export const u128At = (data: Uint8Array, offset: number): bigint =>
  u64At(data, offset) | (u64At(data, offset + 8) << 64n)

/** Anchor's account discriminator: sha256("account:<Name>")[0..8]. */
export const anchorAccountDiscriminator = (name: string): Uint8Array =>
  new Uint8Array(createHash("sha256").update(`account:${name}`).digest().subarray(0, 8))

export const startsWith = (data: Uint8Array, prefix: Uint8Array): boolean =>
  data.length >= prefix.length && prefix.every((byte, index) => data[index] === byte)

/** Byte order of two keys, as the programs sort mints (Pubkey's Ord compares the 32 bytes). */
const compareAddresses = (a: Address, b: Address): number => {
  const left = keyBytes(a)
  const right = keyBytes(b)
  for (let index = 0; index < 32; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return difference
  }
  return 0
}

export const sortedPair = (a: Address, b: Address): readonly [Address, Address] =>
  compareAddresses(a, b) <= 0 ? [a, b] : [b, a]

/** Pubkey::find_program_address, synchronously: the address (Curve.ts findProgramAddress). */
export const findProgramAddressSync = (program: Address, seeds: ReadonlyArray<Uint8Array>): Address =>
  findProgramAddress(program, seeds)[0]

/** The associated token account of (owner, mint) under a token program: seeds [owner, token program, mint]. */
export const associatedTokenAddressSync = (owner: Address, mint: Address, tokenProgram: Address): Address =>
  findProgramAddressSync("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address, [
    keyBytes(owner),
    keyBytes(tokenProgram),
    keyBytes(mint)
  ])

const TWO_64 = 2 ** 64

/** (sqrt_price / 2^64)^2 for a Q64.64 square-root price: raw units of token B per raw unit of token A. */
export const priceFromSqrtQ64 = (sqrtPrice: bigint): number => {
  const root = Number(sqrtPrice) / TWO_64
  return root * root
}
