import { beforeAll, describe, expect, test } from "bun:test"
import { getMintDecoder, getTokenDecoder } from "@solana-program/token"
import { type Address, getAddressEncoder } from "@solana/kit"
import { decodeLock } from "../../../src/workers/Scanner/Pools/Lockers.ts"
import { QUOTE_MINTS, USDC, USDT, WSOL } from "../../../src/workers/Scanner/Pools/Quotes.ts"
import { POOL_PROGRAMS, type PoolProgram, type PoolState } from "../../../src/workers/Scanner/Pools/Venue.ts"
import { findProgramAddressSync } from "../../../src/workers/Scanner/Pools/Bytes.ts"
import {
  decodePumpFeeConfig,
  pumpPoolAuthority,
  pumpSwapFeesOf,
  PUMPSWAP_FEE_CONFIG,
  PUMPSWAP_GLOBAL_CONFIG
} from "../../../src/workers/Scanner/Pools/Pump.ts"
import type { PumpFees, PumpSwapSwapState } from "../../../src/workers/Scanner/Pools/Types.ts"
import {
  type BuiltPool,
  CPMM_FIXTURE_FEES,
  type LockerLabel,
  type LpSpec,
  type PoolVenue,
  PUMPSWAP_FIXTURE,
  buildLock,
  buildPool
} from "../../support/solana/Pools.ts"
import { type BuiltMint, NATIVE_MINT, type World, makeWorld } from "../../support/solana/World.ts"

// Each venue's pool account, written by the fixture from the program's published layout (IDL JSON,
// the SDK's layout file, Orca's client encoder), read back from LiteSVM and decoded by the scanner's
// decoders: they must give back exactly what was built.

let world: World
let wsol: BuiltMint
let usdc: BuiltMint

beforeAll(async () => {
  world = makeWorld()
  wsol = await world.quoteMint(NATIVE_MINT, 9)
  usdc = await world.quoteMint(USDC, 6)
})

const programOf = (venue: string): PoolProgram => {
  const program = POOL_PROGRAMS.find((candidate) => candidate.venue === venue)
  if (program === undefined) throw new Error(`no pool program ${venue}`)
  return program
}

const accountData = (at: Address): { readonly owner: Address; readonly data: Uint8Array } => {
  const account = world.svm.getAccount(at)
  if (account === null || !account.exists) throw new Error(`no account ${at}`)
  return { owner: account.programAddress, data: Uint8Array.from(account.data) }
}

const tokenAmount = (at: Address): { readonly mint: Address; readonly amount: bigint } => {
  const token = getTokenDecoder().decode(accountData(at).data)
  return { mint: token.mint, amount: token.amount }
}

const lpSpec = (locker: LockerLabel): LpSpec => ({
  incinerated: 400_000_000n,
  locked: 300_000_000n,
  locker,
  unlockAt: new Date(Date.UTC(2026, 11, 31, 12)),
  wallets: [200_000_000n, 100_000_000n],
  burned: 50_000_000n
})

const VENUES: ReadonlyArray<{
  readonly venue: PoolVenue
  readonly quote: "wsol" | "usdc"
  readonly locker?: LockerLabel
  readonly pda: boolean
}> = [
  { venue: "raydium-amm-v4", quote: "wsol", locker: "streamflow", pda: false },
  { venue: "raydium-cpmm", quote: "wsol", locker: "raydium-lp-lock", pda: true },
  { venue: "raydium-clmm", quote: "usdc", pda: false },
  { venue: "orca-whirlpool", quote: "wsol", pda: true },
  { venue: "meteora-dlmm", quote: "usdc", pda: true },
  { venue: "meteora-damm-v1", quote: "wsol", locker: "jupiter-lock", pda: false },
  { venue: "meteora-damm-v2", quote: "wsol", pda: false },
  { venue: "meteora-dbc", quote: "wsol", pda: false },
  { venue: "raydium-launchlab", quote: "wsol", pda: true },
  { venue: "pump-fun", quote: "wsol", pda: true },
  { venue: "pumpswap", quote: "wsol", locker: "jupiter-lock", pda: true }
]

