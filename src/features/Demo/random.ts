import { base58 } from "@scure/base"

// mulberry32: a small seeded PRNG, so that the same seed always yields the same dataset.
export interface Random {
  readonly next: () => number
  readonly int: (min: number, max: number) => number
  readonly float: (min: number, max: number) => number
  readonly logUniform: (min: number, max: number) => number
  readonly chance: (probability: number) => boolean
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  readonly shuffle: <A>(items: ReadonlyArray<A>) => ReadonlyArray<A>
  readonly address: () => string
}

export const seededRandom = (seed: number): Random => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const float = (min: number, max: number): number => min + next() * (max - min)
  const pick = <A>(items: ReadonlyArray<A>): A => {
    const item = items[Math.floor(next() * items.length)]
    if (item === undefined) throw new RangeError("pick from an empty list")
    return item
  }
  const shuffle = <A>(items: ReadonlyArray<A>): ReadonlyArray<A> =>
    items
      .map((item) => ({ item, key: next() }))
      .sort((a, b) => a.key - b.key)
      .map(({ item }) => item)
  return {
    next,
    int,
    float,
    logUniform: (min, max) => Math.exp(float(Math.log(min), Math.log(max))),
    chance: (probability) => next() < probability,
    pick,
    shuffle,
    address: () => base58.encode(Uint8Array.from({ length: 32 }, () => int(0, 255)))
  }
}
