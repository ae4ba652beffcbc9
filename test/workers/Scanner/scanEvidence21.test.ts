import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import {
  type Address,
  generateKeyPairSigner,
  getProgramDerivedAddress,
  getUtf8Encoder,
  type KeyPairSigner
} from "@solana/kit"
import { Schema } from "effect"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { VENUES } from "../../../src/workers/Scanner/Programs.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import { scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import { loaderV2Program, upgradeableProgram } from "../../support/solana/Loaders.ts"
import { buildLock, buildPool, referenceMarket } from "../../support/solana/Pools.ts"
import { clmmPosition, dlmmPosition, lockWhirlpoolPosition, whirlpoolPosition } from "../../support/solana/Positions.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScanSettings } from "../../support/solana/Settings.ts"
import { type BuiltMint, makeWorld, type World } from "../../support/solana/World.ts"

// Model 2.1's evidence as the scanner fills it (issue 28, item 4), against accounts built in their
// programs' real layouts in the LiteSVM world: the transfer hook's program and who can upgrade it, a
// scheduled transfer fee with its epoch, token locks' release times, and the copycat check.

let world: World
let server: RpcServer
let settings: ScanSettings
let wsolMint: BuiltMint
const decode = Schema.decodeUnknownSync(ScanEvidenceV2)
const encode = Schema.encodeSync(ScanEvidenceV2)

const scan = async (mint: Address, budget = 64) => {
  const { counter, rpc } = makeRpcClient(testRpcSettings(server.url)).forScan(budget)
  const evidence = await scanMint(rpc, counter, mint, settings)
  // What the scanner writes is valid evidence.
  expect(decode(encode(evidence))).toEqual(evidence)
  return evidence
}

const address = async (): Promise<Address> => (await generateKeyPairSigner()).address

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  const market = await referenceMarket(world)
  wsolMint = market.wsol
  const { reference } = market
  settings = testScanSettings(reference.address)
})
afterAll(() => server.stop())

describe("scanner: the transfer hook's program", () => {
  const hooked = async (programId: Address) => {
    const mint = await world.mint({
      program: "token-2022",
      decimals: 6,
      extensions: { transferHook: { programId, authority: await address() } }
    })
    await world.holders(mint, [{ amount: 1_000n }])
    return mint
  }

  test("an upgradeable program names its upgrade authority; one without an authority is immutable", async () => {
    const upgradeable = await address()
    const authority = await address()
    await upgradeableProgram(world, upgradeable, authority)
    const frozen = await address()
    await upgradeableProgram(world, frozen, null)

    const first = await scan((await hooked(upgradeable)).address)
    expect(first.scanDepth).toBe("full")
    expect(first.transferHookProgram).toEqual({
      status: "observed",
      value: { programId: upgradeable as never, upgradeable: true, upgradeAuthority: authority as never }
    })
    expect(scoringView(first).extensions).toMatchObject({
      transferHook: upgradeable,
      transferHookUpgradeable: true,
      transferHookAuthority: authority
    })

    const second = await scan((await hooked(frozen)).address)
    expect(second.transferHookProgram).toEqual({
      status: "observed",
      value: { programId: frozen as never, upgradeable: false, upgradeAuthority: null }
    })
    expect(scoringView(second).extensions).toMatchObject({ transferHookUpgradeable: false })
  })

  test("a loader-v2 program is immutable; a missing program is not observed; no hook is not applicable", async () => {
    const v2 = await address()
    loaderV2Program(world, v2)
    expect((await scan((await hooked(v2)).address)).transferHookProgram).toEqual({
      status: "observed",
      value: { programId: v2 as never, upgradeable: false, upgradeAuthority: null }
    })
    const missing = await address()
    expect((await scan((await hooked(missing)).address)).transferHookProgram).toEqual({
      status: "not_observed",
      reason: `hook program ${missing}: no account`
    })
    const plain = await world.mint({ program: "token-2022", decimals: 6 })
    await world.holders(plain, [{ amount: 1n }])
    expect((await scan(plain.address)).transferHookProgram?.status).toBe("not_applicable")
  })

  test("the hook read costs one call in round 2, and only for a hooked mint", async () => {
    const program = await address()
    await upgradeableProgram(world, program, await address())
    const mint = await hooked(program)
    server.reset()
    await scan(mint.address)
    const withHook = server.batches[1]!.filter((method) => method === "getMultipleAccounts").length
    expect(withHook).toBe(1)
    const plain = await world.mint({ program: "token-2022", decimals: 6 })
    await world.holders(plain, [{ amount: 1_000n }])
    server.reset()
    await scan(plain.address)
    expect(server.batches[1]!.filter((method) => method === "getMultipleAccounts").length).toBe(0)
  })

  test("a spent call budget leaves the hook program not observed, never immutable", async () => {
    const program = await address()
    await upgradeableProgram(world, program, null)
    const mint = await hooked(program)
    // Round 1 is one call; round 2 has room for none of the hook's.
    const evidence = await scan(mint.address, 1)
    expect(evidence.transferHookProgram).toMatchObject({ status: "not_observed" })
    expect(evidence.provenance.partial.some((reason) => reason.startsWith("transfer hook program"))).toBe(true)
  })
})