const relativelyClose = (actual: number | null, expected: number | null): void => {
  if (expected === null) return void expect(actual).toBeNull()
  expect(actual).not.toBeNull()
  expect(Math.abs((actual ?? 0) / expected - 1)).toBeLessThan(1e-9)
}

describe("pool decoders read back the fixtures", () => {
  for (const entry of VENUES) {
    test(entry.venue, async () => {
      const mint = await world.mint({ decimals: 6 })
      const quote = entry.quote === "wsol" ? wsol : usdc
      const reserveQuote = entry.quote === "wsol" ? 42_000_000_000n : 12_345_000_000n
      const built: BuiltPool = await buildPool(world, entry.venue, {
        mint,
        quote,
        reserveMint: 593_100_000_000_000n,
        reserveQuote,
        ...(entry.locker === undefined ? {} : { lp: lpSpec(entry.locker) })
      })
      const program = programOf(entry.venue)
      const { owner, data } = accountData(built.address)
      expect(owner).toBe(program.program)

      // Canonical derivation finds the fixture's address where the program derives its pools.
      const canonical = program.canonical === undefined ? [] : await program.canonical(mint.address, [quote.address])
      if (entry.pda) expect(canonical).toContain(built.address)
      else expect(program.canonical).toBeUndefined()
      if (entry.pda) expect(canonical.length).toBeLessThanOrEqual(10)

      // Discovery: the size and the mint at one of the memcmp offsets, as getProgramAccounts filters.
      if (!entry.pda) {
        expect(data.length).toBe(program.dataSize)
        const mintBytes = getAddressEncoder().encode(mint.address)
        expect(
          program.mintOffsets.some((offset) => mintBytes.every((byte, index) => data[offset + index] === byte))
        ).toBe(true)
      }

      const decoded = program.decode(built.address, data)
      if (decoded === undefined) throw new Error("did not decode")
      let state: PoolState = decoded
      if (program.complete !== undefined)
        state = program.complete(
          state,
          state.related.map((at) => accountData(at).data)
        )

      expect(state.address).toBe(built.address)
      expect(state.venue).toBe(entry.venue)
      expect(state.shape).toBe(program.shape)
      expect(state.mintA).toBe(built.mintA)
      expect(state.mintB).toBe(built.mintB)
      expect([state.mintA, state.mintB]).toContain(mint.address)
      expect(state.vaultA).toBe(built.vaultA)
      expect(state.vaultB).toBe(built.vaultB)
      expect(state.storedReserves).toEqual(built.storedReserves)
      relativelyClose(state.priceBPerA, built.priceBPerA)
      expect(state.curve).toEqual(built.curve)
      expect(state.related).toEqual(built.related)
      if (built.lpLockedTracked !== undefined) expect(state.lpLockedTracked).toBe(built.lpLockedTracked)

      // The vaults are real token accounts of the pool's mints holding the reserves.
      for (const [vault, side] of [
        [state.vaultA, state.mintA],
        [state.vaultB, state.mintB]
      ] as const) {
        if (vault === null) continue
        const token = tokenAmount(vault)
        expect(token.mint).toBe(side)
        expect(token.amount).toBe(side === mint.address ? 593_100_000_000_000n : reserveQuote)
      }

      // LP: the mint, the tracked supply, and burned = tracked - the mint's supply.
      if (built.lp === null) {
        expect(state.lpMint).toBeNull()
        expect(state.lpSupplyTracked).toBeNull()
      } else {
        expect(state.lpMint).toBe(built.lp.mint.address)
        const supply = getMintDecoder().decode(accountData(built.lp.mint.address).data).supply
        expect(supply).toBe(built.lp.supply)
        if (entry.venue === "meteora-damm-v1") expect(state.lpSupplyTracked).toBeNull()
        else {
          expect(state.lpSupplyTracked).toBe(built.lp.tracked)
          expect((state.lpSupplyTracked ?? 0n) - supply).toBe(50_000_000n)
        }
        expect(tokenAmount(built.lp.incinerator.account).amount).toBe(400_000_000n)
        // The lock behind the locker's vault.
        const lock = built.lp.lock
        expect(tokenAmount(lock.vault)).toEqual({ mint: built.lp.mint.address, amount: 300_000_000n })
        const lockAccount = accountData(lock.state)
        const decodedLock = decodeLock(lock.locker, lockAccount.data)
        expect(decodedLock).toBeDefined()
        expect(decodedLock?.permanent).toBe(lock.permanent)
        expect(decodedLock?.unlockAt).toEqual(lock.unlockAt)
        expect(decodedLock?.mint).toBe(built.lp.mint.address)
        expect(decodedLock?.amount).toBe(300_000_000n)
        if (lock.locker !== "raydium-lp-lock") expect(decodedLock?.cliffAt).toEqual(lock.cliffAt)
        if (lock.locker === "raydium-lp-lock") expect(decodedLock?.pool).toBe(built.address)
      }

      // What a simulated swap reads: the pool's own fields and its configs, as the fixture wrote them.
      if (entry.venue === "raydium-cpmm" && built.swap?.venue === "raydium-cpmm") {
        expect(state.swap).toEqual({
          venue: "raydium-cpmm",
          ammConfig: built.swap.ammConfig,
          observationState: built.swap.observation,
          tokenProgramA: TOKEN,
          tokenProgramB: TOKEN,
          feesOwedA: 0n,
          feesOwedB: 0n,
          creatorFeeOn: CPMM_FIXTURE_FEES.feeOn,
          enableCreatorFee: true,
          status: 0,
          openTime: BigInt(world.blockTime),
          config: { tradeFeeRate: CPMM_FIXTURE_FEES.tradeFeeRate, creatorFeeRate: CPMM_FIXTURE_FEES.creatorFeeRate }
        })
      } else if (entry.venue === "pumpswap" && built.swap?.venue === "pumpswap") {
        expect(built.swap.globalConfig).toBe(PUMPSWAP_GLOBAL_CONFIG)
        expect(built.swap.feeConfig).toBe(PUMPSWAP_FEE_CONFIG)
        const swap = state.swap as PumpSwapSwapState
        expect(swap).toMatchObject({
          venue: "pumpswap",
          poolCreator: pumpPoolAuthority(mint.address),
          coinCreator: built.swap.coinCreator,
          isMayhemMode: false,
          isCashbackCoin: false,
          virtualQuoteReserves: 0n,
          creatorFeeBps: 0n,
          dataLength: 270
        })
        expect(swap.global).toEqual({
          fees: { lpBps: 20n, protocolBps: 5n, creatorBps: 5n },
          disableFlags: 0,
          protocolFeeRecipients: built.swap.protocolFeeRecipients,
          reservedFeeRecipient: expect.any(String),
          reservedFeeRecipients: expect.any(Array),
          buybackFeeRecipients: built.swap.buybackFeeRecipients,
          creatorFeeConfigurable: false
        })
        const tiers = (list: typeof PUMPSWAP_FIXTURE.feeTiers) =>
          list.map((tier) => ({ marketCapLamportsThreshold: tier.market_cap_lamports_threshold, fees: bps(tier.fees) }))
        expect(swap.feeConfig).toEqual({
          flatFees: bps(PUMPSWAP_FIXTURE.flatFees),
          feeTiers: tiers(PUMPSWAP_FIXTURE.feeTiers),
          stableFeeTiers: tiers(PUMPSWAP_FIXTURE.stableFeeTiers),
          exoticFlatFees: bps(PUMPSWAP_FIXTURE.flatFees)
        })
      } else expect(state.swap).toBeUndefined()

      // Wrong size and wrong discriminator decode to nothing.
      expect(program.decode(built.address, data.subarray(0, 40))).toBeUndefined()
      const flipped = Uint8Array.from(data)
      flipped[0] = (flipped[0] ?? 0) ^ 0xff
      if (entry.venue === "raydium-amm-v4") flipped.fill(0, 0, 8) // no discriminator: status 0 is no pool
      expect(program.decode(built.address, flipped)).toBeUndefined()
      if (program.dataSize === data.length && entry.venue !== "pump-fun" && entry.venue !== "pumpswap") {
        expect(program.decode(built.address, Uint8Array.from([...data, 0]))).toBeUndefined()
      }
    })
  }
})

