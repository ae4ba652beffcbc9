import { describe, expect, test } from "bun:test"
import { address, type Address } from "@solana/kit"
import type { Extension } from "@solana-program/token-2022"
import { INCINERATOR, SYSTEM_PROGRAM, VENUES, venueIndexOf } from "../../../src/workers/Scanner/Programs.ts"
import { CallBudgetExhausted } from "../../../src/workers/Scanner/Rpc.ts"
import type { AccountInfo } from "../../../src/workers/Scanner/stages/Accounts.ts"
import { Gaps, type ScanContext, type ScanSettings } from "../../../src/workers/Scanner/stages/Context.ts"
import { createdAtOf, deployerOf, type History } from "../../../src/workers/Scanner/stages/Deployer.ts"
import { extensionFactsOf, tlvEntries, withoutUnknown } from "../../../src/workers/Scanner/stages/Extensions.ts"
import { classifierOf, holdersOf } from "../../../src/workers/Scanner/stages/Holders.ts"
import { metadataOf } from "../../../src/workers/Scanner/stages/Metadata.ts"
import { discoveredOf, poolsReadOf } from "../../../src/workers/Scanner/stages/Pools.ts"
import { sellFactsOf, sellProbeOf } from "../../../src/workers/Scanner/stages/Sell.ts"
import { swapTargetOf } from "../../../src/workers/Scanner/stages/SwapTarget.ts"
import { withPositions } from "../../../src/workers/Scanner/stages/Positions.ts"
import { notApplicable, notObserved, observed } from "../../../src/domain/EvidenceV2.ts"
import type { PoolState } from "../../../src/workers/Scanner/Pools/Venue.ts"

// The stages' pure parts, from answers to facts, without a chain (the reads are covered end to end in
// scan.test.ts, scanPools.test.ts and roundTrips.test.ts against the LiteSVM world).

const MINT: Address = address("So11111111111111111111111111111111111111112")
const A: Address = address("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T")
const B: Address = address("9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin")
const C: Address = address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
const settings: ScanSettings = {
  signaturePages: 2,
  scannerVersion: "test",
  issuers: new Map(),
  exchangeLabels: new Map([[C, { label: "an exchange", source: "test list" }]]),
  referencePool: A,
  maxPools: 30,
  maxLpPools: 4
}
const contextOf = (gaps = new Gaps()): ScanContext => ({
  rpc: undefined as never,
  mint: MINT,
  settings,
  slot: 864_000n,
  gaps
})
const info = (owner: Address, lamports = 0n, data = new Uint8Array(0)): AccountInfo => ({ owner, lamports, data })

describe("stage extensions: the TLV walk and the facts", () => {
  // A Token-2022 mint: 165 bytes of base, the account type (1 = mint) at 165, then type-length-value entries.
  const mintWith = (...entries: ReadonlyArray<readonly [number, number]>) => {
    const data = new Uint8Array(166 + entries.reduce((sum, [, length]) => sum + 4 + length, 0))
    data[165] = 1
    const view = new DataView(data.buffer)
    let at = 166
    for (const [type, length] of entries) {
      view.setUint16(at, type, true)
      view.setUint16(at + 2, length, true)
      at += 4 + length
    }
    return data
  }

  test("entries are found in order; an unknown type is dropped for the decoder and kept in the facts", () => {
    const data = mintWith([9, 0], [999, 3], [3, 32])
    expect(tlvEntries(data)).toEqual([
      { type: 9, start: 166, end: 170 },
      { type: 999, start: 170, end: 177 },
      { type: 3, start: 177, end: 213 }
    ])
    const known = withoutUnknown(data, tlvEntries(data))
    expect(tlvEntries(known).map((entry) => entry.type)).toEqual([9, 3])
    const facts = extensionFactsOf("token-2022", [{ __kind: "NonTransferable" } as Extension], tlvEntries(data), 0n)
    expect(facts.extensions).toEqual({
      status: "observed",
      value: [
        { name: "NonTransferable", type: 9, addresses: {}, settings: {} },
        { name: "Unknown", type: 999, addresses: {}, settings: {} }
      ]
    })
  })

  test("an entry running past the data ends the walk; an SPL mint has none", () => {
    expect(tlvEntries(mintWith([3, 32]).subarray(0, 190))).toEqual([])
    expect(extensionFactsOf("spl-token", [], [], 0n)).toEqual({
      extensions: { status: "not_applicable", reason: "SPL Token mints have no extensions" },
      transferFee: { status: "not_applicable", reason: "SPL Token mints have no transfer fee" },
      hookProgram: undefined
    })
  })

  test("the transfer fee in effect is the newer one from its epoch on; before it, the newer is scheduled", () => {
    const fee = (epoch: bigint) =>
      ({
        __kind: "TransferFeeConfig",
        transferFeeConfigAuthority: A,
        withdrawWithheldAuthority: SYSTEM_PROGRAM,
        withheldAmount: 0n,
        olderTransferFee: { epoch: 0n, maximumFee: 10n, transferFeeBasisPoints: 100 },
        newerTransferFee: { epoch, maximumFee: 20n, transferFeeBasisPoints: 250 }
      }) as Extension
    // Slot 864,000 is epoch 2.
    expect(extensionFactsOf("token-2022", [fee(2n)], [], 864_000n).transferFee).toEqual({
      status: "observed",
      value: {
        bps: 250,
        maxFee: "20",
        configAuthority: A as never,
        withdrawAuthority: null,
        scheduledBps: null,
        scheduledEpoch: null
      }
    })
    expect(extensionFactsOf("token-2022", [fee(3n)], [], 864_000n).transferFee).toEqual({
      status: "observed",
      value: {
        bps: 100,
        maxFee: "10",
        configAuthority: A as never,
        withdrawAuthority: null,
        scheduledBps: 250,
        scheduledEpoch: 3
      }
    })
  })
})

