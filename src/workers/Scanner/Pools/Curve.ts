import { createHash } from "node:crypto"
import { type Address, getAddressDecoder, getAddressEncoder, type ReadonlyUint8Array } from "@solana/kit"

// Program derived addresses without kit's costs: a PDA is the first sha256(seeds ‖ [bump] ‖ program ‖
// "ProgramDerivedAddress"), bump 255 down, that is not a compressed ed25519 point. Kit hashes with
// crypto.subtle (async), goes through base58 for each candidate, and tests the point with generic bigint
// modular reductions (~430 µs a test on the bench machine); a scan derives about 60 PDAs of ~2 candidates,
// the largest CPU cost of a launch's scan. Here: node:crypto's sha256, the bytes tested as they are, and
// the square test as a Jacobi symbol (~4-5 times faster than kit's in the same run). Same answers as
// kit's isOffCurveAddress (test/workers/Scanner/curve.test.ts compares them on random and edge points).

const P = 2n ** 255n - 19n
const LOW_255 = 2n ** 255n - 1n
/** The twisted Edwards curve's d: -121665/121666 mod p. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n

/** x mod p for 0 <= x < 2^512 (products of two reduced values): 2^255 = 19 (mod p), folded twice. */
const reduce = (x: bigint): bigint => {
  const once = (x & LOW_255) + 19n * (x >> 255n)
  const twice = (once & LOW_255) + 19n * (once >> 255n)
  return twice >= P ? twice - P : twice
}
/**
 * The Legendre symbol (w/p) as the Jacobi symbol, by the binary algorithm (reciprocity, then a remainder):
 * 1 when w is a non-zero square mod p, -1 when not. About 500 small bigint steps, where Euler's criterion
 * w^((p-1)/2) takes 265 multiplications of 255-bit numbers: 4-5 times faster on the bench machine.
 */
const legendre = (w: bigint): number => {
  let a = w
  let n = P
  let sign = 1
  while (a !== 0n) {
    let twos = 0
    while ((a & 1n) === 0n) {
      a >>= 1n
      twos++
    }
    // (2/n) = -1 when n = 3 or 5 (mod 8)
    if (twos % 2 === 1 && ((n & 7n) === 3n || (n & 7n) === 5n)) sign = -sign
    // Reciprocity: (a/n)(n/a) = -1 when both are 3 (mod 4)
    if ((a & 3n) === 3n && (n & 3n) === 3n) sign = -sign
    const previous = a
    a = n % previous
    n = previous
  }
  return n === 1n ? sign : 0
}

/**
 * Whether 32 bytes decompress to a point of ed25519, as kit's compressedPointBytesAreOnCurve decides:
 * y (the low 255 bits, little-endian) is on the curve when x^2 = (y^2 - 1) / (d y^2 + 1) has a root, that
 * is when (y^2 - 1)(d y^2 + 1) is a square or zero (d y^2 + 1 is never zero: -1/d is not a square); the
 * root x = 0 with the sign bit set is refused.
 */
export const isOnCurve = (bytes: ReadonlyUint8Array): boolean => {
  if (bytes.length !== 32) return false
  let y = 0n
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? (bytes[i] ?? 0) & 0x7f : (bytes[i] ?? 0))
  const y2 = reduce(y * y)
  const u = reduce(y2 + P - 1n)
  const v = reduce(reduce(D * y2) + 1n)
  const w = reduce(u * v)
  if (w === 0n) return ((bytes[31] ?? 0) & 0x80) === 0
  // w < p, so the symbol is never 0 here.
  return legendre(w) === 1
}

const addressDecoder = getAddressDecoder()
const addressEncoder = getAddressEncoder()
const utf8 = new TextEncoder()
const MARKER = utf8.encode("ProgramDerivedAddress")

/**
 * Pubkey::find_program_address, synchronously: the address and its bump. Seeds are bytes or UTF-8
 * strings, at most 16 of at most 32 bytes each (kit's getProgramDerivedAddress's limits).
 */
export const findProgramAddress = (
  program: Address,
  seeds: ReadonlyArray<ReadonlyUint8Array | string>
): readonly [Address, number] => {
  const bytes = seeds.map((seed) => (typeof seed === "string" ? utf8.encode(seed) : seed))
  if (bytes.length > 16) throw new RangeError(`at most 16 seeds; got ${bytes.length}`)
  const long = bytes.findIndex((seed) => seed.length > 32)
  if (long !== -1) throw new RangeError(`seed ${long} is longer than 32 bytes`)
  const programBytes = addressEncoder.encode(program)
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash("sha256")
    for (const seed of bytes) hash.update(seed as Uint8Array)
    const candidate = hash
      .update(Uint8Array.of(bump))
      .update(programBytes as Uint8Array)
      .update(MARKER)
      .digest()
    if (!isOnCurve(candidate)) return [addressDecoder.decode(candidate), bump]
  }
  throw new Error("no viable bump seed")
}

/** findProgramAddress in the shape of kit's getProgramDerivedAddress, for the derivations that used it. */
export const programDerivedAddress = (input: {
  readonly programAddress: Address
  readonly seeds: ReadonlyArray<ReadonlyUint8Array | string>
}): Promise<readonly [Address, number]> => Promise.resolve(findProgramAddress(input.programAddress, input.seeds))
