import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit"
import { Schema } from "effect"
import { type InsidersV2, ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import { scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import { defaultInsiderSettings, memoryFunderBook } from "../../../src/workers/Scanner/stages/FunderBook.ts"
import { referenceMarket } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScanSettings } from "../../support/solana/Settings.ts"
import { type BuiltMint, makeWorld, type World } from "../../support/solana/World.ts"

// The insiders stage against tokens built by real transactions in LiteSVM: SOL transfers fund fresh
// wallets, the creation slot holds several transactions (World.inOneSlot), and every figure must match what
// was built. Holders made with world.signer() are airdropped (no recorded funding): they have no funder.

let world: World
let server: RpcServer
let base: ScanSettings

const SOL = 1_000_000_000n
const decode = Schema.decodeUnknownSync(ScanEvidenceV2)

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  const { reference } = await referenceMarket(world)
  base = testScanSettings(reference.address)
})
afterAll(() => server.stop())

const settingsWith = (overrides: Partial<typeof defaultInsiderSettings> = {}, book = memoryFunderBook()) => ({
  ...base,
  insiders: { ...defaultInsiderSettings, ...overrides, book }
})

const scan = async (mint: BuiltMint, settings: ScanSettings, budget = 200) => {
  server.reset()
  const { counter, rpc } = makeRpcClient(testRpcSettings(server.url)).forScan(budget)
  const evidence = await scanMint(rpc, counter, mint.address, settings)
  decode(JSON.parse(JSON.stringify(evidence)))
  return evidence
}

const insidersOf = (evidence: { readonly insiders?: InsidersV2 | undefined }): InsidersV2 => {
  if (evidence.insiders === undefined) throw new Error("no insiders block")
  return evidence.insiders
}

const valueOfFact = <A>(fact: { readonly status: string; readonly value?: A; readonly reason?: string }): A => {
  if (fact.status !== "observed") throw new Error(`not observed: ${fact.reason}`)
  return fact.value as A
}

/** Fresh wallets (no airdrop), each funded with 1 SOL by `funder`. */
const fundedBy = async (funder: KeyPairSigner, count: number): Promise<Array<KeyPairSigner>> => {
  const wallets = await Promise.all(Array.from({ length: count }, () => generateKeyPairSigner()))
  for (const wallet of wallets) await world.transferSol(funder, wallet.address, SOL)
  return wallets
}

/** Unlinked holders (airdropped, no recorded funding) holding `amount` each. */
const strangers = async (mint: BuiltMint, count: number, amount: bigint) => {
  const owners = await Promise.all(Array.from({ length: count }, () => world.signer(1n)))
  await world.holders(
    mint,
    owners.map((owner) => ({ owner, amount }))
  )
}

