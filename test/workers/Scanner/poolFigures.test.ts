import { describe, expect, test } from "bun:test"
import type { Address } from "@solana/kit"
import { liquidityOf, type PoolRead, poolFiguresOf, type QuotePrice } from "../../../src/workers/Scanner/PoolFigures.ts"
import type { PoolState } from "../../../src/workers/Scanner/Pools/Venue.ts"

// The arithmetic from what a scan read to the evidence's figures, on hand-computed cases. The scans of
// real-layout pools in LiteSVM (pools.test.ts, scan.test.ts) check the same figures end to end.

const MINT = "Mint111111111111111111111111111111111111111" as Address
const WSOL = "So11111111111111111111111111111111111111112" as Address
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as Address
const OTHER = "Other11111111111111111111111111111111111111" as Address
const at = (n: number) => `Pool${String(n).padStart(39, "1")}` as Address
const quotes = new Map<string, QuotePrice>([
  [WSOL, { usd: 150, decimals: 9 }],
  [USDC, { usd: 1, decimals: 6 }]
])

const state = (overrides: Partial<PoolState>): PoolState => ({
  address: at(1),
  venue: "raydium-cpmm",
  shape: "constant_product",
  mintA: MINT,
  mintB: WSOL,
  vaultA: at(2),
  vaultB: at(3),
  storedReserves: null,
  priceBPerA: null,
  lpMint: null,
  lpSupplyTracked: null,
  curve: null,
  related: [],
  ...overrides
})
const read = (pool: PoolState, overrides: Partial<PoolRead> = {}): PoolRead => ({
  state: pool,
  slot: 42,
  balanceA: null,
  balanceB: null,
  missing: null,
  lpSupply: null,
  lpHolders: null,
  lpMissing: null,
  ...overrides
})
const holder = (
  kind: "burn" | "locker" | "holder",
  amount: bigint,
  unlockAt: Date | null = null,
  permanent: boolean | null = null
) => ({
  owner: at(10 + Number(amount % 7n)),
  tokenAccount: at(20 + Number(amount % 7n)),
  amount,
  kind,
  label: kind === "locker" ? "jupiter-lock" : null,
  unlockAt,
  permanent
})

describe("pool figures", () => {
  test("a constant-product pool against SOL: price, liquidity in USD, LP burned by supply and incinerator, locked, unlocked", () => {
    const unlock = new Date("2027-01-01T00:00:00.000Z")
    const pool = state({ lpMint: at(4), lpSupplyTracked: 1_000n })
    const figures = poolFiguresOf(
      read(pool, {
        balanceA: 1_000_000_000_000n, // 1,000,000 tokens of 6 decimals
        balanceB: 100_000_000_000n, // 100 SOL
        lpSupply: 600n, // 400 burned through the token program
        lpHolders: [holder("burn", 100n), holder("locker", 300n, unlock), holder("holder", 200n)]
      }),
      MINT,
      6,
      quotes,
      ""
    )
    // 100 SOL / 1,000,000 tokens = 0.0001 SOL = $0.015; both sides $15,000.
    expect(figures.priceUsd).toBeCloseTo(0.015, 12)
    expect(figures.liquidityUsd).toBe(30_000)
    expect(figures.fact.reserves).toEqual({
      status: "observed",
      value: { mintAmount: "1000000000000", quoteAmount: "100000000000", source: "vaults" }
    })
    expect(figures.fact.quoteMint).toBe(WSOL as never)
    expect(figures.fact.slot).toBe(42)
    expect(figures.fact.burnedPct).toEqual({ status: "observed", value: 50 })
    expect(figures.fact.lockedPct).toEqual({ status: "observed", value: 30 })
    expect(figures.fact.unlockedPct).toEqual({ status: "observed", value: 20 })
    expect(figures.fact.locker).toBe("jupiter-lock")
    expect(figures.fact.unlockAt).toBe("2027-01-01T00:00:00.000Z")
    expect(figures.fact.bondingCurve?.status).toBe("not_applicable")
    expect(figures.lp).toEqual({ burnedPct: 50, lockedPct: 30, unlockAt: unlock })
  })

  test("a concentrated pool with the mint as token B: the pool's own price, inverted; LP not applicable", () => {
    // 1 raw SOL unit = 2,000 raw token units (6 decimals): 1 SOL = 2,000,000 tokens... no: 1e9 raw SOL = 2e12 raw = 2,000,000 tokens.
    const pool = state({ venue: "orca-whirlpool", shape: "concentrated", mintA: WSOL, mintB: MINT, priceBPerA: 2_000 })
    const figures = poolFiguresOf(
      read(pool, { balanceA: 10_000_000_000n, balanceB: 5_000_000_000_000n }),
      MINT,
      6,
      quotes,
      ""
    )
    // token = 1/2,000,000 SOL = $0.000075; 10 SOL = $1,500; 5,000,000 tokens = $375.
    expect(figures.priceUsd).toBeCloseTo(0.000075, 12)
    expect(figures.liquidityUsd).toBe(1_875)
    expect(figures.fact.lpHolders?.status).toBe("not_applicable")
    expect(figures.fact.burnedPct.status).toBe("not_applicable")
    expect(figures.lp).toBeNull()
  })

  test("a bonding curve: only the quote side is liquidity; progress carried; LP not applicable until migration", () => {
    const pool = state({
      venue: "pump-fun",
      shape: "bonding_curve",
      vaultB: null,
      storedReserves: { a: 700_000_000_000_000n, b: 20_000_000_000n },
      priceBPerA: 30_000_000_000 / 1_073_000_000_000_000,
      curve: { complete: false, progressPct: 11.74 }
    })
    const figures = poolFiguresOf(
      read(pool, { balanceA: 700_000_000_000_000n, balanceB: 20_000_000_000n }),
      MINT,
      6,
      quotes,
      ""
    )
    expect(figures.liquidityUsd).toBe(3_000) // 20 SOL × $150
    expect(figures.priceUsd).toBeCloseTo((30 / 1_073_000_000) * 150, 12)
    expect(figures.fact.reserves).toMatchObject({ status: "observed", value: { source: "stored" } })
    expect(figures.fact.bondingCurve).toEqual({ status: "observed", value: { complete: false, progressPct: 11.74 } })
    expect(figures.fact.lockedPct.status).toBe("not_applicable")
  })

  test("a pool against an unpriced token: reserves observed, price and liquidity not observed with the reason", () => {
    const figures = poolFiguresOf(
      read(state({ mintB: OTHER }), { balanceA: 10n, balanceB: 20n }),
      MINT,
      6,
      quotes,
      "only SOL, USDC and USDT are priced"
    )
    expect(figures.fact.reserves?.status).toBe("observed")
    expect(figures.fact.liquidityUsd).toEqual({
      status: "not_observed",
      reason: `quote ${OTHER} has no USD price in this scan (only SOL, USDC and USDT are priced)`
    })
    expect(figures.liquidityUsd).toBeNull()
  })

  test("LP holders not read: LP facts not observed, never zero", () => {
    const figures = poolFiguresOf(
      read(state({ lpMint: at(4) }), { balanceA: 1n, balanceB: 1n, lpMissing: "LP holders: call budget spent" }),
      MINT,
      6,
      quotes,
      ""
    )
    expect(figures.fact.burnedPct).toEqual({ status: "not_observed", reason: "LP holders: call budget spent" })
    expect(figures.fact.unlockedPct.status).toBe("not_observed")
  })
})