describe("scanner: a scheduled transfer fee", () => {
  test("a fee set this epoch is scheduled from two epochs on: the rate now and the epoch it starts", async () => {
    const authority: KeyPairSigner = await world.signer()
    // Give the runtime's clock the epoch of the world's slot (mainnet's 432,000 slots an epoch), so
    // SetTransferFee schedules the newer fee at that epoch + 2, after the scan's epoch.
    const clock = world.svm.getClock()
    const before = clock.epoch
    clock.epoch = world.slot / 432_000n
    world.svm.setClock(clock)
    const epoch = Number(clock.epoch)
    try {
      const mint = await world.mint({
        program: "token-2022",
        decimals: 6,
        extensions: {
          transferFee: {
            configAuthority: authority,
            withdrawAuthority: authority.address,
            basisPoints: 100,
            maximumFee: 1_000n,
            next: { basisPoints: 3_000, maximumFee: 9_000n }
          }
        }
      })
      await world.holders(mint, [{ amount: 1_000n }])
      const evidence = await scan(mint.address)
      expect(evidence.transferFee).toEqual({
        status: "observed",
        value: {
          bps: 100,
          maxFee: "1000",
          configAuthority: authority.address as never,
          withdrawAuthority: authority.address as never,
          scheduledBps: 3_000,
          scheduledEpoch: epoch + 2
        }
      })
      expect(scoringView(evidence).extensions).toMatchObject({
        transferFeeBps: 3_000,
        transferFeeNowBps: 100,
        transferFeeScheduledEpoch: epoch + 2
      })
    } finally {
      const restored = world.svm.getClock()
      restored.epoch = before
      world.svm.setClock(restored)
    }
  })
})

describe("scanner: token locks", () => {
  test("a locker among the top holders carries its first release; Raydium's lock is permanent", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pool = await address()
    const soon = new Date(Math.floor(world.blockTime * 1000 + 3 * 86_400_000))
    const jupiter = await buildLock(world, mint, "jupiter-lock", 3_000_000n, soon, pool)
    const stream = await buildLock(world, mint, "streamflow", 2_000_000n, new Date(Date.UTC(2028, 0, 1)), pool)
    const raydium = await buildLock(world, mint, "raydium-lp-lock", 1_000_000n, soon, pool)
    const evidence = await scan(mint.address)
    expect(evidence.holders.top.status).toBe("observed")
    const top = evidence.holders.top.status === "observed" ? evidence.holders.top.value : []
    const byAccount = new Map(top.map((holder) => [holder.tokenAccount as string, holder]))
    // The vesting's cliff (a day before its end) is when the first tokens release.
    expect(byAccount.get(jupiter.vault)).toMatchObject({
      kind: "locker",
      label: "jupiter-lock",
      unlockAt: jupiter.cliffAt?.toISOString()
    })
    expect(jupiter.cliffAt?.getTime()).toBeLessThan(soon.getTime())
    expect(byAccount.get(stream.vault)).toMatchObject({
      kind: "locker",
      label: "streamflow",
      unlockAt: stream.cliffAt?.toISOString()
    })
    expect(byAccount.get(raydium.vault)).toMatchObject({ kind: "locker", label: "raydium-lp-lock", unlockAt: null })
    const plain = top.find((holder) => holder.kind === "holder")
    expect(plain).toBeDefined()
    expect(plain !== undefined && "unlockAt" in plain).toBe(false)
    // The scoring view carries the release time, so a lock releasing within 7 days counts as held.
    expect(
      scoringView(evidence).holders.top.find((holder) => holder.kind === "locker" && holder.unlockAt !== undefined)
    ).toBeDefined()
  })

  test("a lock account of another mint gives no release time", async () => {
    const mint = await world.mint({ decimals: 6 })
    const other = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const lock = await buildLock(world, other, "jupiter-lock", 1n, new Date(Date.UTC(2028, 0, 1)), await address())
    // The lock's state account owns a token account of `mint` too, but records `other`.
    await world.fund(mint, lock.state, 2_000_000n)
    const evidence = await scan(mint.address)
    const top = evidence.holders.top.status === "observed" ? evidence.holders.top.value : []
    const locker = top.find((holder) => holder.kind === "locker")
    expect(locker).toBeDefined()
    expect(locker !== undefined && "unlockAt" in locker).toBe(false)
  })
})