describe("insiders: funders, clusters, launch buyers", () => {
  test("the deployer funds 5 fresh wallets that buy in the creation slot and hold 35%: one deployer_funded cluster", async () => {
    const deployer = await world.signer()
    const ring = await fundedBy(deployer, 5)
    const { mint, holders } = await world.inOneSlot(async () => {
      const mint = await world.mint({ deployer, decimals: 6 })
      const holders = await world.holders(mint, [
        { owner: deployer, amount: 100_000_000n },
        ...ring.map((owner) => ({ owner, amount: 70_000_000n }))
      ])
      return { mint, holders }
    })
    world.advance(50n)
    await strangers(mint, 11, 50_000_000n) // 550M: supply 1,000M, the ring holds 350M
    const settings = settingsWith()
    const evidence = await scan(mint, settings)
    const insiders = insidersOf(evidence)
    const clusters = valueOfFact(insiders.clusters)
    const funded = clusters.filter((cluster) => cluster.reason === "deployer_funded")
    expect(funded).toHaveLength(1)
    expect(funded[0]!.funder as string).toBe(deployer.address)
    expect(funded[0]!.members.map((member) => member.owner as string).sort()).toEqual(
      ring.map((wallet) => wallet.address as string).sort()
    )
    expect(funded[0]!.pct).toBe(35)
    // They also bought in the creation slot.
    const sameSlot = clusters.filter((cluster) => cluster.reason === "same_slot")
    expect(sameSlot).toHaveLength(1)
    expect(sameSlot[0]!.members).toHaveLength(5)
    expect(clusters.filter((cluster) => cluster.reason === "common_funder")).toEqual([])
    const launch = valueOfFact(insiders.launchBuyers)
    expect(launch.creationSlot).toBe(
      Number(evidence.deployer.status === "observed" ? evidence.deployer.value.slot : -1)
    )
    expect(launch.sameSlotPct).toBe(35)
    expect(launch.sameSlotCount).toBe(5)
    expect(launch.sniperCount).toBe(0)
    expect(valueOfFact(insiders.deployerHolding)).toEqual({ initialPct: 10, currentPct: 10, soldPct: 0 })
    expect(insiders.provenance.walletsCached).toBe(0)

    // The dev sells (here: burns) 80% of its holding: dev sold 80. The rescan reads no funder again.
    await world.burn(mint, holders[0]!, 80_000_000n)
    const again = insidersOf(await scan(mint, settings))
    const holding = valueOfFact(again.deployerHolding)
    expect(holding.soldPct).toBe(80)
    expect(holding.currentPct).toBeCloseTo((20 / 920) * 100, 3)
    expect(again.provenance.funderCalls).toBe(0)
    expect(again.provenance.walletsRead).toBe(0)
    expect(again.provenance.walletsCached).toBeGreaterThanOrEqual(16)
    expect(
      valueOfFact(again.clusters).filter((cluster) => cluster.reason === "deployer_funded")[0]!.members
    ).toHaveLength(5)
  })

  test("3 wallets funded by one wallet that is not the deployer: a common_funder cluster; snipers counted", async () => {
    const deployer = await world.signer()
    const funder = await world.signer()
    const ring = await fundedBy(funder, 3)
    const mint = await world.mint({ deployer, decimals: 6 })
    // Bought 2, 4 and 6 slots after the creation slot: snipers in a 10-slot window.
    await world.holders(
      mint,
      ring.map((owner) => ({ owner, amount: 60_000_000n }))
    )
    world.advance(50n)
    await strangers(mint, 4, 100_000_000n)
    const insiders = insidersOf(await scan(mint, settingsWith()))
    const clusters = valueOfFact(insiders.clusters)
    expect(clusters).toHaveLength(1)
    expect(clusters[0]!.reason).toBe("common_funder")
    expect(clusters[0]!.funder as string).toBe(funder.address)
    expect(clusters[0]!.pct).toBeCloseTo((180 / 580) * 100, 3)
    const launch = valueOfFact(insiders.launchBuyers)
    expect(launch.sameSlotCount).toBe(0)
    expect(launch.sniperCount).toBe(3)
    expect(launch.sniperPct).toBeCloseTo((180 / 580) * 100, 3)
    expect(valueOfFact(insiders.deployerHolding)).toEqual({ initialPct: 0, currentPct: 0, soldPct: null })
  })

  test("wallets funded from a labelled exchange: no cluster", async () => {
    const exchange = await world.signer()
    const ring = await fundedBy(exchange, 3)
    const mint = await world.mint({ decimals: 6 })
    world.advance(50n)
    await world.holders(
      mint,
      ring.map((owner) => ({ owner, amount: 60_000_000n }))
    )
    const settings = {
      ...settingsWith(),
      exchangeLabels: new Map([[exchange.address as string, { label: "Test Exchange", source: "test" }]])
    }
    const insiders = insidersOf(await scan(mint, settings))
    expect(valueOfFact(insiders.clusters)).toEqual([])
    // Unlabelled, the same funder links them.
    expect(valueOfFact(insidersOf(await scan(mint, settingsWith())).clusters)).toHaveLength(1)
  })

  test("a 2-hop chain is followed: the deployer funds two fresh wallets, each funds a holder", async () => {
    const deployer = await world.signer()
    const [first, second] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()])
    await world.transferSol(deployer, first!.address, 3n * SOL)
    await world.transferSol(deployer, second!.address, 3n * SOL)
    const [holderA] = await fundedBy(first!, 1)
    const [holderB] = await fundedBy(second!, 1)
    const mint = await world.mint({ deployer, decimals: 6 })
    world.advance(50n)
    await world.holders(mint, [
      { owner: holderA!, amount: 200_000_000n },
      { owner: holderB!, amount: 100_000_000n }
    ])
    await strangers(mint, 2, 350_000_000n)
    const insiders = insidersOf(await scan(mint, settingsWith()))
    const clusters = valueOfFact(insiders.clusters)
    expect(clusters).toHaveLength(1)
    expect(clusters[0]!.reason).toBe("deployer_funded")
    expect(clusters[0]!.members.map((member) => member.owner as string).sort()).toEqual(
      [holderA!.address as string, holderB!.address as string].sort()
    )
    expect(clusters[0]!.pct).toBe(30)
    // Two hops: the 4 holders' pages and oldest transactions, then the 2 intermediaries'.
    expect(insiders.provenance.funderCalls).toBe(4 * 2 + 2 * 2)
  })

  test("the funder budget runs out: clusters are not observed, never guessed", async () => {
    const deployer = await world.signer()
    const ring = await fundedBy(deployer, 5)
    const mint = await world.mint({ deployer, decimals: 6 })
    world.advance(50n)
    await world.holders(
      mint,
      ring.map((owner) => ({ owner, amount: 70_000_000n }))
    )
    const insiders = insidersOf(await scan(mint, settingsWith({ funderCalls: 6 })))
    expect(insiders.clusters.status).toBe("not_observed")
    if (insiders.clusters.status === "not_observed")
      expect(insiders.clusters.reason).toBe("funder budget of 6 calls spent before 2 wallets were read")
    expect(insiders.provenance.funderCalls).toBe(6)
  })
})