describe("liquidity summary", () => {
  const deep = poolFiguresOf(
    read(state({ lpMint: at(4), lpSupplyTracked: 100n }), {
      balanceA: 1_000_000_000_000n,
      balanceB: 100_000_000_000n,
      lpSupply: 100n,
      lpHolders: [holder("burn", 100n)]
    }),
    MINT,
    6,
    quotes,
    ""
  )
  const shallow = poolFiguresOf(
    read(state({ address: at(5), venue: "meteora-dlmm", shape: "bins", mintB: USDC, priceBPerA: 0.02 }), {
      balanceA: 10_000_000n,
      balanceB: 1_000_000_000n
    }),
    MINT,
    6,
    quotes,
    ""
  )
  const solUsd = {
    status: "observed" as const,
    value: { value: 150, pool: at(9) as never, venue: "orca-whirlpool", slot: 42 }
  }

  test("total, count, price from the deepest pool, market cap over the circulating supply, LP secured", () => {
    const summary = liquidityOf([shallow, deep], [], solUsd, 2_000_000, 500_000)
    expect(summary.liquidityUsd).toEqual({ status: "observed", value: 30_000 + 1_000 + 10 * 0.02 })
    expect(summary.poolCount).toEqual({ status: "observed", value: 2 })
    expect(summary.priceUsd).toEqual({
      status: "observed",
      value: { value: deep.priceUsd!, pool: at(1) as never, venue: "raydium-cpmm", slot: 42 }
    })
    expect(summary.circulatingSupply).toEqual({ status: "observed", value: 1_500_000 })
    expect(summary.marketCapUsd).toEqual({ status: "observed", value: 22_500 })
    expect(summary.lpLocked).toEqual({ status: "observed", value: true })
    expect(summary.lpLockedPct).toEqual({ status: "observed", value: 100 })
    expect(summary.lpLockExpiresAt.status).toBe("not_applicable")
  })

  test("incomplete discovery: count and total not observed (a pool may be missing), the pools read still listed", () => {
    const summary = liquidityOf(
      [deep],
      ["raydium-amm-v4 pools (mint at offset 400): call budget spent"],
      solUsd,
      2_000_000,
      0
    )
    expect(summary.poolCount.status).toBe("not_observed")
    expect(summary.liquidityUsd.status).toBe("not_observed")
    expect(summary.liquidityUsd.status === "not_observed" ? summary.liquidityUsd.reason : "").toContain(
      "call budget spent"
    )
    expect(summary.pools.status === "observed" ? summary.pools.value.length : 0).toBe(1)
  })

  test("no pool at all, discovery complete: zero liquidity and zero pools observed (no market)", () => {
    const summary = liquidityOf([], [], solUsd, 1_000, 0)
    expect(summary.liquidityUsd).toEqual({ status: "observed", value: 0 })
    expect(summary.poolCount).toEqual({ status: "observed", value: 0 })
    expect(summary.priceUsd?.status).toBe("not_observed")
    expect(summary.lpLocked.status).toBe("not_applicable")
  })
})
