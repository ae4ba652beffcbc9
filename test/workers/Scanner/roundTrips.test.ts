import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import { scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import { buildPool, referenceMarket } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScanSettings } from "../../support/solana/Settings.ts"
import { type BuiltMint, makeWorld, type World } from "../../support/solana/World.ts"

// The scan's stages read in six rounds, each one JSON-RPC batch (src/workers/Scanner/Scan.ts). This pins the
// rounds and what each carries for a full scan that reaches every stage: 20 holders, an LP pool with
// its LP in a locker, the deployer and a simulated transfer. A new stage that adds a round, or a read
// that leaves its round, fails here.

let world: World
let server: RpcServer
let settings: ScanSettings
let wsol: BuiltMint

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  const market = await referenceMarket(world)
  wsol = market.wsol
  const { reference } = market
  settings = testScanSettings(reference.address)
})
afterAll(() => server.stop())

const sorted = (methods: ReadonlyArray<string>) => [...methods].sort()

describe("scanner: round trips", () => {
  test("a full scan is six batches, each carrying its stages' reads", async () => {
    const mint = await world.mint({ decimals: 6 })
    const signers = await Promise.all(Array.from({ length: 21 }, () => world.signer(1n)))
    await world.holders(
      mint,
      signers.map((owner, i) => ({ owner, amount: BigInt(1_000_000 + i * 1_000) }))
    )
    await buildPool(world, "raydium-amm-v4", {
      mint,
      quote: wsol,
      reserveMint: 600_000_000n,
      reserveQuote: 80_000_000_000n,
      lp: {
        incinerated: 400_000_000n,
        locked: 300_000_000n,
        locker: "jupiter-lock",
        unlockAt: new Date(Date.UTC(2027, 5, 30)),
        wallets: [200_000_000n],
        burned: 0n
      }
    })
    server.reset()
    const { counter, rpc } = makeRpcClient(testRpcSettings(server.url)).forScan(64)
    const evidence = await scanMint(rpc, counter, mint.address, settings)

    expect(evidence.provenance.partial).toEqual([])
    expect(evidence.sellPath?.transfer.status).toBe("observed")
    const discovery = server.batches[1]!.filter((method) => method === "getProgramAccounts").length
    expect(discovery).toBeGreaterThan(0)
    expect(server.batches.map(sorted)).toEqual([
      ["getMultipleAccounts"], // mint, metadata PDA, reference and canonical pools
      sorted([
        "getTokenLargestAccounts",
        "getSignaturesForAddress",
        ...Array.from({ length: discovery }, () => "getProgramAccounts")
      ]),
      sorted(["getMultipleAccounts", "getMultipleAccounts", "getTransaction"]), // holders' accounts; pools' vaults and LP mint; first transaction
      sorted(["getMultipleAccounts", "getTokenLargestAccounts"]), // owners; LP holders
      sorted(["simulateTransaction", "getMultipleAccounts"]), // the transfer; LP holders' accounts
      ["getMultipleAccounts"] // LP holders' owners (the locker's state)
    ])
    expect(evidence.provenance.rpcRoundTrips).toBe(6)
    expect(evidence.provenance.rpcCalls).toBe(server.batches.flat().length)
  })
})