describe("stage metadata", () => {
  test("Token-2022's own metadata wins; a Metaplex account owned by another program is a gap", () => {
    const gaps = new Gaps()
    const own = {
      __kind: "TokenMetadata",
      name: "N",
      symbol: "S",
      uri: "u",
      updateAuthority: { __option: "None" },
      mint: MINT,
      additionalMetadata: new Map()
    } as unknown as Extension
    expect(metadataOf(MINT, [own], B, new Map([[B, info(A)]]), gaps)).toEqual({
      status: "observed",
      value: { source: "token-2022", name: "N", symbol: "S", uri: "u", mutable: false, updateAuthority: null }
    })
    expect(gaps.reasons).toEqual([])
    expect(metadataOf(MINT, [], B, new Map([[B, info(A)]]), gaps).status).toBe("not_observed")
    expect(gaps.reasons).toEqual([`metadata: metadata account owned by ${A}, not the Metaplex program`])
    expect(metadataOf(MINT, [], B, new Map([[B, null]]), new Gaps())).toEqual({
      status: "not_observed",
      reason: "no Metaplex metadata account and no TokenMetadata extension"
    })
  })
})

describe("stage deployer", () => {
  const history = (value: History): PromiseSettledResult<History> => ({ status: "fulfilled", value })
  const oldest = { signature: "sig", slot: 7n, blockTime: 1_700_000_000n }

  test("the fee payer of the first transaction, with its time", () => {
    const first = { status: "fulfilled", value: { transaction: { message: { accountKeys: [A] } } } } as never
    const deployer = deployerOf(contextOf(), history({ complete: true, oldest }), first)
    expect(deployer).toEqual({
      status: "observed",
      value: { address: A as never, signature: "sig", slot: 7, at: "2023-11-14T22:13:20.000Z" }
    })
    expect(createdAtOf(deployer)).toEqual({ status: "observed", value: "2023-11-14T22:13:20.000Z" })
  })

  test("history beyond the pages read, or a failed read, is not observed; only the failure is a gap", () => {
    const gaps = new Gaps()
    const none = { status: "fulfilled", value: null } as const
    expect(deployerOf(contextOf(gaps), history({ complete: false, oldest }), none)).toEqual({
      status: "not_observed",
      reason: "first transaction not reached within 2000 signatures"
    })
    expect(gaps.reasons).toEqual([])
    expect(deployerOf(contextOf(gaps), { status: "rejected", reason: new CallBudgetExhausted(3) }, none).status).toBe(
      "not_observed"
    )
    expect(gaps.reasons).toEqual(["signature history: call budget spent"])
  })
})