const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address
const bps = (fees: {
  readonly lp_fee_bps: bigint
  readonly protocol_fee_bps: bigint
  readonly creator_fee_bps: bigint
}) => ({ lpBps: fees.lp_fee_bps, protocolBps: fees.protocol_fee_bps, creatorBps: fees.creator_fee_bps })

describe("PumpSwap's fees, picked as @pump-fun/pump-swap-sdk src/sdk/fees.ts computeFeesBps picks them", () => {
  const [low, middle, high] = PUMPSWAP_FIXTURE.feeTiers.map((tier) => bps(tier.fees)) as [PumpFees, PumpFees, PumpFees]
  const stable = bps(PUMPSWAP_FIXTURE.stableFeeTiers[0]!.fees)
  let swap: PumpSwapSwapState
  let mint: BuiltMint
  beforeAll(async () => {
    mint = await world.mint({ decimals: 6 })
    const built = await buildPool(world, "pumpswap", {
      mint,
      quote: wsol,
      reserveMint: 10n ** 12n,
      reserveQuote: 10n ** 10n,
      lp: lpSpec("jupiter-lock")
    })
    const program = programOf("pumpswap")
    const decoded = program.decode(built.address, accountData(built.address).data)!
    swap = program.complete!(
      decoded,
      decoded.related.map((at) => accountData(at).data)
    ).swap as PumpSwapSwapState
  })
  // Market cap = quote reserve × supply / base reserve, in lamports: 1e9 supply units per base unit of reserve here.
  const fees = (overrides: Partial<PumpSwapSwapState>, quoteReserve: bigint, quoteMint: Address = WSOL) =>
    pumpSwapFeesOf(
      { ...swap, ...overrides },
      { baseMint: mint.address, quoteMint, baseReserve: 10n ** 6n, quoteReserve, baseSupply: 10n ** 6n }
    )

  test("a canonical SOL pool pays the tier of its market cap: below the first threshold, between, above the last", () => {
    expect(fees({}, 10_000_000_000n)).toEqual(low) // 10 SOL: first tier (threshold 0)
    expect(fees({}, 50_000_000_000n)).toEqual(middle) // exactly 50 SOL: the 50 SOL tier
    expect(fees({}, 999_999_999_999n)).toEqual(middle)
    expect(fees({}, 5_000_000_000_000n)).toEqual(high)
    // Virtual quote reserves count toward the market cap.
    expect(fees({ virtualQuoteReserves: 40_000_000_000n }, 10_000_000_000n)).toEqual(middle)
  })

  test("a pool not created by pump's pool authority pays the flat fees; USDC the stable tiers; other quotes the exotic fees", () => {
    expect(fees({ poolCreator: WSOL }, 10_000_000_000n)).toEqual(bps(PUMPSWAP_FIXTURE.flatFees))
    expect(fees({}, 60_000_000_000n, USDC)).toEqual(stable)
    expect(
      fees(
        {
          feeConfig: {
            ...(swap.feeConfig as Exclude<PumpSwapSwapState["feeConfig"], "absent" | null>),
            stableFeeTiers: []
          }
        },
        60_000_000_000n,
        USDC
      )
    ).toEqual(middle)
    expect(fees({}, 10_000_000_000n, USDT)).toEqual(bps(PUMPSWAP_FIXTURE.flatFees))
  })

  test("a configured creator fee replaces the tier's only while GlobalConfig allows it; no FeeConfig: GlobalConfig's fees", () => {
    expect(fees({ creatorFeeBps: 77n }, 10_000_000_000n)).toEqual(low)
    expect(
      fees({ creatorFeeBps: 77n, global: { ...swap.global!, creatorFeeConfigurable: true } }, 10_000_000_000n)
    ).toEqual({ ...low, creatorBps: 77n })
    expect(fees({ feeConfig: "absent" }, 10_000_000_000n)).toEqual({ lpBps: 20n, protocolBps: 5n, creatorBps: 5n })
    expect(fees({ global: null }, 10_000_000_000n)).toBeUndefined()
  })

  test("a FeeConfig written before stable tiers existed (2,512 bytes) reads with none; a short one does not decode", () => {
    const data = accountData(PUMPSWAP_FEE_CONFIG).data
    const old = decodePumpFeeConfig(data.subarray(0, 2_512))
    expect(old?.feeTiers.length).toBe(3)
    expect(old?.stableFeeTiers).toEqual([])
    expect(old?.exoticFlatFees).toEqual({ lpBps: 0n, protocolBps: 0n, creatorBps: 0n })
    expect(decodePumpFeeConfig(data.subarray(0, 2_511))).toBeNull()
  })
})

