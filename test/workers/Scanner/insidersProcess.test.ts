import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { generateKeyPairSigner } from "@solana/kit"
import { Schema } from "effect"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { type Deployment, newDeployment, runCli } from "../../support/process.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// `risk-api scan --print` on a token whose deployer funded a ring of fresh wallets that bought in the
// creation slot: the printed evidence carries the insiders block, and the second run reads the first
// funders from wallet_funders instead of the chain.

let world: World
let rpc: RpcServer
let deployment: Deployment

beforeAll(async () => {
  world = makeWorld()
  rpc = startRpcServer(world)
  deployment = await newDeployment()
}, 90_000)

afterAll(async () => {
  await rpc.stop()
  await deployment.cleanup()
})

describe("risk-api scan --print: insiders", () => {
  test("shows the clusters, launch buyers and the deployer's holding; a rescan reuses the funders", async () => {
    const deployer = await world.signer()
    const ring = await Promise.all(Array.from({ length: 5 }, () => generateKeyPairSigner()))
    for (const wallet of ring) await world.transferSol(deployer, wallet.address, 1_000_000_000n)
    const { mint, holders } = await world.inOneSlot(async () => {
      const mint = await world.mint({ deployer, decimals: 6 })
      const holders = await world.holders(mint, [
        { owner: deployer, amount: 100_000_000n },
        ...ring.map((owner) => ({ owner, amount: 70_000_000n }))
      ])
      return { mint, holders }
    })
    world.advance(50n)
    await world.holders(
      mint,
      Array.from({ length: 11 }, () => ({ amount: 50_000_000n }))
    )
    const print = async () => {
      const { code, stdout, stderr } = await runCli(["scan", "--print", mint.address], {
        ...deployment.env,
        SOLANA_RPC_URL: rpc.url
      })
      expect(stderr).not.toContain("funders not")
      expect(code).toBe(0)
      return { evidence: Schema.decodeUnknownSync(ScanEvidenceV2)(JSON.parse(stdout.trim())), stderr }
    }
    const { evidence: cold, stderr: coldText } = await print()
    // Beside the JSON line, the block as text on stderr.
    for (const line of [
      `Deployer-funded cluster of 5 wallets holds 35% of supply (funder ${deployer.address})`,
      "5 wallets that bought in the creation slot hold 35% of supply",
      "launch buyers: creation slot",
      "5 bought 35% in it, 0 snipers 0% in the 10 slots after",
      "dev holding: 10% at launch, 10% now, sold 0%",
      "dev cluster: the deployer and 5 launch buyers it funded: 45% at launch, 45% now, sold 0%"
    ])
      expect(coldText).toContain(line)
    expect(cold.insiders?.clusters).toMatchObject({
      status: "observed",
      value: [
        { reason: "deployer_funded", funder: deployer.address, pct: 35 },
        { reason: "same_slot", pct: 35 }
      ]
    })
    expect(cold.insiders?.launchBuyers).toMatchObject({
      status: "observed",
      value: { sameSlotPct: 35, sameSlotCount: 5 }
    })
    expect(cold.insiders?.deployerHolding).toMatchObject({
      status: "observed",
      value: { initialPct: 10, currentPct: 10, soldPct: 0 }
    })
    expect(cold.insiders?.provenance.walletsRead).toBeGreaterThanOrEqual(16)

    const { evidence: warm } = await print()
    expect(warm.insiders?.provenance).toMatchObject({ funderCalls: 0, walletsRead: 0 })
    expect(warm.insiders?.provenance.walletsCached).toBe(cold.insiders?.provenance.walletsRead ?? -1)
    expect(warm.insiders?.clusters).toEqual(cold.insiders?.clusters ?? { status: "not_observed", reason: "-" })

    // The ring sells (here: burns) 60M of its 70M each; the dev keeps its own: the cluster's dev sold shows it.
    for (const holder of holders.slice(1)) await world.burn(mint, holder, 60_000_000n)
    const { evidence: sold, stderr: soldText } = await print()
    expect(sold.insiders?.deployerHolding).toMatchObject({
      status: "observed",
      value: { soldPct: 0, cluster: { status: "observed", value: { memberCount: 5, soldPct: 66.66 } } }
    })
    // Of the supply now (700M after the burns): the dev's 100M is 14.29%.
    expect(soldText).toContain("dev holding: 14.29% at launch, 14.29% now, sold 0%")
    expect(soldText).toContain(
      "dev cluster: the deployer and 5 launch buyers it funded: 64.29% at launch, 21.43% now, sold 66.66%"
    )
  }, 90_000)
})