describe("stage holders: classification and the holders block", () => {
  test("burn, venue program, deployer, labelled exchange, holder", async () => {
    const venues = await venueIndexOf()
    const classify = classifierOf(venues, B, settings)
    const pool = VENUES.find((venue) => venue.kind === "pool")!
    const infos = new Map([[A, info(pool.program)]])
    expect(classify(INCINERATOR, infos).kind).toBe("burn")
    expect(classify(A, infos)).toEqual({
      kind: "pool",
      label: pool.label,
      labelSource: `account owned by ${pool.program} (${pool.source})`
    })
    expect(classify(B, infos)).toEqual({
      kind: "creator",
      label: "deployer",
      labelSource: "fee payer of the mint's first transaction"
    })
    expect(classify(C, infos)).toEqual({ kind: "exchange", label: "an exchange", labelSource: "test list" })
    expect(classify(MINT, infos)).toEqual({ kind: "holder", label: null, labelSource: null })
  })

  test("shares of the supply, and the creator's share only when the deployer is known", () => {
    const rows = [
      {
        tokenAccount: A,
        owner: B,
        amount: 250n,
        frozen: false,
        kind: "creator" as const,
        label: "deployer",
        labelSource: "x"
      },
      {
        tokenAccount: C,
        owner: MINT,
        amount: 50n,
        frozen: false,
        kind: "holder" as const,
        label: null,
        labelSource: null
      }
    ]
    const holders = holdersOf("observed", rows, 1_000n, B)
    expect(holders.top.status === "observed" ? holders.top.value.map((holder) => holder.pct) : null).toEqual([25, 5])
    expect(holders.creatorPct).toEqual({ status: "observed", value: 25 })
    expect(holdersOf("observed", rows, 1_000n, undefined).creatorPct).toEqual({
      status: "not_observed",
      reason: "deployer not observed"
    })
  })
})

describe("stage sell path", () => {
  test("the probe sells a thousandth from the first unfrozen real holder; the fee payer needs SOL", () => {
    const rows = [
      {
        tokenAccount: A,
        owner: A,
        amount: 9_000n,
        frozen: false,
        kind: "pool" as const,
        label: null,
        labelSource: null
      },
      {
        tokenAccount: B,
        owner: B,
        amount: 5_000n,
        frozen: true,
        kind: "holder" as const,
        label: null,
        labelSource: null
      },
      {
        tokenAccount: C,
        owner: C,
        amount: 4_000n,
        frozen: false,
        kind: "holder" as const,
        label: null,
        labelSource: null
      }
    ]
    expect(sellProbeOf(rows, new Map())).toBeUndefined()
    const infos = new Map([[B, info(SYSTEM_PROGRAM, 50_000_000n)]])
    expect(sellProbeOf(rows, infos)).toEqual({ sourceAccount: C, sourceOwner: C, amount: 4n, feePayer: B })
  })

  test("a failed transfer is a honeypot; a failed swap is the pool's and measures no tax", () => {
    const check = (ok: boolean) => ({
      ok,
      error: ok ? null : "custom program error: 0x11",
      sourceAccount: A as never,
      sourceOwner: B as never,
      amount: "1",
      received: null,
      feeCharged: null,
      effectiveTaxPct: null,
      unitsConsumed: 1,
      venue: "pumpswap",
      answer: "simulated" as const
    })
    const facts = sellFactsOf({ status: "observed", value: check(false) }, { status: "observed", value: check(false) })
    expect(facts.honeypot).toEqual({ status: "observed", value: true })
    expect(facts.tradingTax).toEqual({
      status: "not_observed",
      reason: "the simulated sell on pumpswap failed, so no tax was measured: custom program error: 0x11"
    })
    expect(
      sellFactsOf({ status: "observed", value: check(true) }, { status: "not_applicable", reason: "no pool" }).honeypot
    ).toEqual({ status: "observed", value: false })
  })
})