describe("other venues' accounts are not pools of this one", () => {
  test("a DAMM v2 pool does not decode as DAMM v1 or DLMM, a CLMM pool not as CPMM", async () => {
    const mint = await world.mint({ decimals: 6 })
    const v2 = await buildPool(world, "meteora-damm-v2", {
      mint,
      quote: wsol,
      reserveMint: 10n ** 12n,
      reserveQuote: 10n ** 10n
    })
    const clmm = await buildPool(world, "raydium-clmm", {
      mint,
      quote: wsol,
      reserveMint: 10n ** 12n,
      reserveQuote: 10n ** 10n
    })
    expect(programOf("meteora-damm-v1").decode(v2.address, v2.data)).toBeUndefined()
    expect(programOf("meteora-dlmm").decode(v2.address, v2.data)).toBeUndefined()
    expect(programOf("raydium-cpmm").decode(clmm.address, clmm.data)).toBeUndefined()
  })

  test("a pump.fun curve is decoded only for a mint it was derived from, and older shorter curves decode", async () => {
    const mint = await world.mint({ decimals: 6 })
    const pump = programOf("pump-fun")
    const built = await buildPool(world, "pump-fun", {
      mint,
      quote: wsol,
      reserveMint: 793_100_000_000_000n,
      reserveQuote: 0n
    })
    expect(pump.decode(built.address, built.data)).toBeUndefined()
    await pump.canonical?.(mint.address, [WSOL])
    const state = pump.decode(built.address, built.data.subarray(0, 81))
    // Before any buy: no real SOL, priced on the 30 SOL virtual reserve.
    expect(state?.curve).toEqual({ complete: false, progressPct: 0, quoteDepth: 30_000_000_000n })
    expect(state?.mintB).toBe(WSOL)
    expect(state?.vaultB).toBeNull()
  })
})

