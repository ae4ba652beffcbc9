import { describe, expect, test } from "bun:test"
import {
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress,
  isOffCurveAddress
} from "@solana/kit"
import { getWhirlpoolAddress } from "@orca-so/whirlpools-client"
import { findProgramAddress, isOnCurve, programDerivedAddress } from "../../../src/workers/Scanner/Pools/Curve.ts"
import { sortedPair } from "../../../src/workers/Scanner/Pools/Bytes.ts"
import { orcaWhirlpool } from "../../../src/workers/Scanner/Pools/Orca.ts"

// Curve.ts derives PDAs without kit's getProgramDerivedAddress: the same answers, checked against kit.

const P = 2n ** 255n - 19n
const littleEndian = (value: bigint, signBit: boolean): Uint8Array => {
  const bytes = new Uint8Array(32)
  let rest = value
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 255n)
    rest >>= 8n
  }
  if (signBit) bytes[31] = (bytes[31] ?? 0) | 0x80
  return bytes
}
const decoder = getAddressDecoder()
const kitOnCurve = (bytes: Uint8Array) => !isOffCurveAddress(decoder.decode(bytes))

describe("isOnCurve", () => {
  test("agrees with kit on random bytes (about half are points)", () => {
    const samples = Array.from({ length: 2_000 }, () => crypto.getRandomValues(new Uint8Array(32)))
    const ours = samples.map(isOnCurve)
    expect(ours).toEqual(samples.map(kitOnCurve))
    const points = ours.filter(Boolean).length
    expect(points).toBeGreaterThan(800)
    expect(points).toBeLessThan(1_200)
  })

  test("agrees with kit at the edges: y = 0, ±1, p and above, x = 0 with the sign bit, the top bit", () => {
    const values = [0n, 1n, 2n, P - 1n, P, P + 1n, P + 18n, 2n ** 255n - 1n]
    const edges = values.flatMap((value) => [littleEndian(value, false), littleEndian(value, true)])
    expect(edges.map(isOnCurve)).toEqual(edges.map(kitOnCurve))
    // y = 1 is the identity (x = 0): on the curve, but not with the sign bit set.
    expect(isOnCurve(littleEndian(1n, false))).toBe(true)
    expect(isOnCurve(littleEndian(1n, true))).toBe(false)
  })

  test("public keys are points", async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, async () => (await generateKeyPairSigner()).address))
    for (const key of keys) expect(isOffCurveAddress(key)).toBe(false)
    expect(keys.map((key) => isOnCurve(Uint8Array.from(getAddressEncoder().encode(key))))).toEqual(keys.map(() => true))
  })
})

describe("findProgramAddress", () => {
  test("derives kit's address and bump for random seeds, bytes and strings", async () => {
    const program = address("whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc")
    for (let i = 0; i < 100; i++) {
      const seeds = ["pool", crypto.getRandomValues(new Uint8Array(32)), crypto.getRandomValues(new Uint8Array(i % 33))]
      const ours = findProgramAddress(program, seeds)
      expect(ours).toEqual(await getProgramDerivedAddress({ programAddress: program, seeds }))
      expect(await programDerivedAddress({ programAddress: program, seeds })).toEqual(ours)
    }
  })

  test("refuses what kit refuses: a seed over 32 bytes, more than 16 seeds", () => {
    const program = address("whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc")
    expect(() => findProgramAddress(program, [new Uint8Array(33)])).toThrow(RangeError)
    expect(() =>
      findProgramAddress(
        program,
        Array.from({ length: 17 }, () => new Uint8Array(1))
      )
    ).toThrow(RangeError)
  })

  test("Orca's canonical pools are the client's getWhirlpoolAddress", async () => {
    const mint = (await generateKeyPairSigner()).address
    const quote = address("So11111111111111111111111111111111111111112")
    const [a, b] = sortedPair(mint, quote)
    const expected = await Promise.all(
      [1, 2, 4, 8, 16, 64, 128, 256].map(async (spacing) => (await getWhirlpoolAddress(a, b, spacing))[0])
    )
    expect(await orcaWhirlpool.canonical?.(mint, [quote])).toEqual(expected)
  })
})
