import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit"
import { getTransferSolInstruction } from "@solana-program/system"
import { Schema } from "effect"
import { type InsidersV2, ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import { scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import {
  defaultInsiderSettings,
  type LaunchMemory,
  memoryFunderBook,
  memoryLaunches
} from "../../../src/workers/Scanner/stages/FunderBook.ts"
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

const settingsWith = (
  overrides: Partial<typeof defaultInsiderSettings> = {},
  book = memoryFunderBook(),
  launches?: LaunchMemory
) => ({
  ...base,
  insiders: { ...defaultInsiderSettings, ...overrides, book, ...(launches === undefined ? {} : { launches }) }
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
    // The deployer's cluster: its 10% and the ring's 35% bought in the launch window, all still held.
    expect(valueOfFact(insiders.deployerHolding)).toEqual({
      initialPct: 10,
      currentPct: 10,
      soldPct: 0,
      cluster: { status: "observed", value: { memberCount: 5, initialPct: 45, currentPct: 45, soldPct: 0 } }
    })
    expect(insiders.provenance.walletsCached).toBe(0)

    // The dev sells (here: burns) 80% of its holding: dev sold 80. The rescan reads no funder again.
    await world.burn(mint, holders[0]!, 80_000_000n)
    const again = insidersOf(await scan(mint, settings))
    const holding = valueOfFact(again.deployerHolding)
    expect(holding.soldPct).toBe(80)
    expect(holding.currentPct).toBeCloseTo((20 / 920) * 100, 3)
    // The cluster held 450M at launch and holds 370M: it sold 80M of 450M.
    const cluster = valueOfFact(holding.cluster!)
    expect(cluster).toMatchObject({ memberCount: 5, soldPct: 17.77 })
    expect(cluster.initialPct).toBeCloseTo((450 / 920) * 100, 3)
    expect(cluster.currentPct).toBeCloseTo((370 / 920) * 100, 3)
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
    expect(valueOfFact(insiders.deployerHolding)).toEqual({
      initialPct: 0,
      currentPct: 0,
      soldPct: null,
      cluster: { status: "observed", value: { memberCount: 0, initialPct: 0, currentPct: 0, soldPct: null } }
    })
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

test("the deployer funds wallets that buy at launch, then they sell: the cluster's dev sold is reported", async () => {
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
  await strangers(mint, 25, 20_000_000n)
  // The dev keeps its 100M; three of the ring sell out (here: burn), two sell half.
  for (const holder of holders.slice(1, 4)) await world.burn(mint, holder, 70_000_000n)
  for (const holder of holders.slice(4)) await world.burn(mint, holder, 35_000_000n)
  const supply = 450_000_000 + 500_000_000 - 210_000_000 - 70_000_000
  const insiders = insidersOf(await scan(mint, settingsWith({ funderCalls: 200 })))
  const holding = valueOfFact(insiders.deployerHolding)
  expect(holding.soldPct).toBe(0)
  // Initial: the dev's 100M and the ring's 350M; now: 100M and 2 × 35M. The three that sold out are no
  // longer top holders: their funders and (empty) token accounts were read as launch buyers.
  const cluster = valueOfFact(holding.cluster!)
  expect(cluster).toMatchObject({ memberCount: 5, soldPct: 62.22 })
  expect(cluster.initialPct).toBeCloseTo((450_000_000 / supply) * 100, 3)
  expect(cluster.currentPct).toBeCloseTo((170_000_000 / supply) * 100, 3)
  // The clusters are of holders now: the two that still hold.
  const funded = valueOfFact(insiders.clusters).filter((cluster) => cluster.reason === "deployer_funded")
  expect(funded[0]!.members).toHaveLength(2)
  // A budget that reaches the top holders but not the sold-out buyers: the cluster's figure is not observed.
  const short = insidersOf(await scan(mint, settingsWith({ funderCalls: 5 + 20 * 2 })))
  const shortHolding = valueOfFact(short.deployerHolding)
  expect(shortHolding.soldPct).toBe(0)
  expect(shortHolding.cluster?.status).toBe("not_observed")
})

test("wallets funded in one transaction, or whose first transaction is their launch buy: one read, or none", async () => {
  const deployer = await world.signer()
  const ring = await Promise.all(Array.from({ length: 4 }, () => generateKeyPairSigner()))
  // One disperse transaction funds the four.
  await world.send(
    deployer,
    ring.map((wallet) => getTransferSolInstruction({ source: deployer, destination: wallet.address, amount: SOL }))
  )
  // Three airdropped wallets (unrecorded) whose first transaction is the one that gives them the token at launch.
  const fresh = await Promise.all(Array.from({ length: 3 }, () => world.signer(1n)))
  const mint = await world.inOneSlot(async () => {
    const mint = await world.mint({ deployer, decimals: 6 })
    await world.holders(mint, [
      ...ring.map((owner) => ({ owner, amount: 100_000_000n })),
      ...fresh.map((owner) => ({ owner, amount: 50_000_000n }))
    ])
    return mint
  })
  const insiders = insidersOf(await scan(mint, settingsWith()))
  // 7 pages, the disperse read once, the three launch buys taken from the launch window.
  expect(insiders.provenance.funderCalls).toBe(7 + 1)
  expect(insiders.provenance.launchCalls).toBe(7)
  expect(insiders.provenance.walletsRead).toBe(7)
  const clusters = valueOfFact(insiders.clusters)
  const funded = clusters.filter((cluster) => cluster.reason === "deployer_funded")
  expect(funded[0]!.members.map((member) => member.owner as string).sort()).toEqual(
    ring.map((wallet) => wallet.address as string).sort()
  )
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
    // As the worker scans: the funder table and the process's launch memory.
    const book = memoryFunderBook()
    const launches = memoryLaunches(10)
    const cold = await scan(mint, settingsWith({}, book, launches))
    const warm = await scan(mint, settingsWith({}, book, launches))
    const again = await scan(mint, settingsWith({}, book, launches))
    const extra = (evidence: typeof cold) => ({
      calls: (evidence.provenance.rpcCalls ?? 0) - (without.provenance.rpcCalls ?? 0),
      roundTrips: (evidence.provenance.rpcRoundTrips ?? 0) - (without.provenance.rpcRoundTrips ?? 0)
    })
    const line = (name: string, evidence: typeof cold) => {
      const { funderCalls, launchCalls, walletsRead, walletsCached } = insidersOf(evidence).provenance
      return `${name} +${extra(evidence).calls} / +${extra(evidence).roundTrips} (launch ${launchCalls}, funders ${funderCalls}: ${walletsRead} read, ${walletsCached} from the book)`
    }
    console.log(
      `insiders cost, 20 holders: without ${without.provenance.rpcCalls} calls / ${without.provenance.rpcRoundTrips} round trips;` +
        ` ${line("cold", cold)}; ${line("warm", warm)}; ${line("again", again)}`
    )
    // Cold: the launch window's 5 transactions first, then two calls a wallet for 17 of the 20 within 40.
    expect(extra(cold).calls).toBe(5 + 17 * 2)
    expect(extra(cold).calls).toBeLessThanOrEqual(40)
    expect(insidersOf(cold).provenance).toMatchObject({ launchCalls: 5, funderCalls: 34, walletsRead: 17 })
    const coldClusters = insidersOf(cold).clusters
    expect(coldClusters.status).toBe("not_observed")
    if (coldClusters.status === "not_observed")
      expect(coldClusters.reason).toBe("funder budget of 40 calls spent before 3 wallets were read")
    expect(insidersOf(cold).launchBuyers.status).toBe("observed")
    // The ring (the largest holders) was read first: the deployer's cluster is observed.
    expect(valueOfFact(insidersOf(cold).deployerHolding).cluster?.status).toBe("observed")
    // Warm: the book has 17, the other 3 are read; the launch window comes from the memory. Again: nothing.
    expect(extra(warm).calls).toBe(3 * 2)
    expect(insidersOf(warm).provenance).toMatchObject({ launchCalls: 0, walletsRead: 3, walletsCached: 17 })
    expect(extra(again).calls).toBe(0)
    expect(insidersOf(again).provenance).toMatchObject({ launchCalls: 0, funderCalls: 0, walletsCached: 20 })
    expect(insidersOf(again).provenance.launchTransactions).toBe(6)
    expect(insidersOf(again).launchBuyers).toEqual(insidersOf(cold).launchBuyers)
    expect(insidersOf(again).deployerHolding).toEqual(insidersOf(cold).deployerHolding)
    for (const evidence of [cold, warm, again]) expect(extra(evidence).roundTrips).toBeLessThanOrEqual(2)
    expect(valueOfFact(insidersOf(again).clusters)).toEqual(valueOfFact(insidersOf(warm).clusters))
    expect(valueOfFact(insidersOf(warm).clusters).filter((c) => c.reason === "deployer_funded")).toHaveLength(1)
  })
})

test("the launch memory: the same window's records, never another window's; the least recently used mint goes first", () => {
  const memory = memoryLaunches(2)
  const record = (signature: string) => ({ signature, slot: 1n, changes: [] })
  memory.set("mintA", ["a1", "a2"], [record("a1"), record("a2")])
  expect(memory.get("mintA", ["a1", "a2"])?.map((r) => r.signature)).toEqual(["a1", "a2"])
  // A window with another signature (a transaction dropped, or a new one in the window) is read again.
  expect(memory.get("mintA", ["a1"])).toBeUndefined()
  expect(memory.get("mintA", ["a1", "a2", "a3"])).toBeUndefined()
  memory.set("mintB", ["b1"], [record("b1")])
  memory.get("mintA", ["a1", "a2"])
  memory.set("mintC", ["c1"], [record("c1")])
  expect(memory.get("mintB", ["b1"])).toBeUndefined()
  expect(memory.get("mintA", ["a1", "a2"])).toHaveLength(2)
  expect(memory.get("mintC", ["c1"])).toHaveLength(1)
})