describe("stage pools", () => {
  const state = (at: Address, swap: boolean): PoolState => ({
    address: at,
    venue: swap ? "raydium-cpmm" : "raydium-amm-v4",
    shape: "constant_product",
    mintA: MINT,
    mintB: C,
    vaultA: A,
    vaultB: B,
    storedReserves: null,
    priceBPerA: null,
    lpMint: null,
    lpSupplyTracked: null,
    curve: null,
    related: [],
    ...(swap ? { swap: {} as never } : {})
  })
  const call = { program: { venue: "raydium-amm-v4" } as never, offset: 400 }

  test("a failed discovery call is a gap; pools past SCANNER_MAX_POOLS make discovery incomplete, not the scan partial", () => {
    const gaps = new Gaps()
    const found = {
      pools: new Map<string, PoolState>([
        [A, state(A, false)],
        [B, state(B, false)]
      ]),
      reference: undefined,
      referenceFound: false
    }
    const ctx = { ...contextOf(gaps), settings: { ...settings, maxPools: 1 } }
    const discovered = discoveredOf(ctx, found, {
      calls: [call],
      results: [{ status: "rejected", reason: new CallBudgetExhausted(5) }]
    })
    expect(gaps.reasons).toEqual(["raydium-amm-v4 pools (mint at offset 400): call budget spent"])
    expect(discovered.discoveryMissing).toEqual([
      "raydium-amm-v4 pools (mint at offset 400): call budget spent",
      "1 of 2 pools not read (SCANNER_MAX_POOLS 1)"
    ])
    expect(discovered.poolStates.map((pool) => pool.address)).toEqual([A])
    expect(discovered.unread.map((pool) => pool.address)).toEqual([B])
  })

  test("a failed vault read is a gap and leaves SOL/USD and every pool's balances unread", () => {
    const gaps = new Gaps()
    const found = { pools: new Map<string, PoolState>(), reference: undefined, referenceFound: false }
    const read = poolsReadOf(contextOf(gaps), found, [state(A, false)], {
      status: "rejected",
      reason: new Error("HTTP 503")
    })
    expect(gaps.reasons).toEqual(["pool vaults: HTTP 503"])
    expect(read.solUsd).toEqual({ status: "not_observed", reason: `reference pool ${A} not found` })
    expect(read.quoteMissing).toBe(`SOL/USD not observed: reference pool ${A} not found`)
    expect(read.pools.map((pool) => [pool.balanceA, pool.balanceB, pool.missing])).toEqual([
      [null, null, "pool vaults: HTTP 503"]
    ])
  })

  test("the swap target: none to simulate, one beyond the pools read, or the pools' read failed", () => {
    const balances = (swap: boolean) => ({
      state: state(A, swap),
      balanceA: 1n,
      balanceB: 1n,
      missing: null,
      lpSupply: null
    })
    expect(swapTargetOf([balances(false)], MINT, SYSTEM_PROGRAM, 1n, new Map(), () => 0, null, [])).toEqual({
      skip: {
        status: "not_applicable",
        reason: "no PumpSwap or Raydium CPMM pool of the mint, the venues whose swap instruction is decoded"
      }
    })
    expect(swapTargetOf([], MINT, SYSTEM_PROGRAM, 1n, new Map(), () => 0, null, [state(B, true)])).toEqual({
      skip: {
        status: "not_observed",
        reason: "the mint's PumpSwap or Raydium CPMM pool is beyond SCANNER_MAX_POOLS and was not read"
      }
    })
    expect(
      swapTargetOf([balances(true)], MINT, SYSTEM_PROGRAM, 1n, new Map(), () => 0, "pool vaults: HTTP 503", [])
    ).toEqual({
      skip: { status: "not_observed", reason: "pool vaults: HTTP 503" }
    })
  })
})

describe("stage positions: owners in a linked cluster", () => {
  const position = (owner: Address, kind: "holder" | "creator", label: string | null) => ({
    position: A as never,
    owner: owner as never,
    nftMint: null,
    liquidity: "10",
    pct: 50,
    kind,
    label,
    locked: null
  })
  const pool = {
    pool: B as never,
    venue: "meteora-dlmm",
    burnedPct: notApplicable("bins"),
    lockedPct: notApplicable("bins"),
    locker: null,
    unlockAt: null,
    unlockedPct: notApplicable("bins")
  }
  const liquidity = {
    liquidityUsd: notObserved("test"),
    poolCount: observed(2),
    lpLocked: notApplicable("test"),
    lpLockedPct: notApplicable("test"),
    lpLockExpiresAt: notApplicable("test"),
    pools: observed([pool, { ...pool, pool: C as never, venue: "raydium-cpmm" }])
  }

  test("a holder in a deployer_funded cluster is an insider; same-slot buyers and the deployer keep their kind; unread pools are not observed", () => {
    const facts = new Map([
      [B as string, observed({ count: 2, top: [position(A, "holder", null), position(C, "creator", "deployer")] })]
    ])
    const clusters = observed([
      { funder: C as never, reason: "deployer_funded" as const, members: [{ owner: A as never, pct: 5 }], pct: 5 },
      { funder: null, reason: "same_slot" as const, members: [{ owner: C as never, pct: 1 }], pct: 1 }
    ])
    const out = withPositions(liquidity, facts, clusters, 4)
    const pools = out.pools.status === "observed" ? out.pools.value : []
    expect(pools[0]?.positions).toMatchObject({
      status: "observed",
      value: {
        top: [
          { owner: A, kind: "insider", label: "deployer_funded cluster" },
          { owner: C, kind: "creator", label: "deployer" }
        ]
      }
    })
    // A pool with an LP mint has no positions field.
    expect(pools[1] !== undefined && "positions" in pools[1]).toBe(false)
    // A position pool the scan did not read: not observed, never empty.
    const unread = withPositions(liquidity, new Map(), undefined, 4)
    expect(unread.pools.status === "observed" ? unread.pools.value[0]?.positions?.status : null).toBe("not_observed")
  })
})