describe("scanner: the copycat check", () => {
  const named = async (symbol: string | null) => {
    const mint = await world.mint({
      program: "token-2022",
      decimals: 6,
      extensions:
        symbol === null ? {} : { tokenMetadata: { name: `${symbol} token`, symbol, uri: "https://example.org/t.json" } }
    })
    await world.holders(mint, [{ amount: 1_000n }])
    return (await scan(mint.address)).copycatOf
  }

  test("a symbol confusable with an issuer-verified token under another mint is a copycat; checked and clean is null", async () => {
    expect(await named("USDC")).toEqual({ status: "observed", value: "USDC" })
    expect(await named("HOOK")).toEqual({ status: "observed", value: null })
  })

  test("without metadata the check cannot run: not observed", async () => {
    expect(await named(null)).toMatchObject({ status: "not_observed" })
  })
})

describe("scanner: concentrated-liquidity positions and who can withdraw them", () => {
  const poolsOf = (evidence: ScanEvidenceV2) =>
    evidence.liquidity.pools.status === "observed" ? evidence.liquidity.pools.value : []

  test("Whirlpool: the largest positions, each owned by its NFT's holder; the deployer's is marked creator", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pool = await buildPool(world, "orca-whirlpool", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000_000n,
      reserveQuote: 10_000_000_000n
    })
    const wallet = await address()
    const deployer = await whirlpoolPosition(world, pool.address, mint.deployer, 6_000_000n)
    const other = await whirlpoolPosition(world, pool.address, wallet, 3_000_000n)
    const small = await whirlpoolPosition(world, pool.address, await address(), 1_000_000n)
    await lockWhirlpoolPosition(world, deployer, pool.address)
    // A position of another pool is not this pool's.
    await whirlpoolPosition(world, await address(), wallet, 50_000_000n)
    const evidence = await scan(mint.address)
    expect(evidence.scanDepth).toBe("full")
    const read = poolsOf(evidence).find((entry) => (entry.pool as string) === pool.address)
    expect(read?.shape).toBe("concentrated")
    expect(read?.positions).toEqual({
      status: "observed",
      value: {
        count: 3,
        top: [
          {
            position: deployer.address as never,
            owner: mint.deployer.address as never,
            nftMint: deployer.nftMint as never,
            liquidity: "6000000",
            pct: 60,
            kind: "creator",
            label: "deployer",
            locked: true
          },
          {
            position: other.address as never,
            owner: wallet as never,
            nftMint: other.nftMint as never,
            liquidity: "3000000",
            pct: 30,
            kind: "holder",
            label: null,
            locked: false
          },
          {
            position: small.address as never,
            owner: small.owner as never,
            nftMint: small.nftMint as never,
            liquidity: "1000000",
            pct: 10,
            kind: "holder",
            label: null,
            locked: false
          }
        ]
      }
    })
  })

  test("Raydium CLMM: the position NFT's holder; a pool without positions has none", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pool = await buildPool(world, "raydium-clmm", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000_000n,
      reserveQuote: 10_000_000_000n
    })
    const empty = await buildPool(world, "orca-whirlpool", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000n,
      reserveQuote: 10_000_000n
    })
    const holder = await address()
    const position = await clmmPosition(world, pool.address, holder, 2n ** 70n)
    // Raydium's locking program holds a locked position's NFT under its authority ["program_authority_seed"].
    const [lockAuthority] = await getProgramDerivedAddress({
      programAddress: VENUES.find((venue) => venue.label === "raydium-lp-lock")!.program,
      seeds: [getUtf8Encoder().encode("program_authority_seed")]
    })
    const locked = await clmmPosition(world, pool.address, lockAuthority, 2n ** 68n)
    const evidence = await scan(mint.address)
    const read = poolsOf(evidence).find((entry) => (entry.pool as string) === pool.address)
    expect(read?.positions).toEqual({
      status: "observed",
      value: {
        count: 2,
        top: [
          {
            position: position.address as never,
            owner: holder as never,
            nftMint: position.nftMint as never,
            liquidity: (2n ** 70n).toString(),
            pct: 80,
            kind: "holder",
            label: null,
            locked: false
          },
          {
            position: locked.address as never,
            owner: lockAuthority as never,
            nftMint: locked.nftMint as never,
            liquidity: (2n ** 68n).toString(),
            pct: 20,
            kind: "locker",
            label: "raydium-lp-lock",
            locked: true
          }
        ]
      }
    })
    expect(poolsOf(evidence).find((entry) => (entry.pool as string) === empty.address)?.positions).toEqual({
      status: "observed",
      value: { count: 0, top: [] }
    })
  })

  test("Meteora DLMM: the owner the position names, ranked by its bins' liquidity shares", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pair = await buildPool(world, "meteora-dlmm", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000_000n,
      reserveQuote: 10_000_000_000n
    })
    // The fixture's pairs activate by slot: a lock releasing at a later slot holds, an earlier one has released.
    const wide = await dlmmPosition(world, pair.address, mint.deployer.address, 1_000n, 69, world.slot + 10_000n)
    const narrow = await dlmmPosition(world, pair.address, await address(), 30_000n, 1, world.slot - 10n)
    const evidence = await scan(mint.address)
    const read = poolsOf(evidence).find((entry) => (entry.pool as string) === pair.address)
    expect(read?.shape).toBe("bins")
    expect(read?.positions).toMatchObject({
      status: "observed",
      value: {
        count: 2,
        top: [
          {
            position: wide.address,
            owner: mint.deployer.address,
            nftMint: null,
            liquidity: "69000",
            kind: "creator",
            locked: true
          },
          {
            position: narrow.address,
            owner: narrow.owner,
            nftMint: null,
            liquidity: "30000",
            kind: "holder",
            locked: false
          }
        ]
      }
    })
  })

  test("the positions ride rounds 4 to 6: no extra round trip; calls: one per pool, one per NFT, one for the NFT accounts", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pool = await buildPool(world, "orca-whirlpool", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000_000n,
      reserveQuote: 10_000_000_000n
    })
    for (let i = 0; i < 7; i++) await whirlpoolPosition(world, pool.address, await address(), BigInt(1_000 + i))
    server.reset()
    const evidence = await scan(mint.address)
    expect(evidence.provenance.partial).toEqual([])
    const positions = poolsOf(evidence).find((entry) => (entry.pool as string) === pool.address)?.positions
    expect(positions?.status === "observed" ? positions.value.top.length : -1).toBe(5)
    expect(server.batches.length).toBeLessThanOrEqual(6)
    const count = (round: number, method: string) => server.batches[round]!.filter((called) => called === method).length
    // Round 4 (index 3): the pool's positions; round 5: the five largest positions' NFT holders.
    expect(count(3, "getProgramAccounts")).toBe(1)
    expect(count(4, "getTokenLargestAccounts")).toBe(5)
    // ... and their LockConfig PDAs, one getMultipleAccounts.
    expect(count(4, "getMultipleAccounts")).toBe(1)
    expect(count(5, "getMultipleAccounts")).toBe(1)
  })

  test("a spent call budget leaves the positions not observed, never empty", async () => {
    const mint = await world.mint({ decimals: 6 })
    await world.holders(mint, [{ amount: 5_000_000n }])
    const pool = await buildPool(world, "orca-whirlpool", {
      mint,
      quote: wsolMint,
      reserveMint: 1_000_000_000n,
      reserveQuote: 10_000_000_000n
    })
    await whirlpoolPosition(world, pool.address, mint.deployer, 1_000n)
    // Enough for rounds 1 to 3 and part of round 4.
    server.reset()
    await scan(mint.address)
    const upToRound4 = server.batches.slice(0, 3).flat().length + 1
    const evidence = await scan(mint.address, upToRound4)
    const positions = poolsOf(evidence).find((entry) => (entry.pool as string) === pool.address)?.positions
    expect(positions?.status).toBe("not_observed")
    expect(evidence.scanDepth).toBe("partial")
  })
})