describe("locks", () => {
  for (const locker of ["jupiter-lock", "streamflow", "raydium-lp-lock"] as const) {
    test(locker, async () => {
      const mint = await world.mint({ decimals: 9 })
      const unlockAt = new Date(Date.UTC(2027, 5, 1))
      const lock = await buildLock(
        world,
        mint,
        locker,
        1_000_000n,
        unlockAt,
        "11111111111111111111111111111111" as Address
      )
      const { data } = accountData(lock.state)
      const decoded = decodeLock(locker, data)
      expect(decoded?.unlockAt).toEqual(locker === "raydium-lp-lock" ? null : unlockAt)
      expect(decoded?.permanent).toBe(locker === "raydium-lp-lock")
      expect(decoded?.mint).toBe(mint.address)
      expect(decoded?.amount).toBe(1_000_000n)
      expect(decodeLock(locker, data.subarray(0, data.length - 1))).toBeUndefined()
      expect(decodeLock("no-such-locker", data)).toBeUndefined()
      if (locker !== "streamflow") {
        const flipped = Uint8Array.from(data)
        flipped[0] = (flipped[0] ?? 0) ^ 0xff
        expect(decodeLock(locker, flipped)).toBeUndefined()
      }
    })
  }
})

describe("support", () => {
  test("quote mints, with the USDT mint of @raydium-io/raydium-sdk-v2 src/common/pubKey.ts", () => {
    expect(QUOTE_MINTS.map((quote) => [quote.mint, quote.decimals])).toEqual([
      [WSOL, 9],
      [USDC, 6],
      [USDT, 6]
    ])
  })

  test("the synchronous PDA derivation agrees with kit's", async () => {
    const mint = await world.mint()
    const { getProgramDerivedAddress, getUtf8Encoder } = await import("@solana/kit")
    const program = programOf("pump-fun").program
    const seeds = [getUtf8Encoder().encode("bonding-curve"), getAddressEncoder().encode(mint.address)]
    expect(
      findProgramAddressSync(
        program,
        seeds.map((seed) => Uint8Array.from(seed))
      )
    ).toBe((await getProgramDerivedAddress({ programAddress: program, seeds }))[0])
  })
})