describe("insiders: cost", () => {
  test("20 holders: extra calls and round trips cold and warm (with the funder book)", async () => {
    const deployer = await world.signer()
    const ring = await fundedBy(deployer, 5)
    const mint = await world.inOneSlot(async () => {
      const mint = await world.mint({ deployer, decimals: 6 })
      await world.holders(
        mint,
        ring.map((owner) => ({ owner, amount: 70_000_000n }))
      )
      return mint
    })
    world.advance(50n)
    await strangers(mint, 15, 10_000_000n)
    const without = await scan(mint, base)
    const book = memoryFunderBook()
    const cold = await scan(mint, settingsWith({}, book))
    const warm = await scan(mint, settingsWith({}, book))
    const extra = (evidence: typeof cold) => ({
      calls: (evidence.provenance.rpcCalls ?? 0) - (without.provenance.rpcCalls ?? 0),
      roundTrips: (evidence.provenance.rpcRoundTrips ?? 0) - (without.provenance.rpcRoundTrips ?? 0)
    })
    console.log(
      `insiders cost, 20 holders: without ${without.provenance.rpcCalls} calls / ${without.provenance.rpcRoundTrips} round trips;` +
        ` cold +${extra(cold).calls} / +${extra(cold).roundTrips}; warm +${extra(warm).calls} / +${extra(warm).roundTrips}` +
        ` (funder calls cold ${insidersOf(cold).provenance.funderCalls}, launch transactions ${insidersOf(cold).provenance.launchTransactions})`
    )
    expect(insidersOf(cold).provenance.funderCalls).toBeLessThanOrEqual(40)
    expect(insidersOf(cold).provenance.walletsRead).toBe(20)
    expect(extra(cold).roundTrips).toBeLessThanOrEqual(2)
    expect(extra(warm).roundTrips).toBeLessThanOrEqual(2)
    expect(insidersOf(warm).provenance.funderCalls).toBe(0)
    // Warm, only the launch window's transactions (and the deployer's token account) are read again.
    expect(extra(warm).calls).toBe(insidersOf(warm).provenance.launchTransactions - 1 + 1)
    expect(valueOfFact(insidersOf(warm).clusters)).toEqual(valueOfFact(insidersOf(cold).clusters))
  })
})
