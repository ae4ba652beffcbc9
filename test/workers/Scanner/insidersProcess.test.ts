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
    const mint = await world.inOneSlot(async () => {
      const mint = await world.mint({ deployer, decimals: 6 })
      await world.holders(mint, [
        { owner: deployer, amount: 100_000_000n },
        ...ring.map((owner) => ({ owner, amount: 70_000_000n }))
      ])
      return mint
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
      return Schema.decodeUnknownSync(ScanEvidenceV2)(JSON.parse(stdout.trim()))
    }
    const cold = await print()
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

    const warm = await print()
    expect(warm.insiders?.provenance).toMatchObject({ funderCalls: 0, walletsRead: 0 })
    expect(warm.insiders?.provenance.walletsCached).toBe(cold.insiders?.provenance.walletsRead ?? -1)
    expect(warm.insiders?.clusters).toEqual(cold.insiders?.clusters ?? { status: "not_observed", reason: "-" })
  }, 90_000)
})
