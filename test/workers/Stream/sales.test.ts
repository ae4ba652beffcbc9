import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import type { Address as KitAddress } from "@solana/kit"
import { Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { streamNotifications } from "../../../src/workers/Stream/Metrics.ts"
import { LAUNCH_PROGRAMS } from "../../../src/workers/Stream/Programs.ts"
import { runtimeFor } from "../../support/effect.ts"
import { read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { recordVenueInstruction, setTokenAmount } from "../../support/solana/PoolLaunches.ts"
import { type BuiltPool, buildPool } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { type BuiltMint, makeWorld, NATIVE_MINT, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer } from "./harness.ts"

// State events a launch's deployer and its pool make: the deployer selling the token (a swap it signed in
// which it holds less of the mint, heard on a subscription to the deployer's transactions once a scan
// names it) and a large drop of a pool's reserves (an LP removal or a sale that takes at least
// STREAM_RESERVE_DROP_PCT of a vault, 30 % here), on a Raydium CPMM pool launched through the stream.

let world: World
let server: RpcServer
let wsol: BuiltMint
let mint: BuiltMint
let pool: BuiltPool
let deployerTokens: KitAddress
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
const until = async <A>(what: string, probe: () => Promise<A | undefined>, ms = 20_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what}: not in time`)
    await Bun.sleep(25)
  }
}
const eventsOf = (signature: string) =>
  sql((db) => db<{ kind: string }>`select kind from stream_events where signature = ${signature} order by kind`).then(
    (rows) => rows.map((row) => row.kind)
  )

/** The pool's vault of `side` (the token or wrapped SOL). */
const vaultOf = (side: KitAddress): KitAddress => {
  const vault = pool.mintA === side ? pool.vaultA : pool.vaultB
  if (vault === null) throw new Error("a CPMM pool has vaults")
  return vault
}

beforeAll(async () => {
  world = makeWorld()
  wsol = await world.quoteMint(NATIVE_MINT, 9)
  server = startRpcServer(world)
  fibers.push(await run(startScanner(server)), await run(startWatcher(server)))
  await until("the programs' subscriptions", async () =>
    server.pubsub.subscriptions("logsSubscribe") >= LAUNCH_PROGRAMS.length ? true : undefined
  )
  mint = await world.mint({ decimals: 6 })
  deployerTokens = await world.fund(mint, mint.deployer.address, 100_000_000_000_000n)
  pool = await buildPool(world, "raydium-cpmm", {
    mint,
    quote: wsol,
    reserveMint: 600_000_000_000_000n,
    reserveQuote: 80_000_000_000n,
    lp: {
      incinerated: 400_000_000n,
      locked: 100_000_000n,
      locker: "streamflow",
      unlockAt: new Date(Date.UTC(2027, 5, 30)),
      wallets: [600_000_000n],
      burned: 0n
    }
  })
  // The pool's creation, seen by the stream: the mint becomes tracked and its first scan names the deployer.
  await recordVenueInstruction(world, {
    idl: "raydium_cpmm",
    name: "initialize",
    accounts: { pool_state: pool.address, token_0_mint: pool.mintA, token_1_mint: pool.mintB },
    signerAccount: "creator"
  })
  await until("the first scan", async () => {
    const answer = await read(await app(`/api/risk-check/${mint.address}`))
    return answer.body?.verdict === "unknown" ? undefined : true
  })
  // The launch's programs, the mint's logs and its deployer's logs.
  await until("the deployer's subscription", async () =>
    server.pubsub.subscriptions("logsSubscribe") >= LAUNCH_PROGRAMS.length + 2 ? true : undefined
  )
}, 120_000)

/** Notifications read and found not to be a sale of the deployer's (the buy below). */
const notSales = async () =>
  (await streamNotifications.get()).values.find(
    (value) => value.labels.subscription === "logs" && value.labels.outcome === "not_a_sale"
  )?.value ?? 0

/** A swap the deployer signs on the pool: `sold` tokens in (negative: bought), and the quote vault keeping `keepPct`. */
const deployerSwap = (sold: bigint, keepPct: bigint) =>
  recordVenueInstruction(
    world,
    {
      idl: "raydium_cpmm",
      name: "swap_base_input",
      accounts: {
        pool_state: pool.address,
        input_token_account: deployerTokens,
        input_vault: vaultOf(mint.address),
        output_vault: vaultOf(wsol.address),
        input_token_mint: mint.address,
        output_token_mint: wsol.address
      },
      signerAccount: "payer",
      args: { amount_in: sold < 0n ? -sold : sold, minimum_amount_out: 0n },
      effects: () => {
        setTokenAmount(world, deployerTokens, (before) => before - sold)
        setTokenAmount(world, vaultOf(mint.address), (before) => before + sold)
        setTokenAmount(world, vaultOf(wsol.address), (before) => (before * keepPct) / 100n)
      }
    },
    mint.deployer
  )

describe("a deployer's sale and a drop of the pool's reserves", () => {
  test("the first scan names the deployer the world deployed the mint with", async () => {
    const document = Option.getOrThrow(await run(ScansRepo.latestDocument(mint.address as string as Address)))
    const deployer = document.deployer.status === "observed" ? document.deployer.value.address : undefined
    expect(deployer as string | undefined).toBe(mint.deployer.address)
  })

  test("a buy by the deployer is no sale; a sale by the deployer is a deployer_sell, and one that drains 45 % of the quote vault a reserves_dropped too", async () => {
    // Bought 1,000 tokens (its balance grows), the quote vault grows a little: read, and nothing to record.
    const dismissed = await notSales()
    const buy = await deployerSwap(-1_000_000_000n, 101n)
    await until("the buy read and dismissed", async () => ((await notSales()) > dismissed ? true : undefined))
    // Sold 50,000,000 tokens for 45 % of the pool's SOL.
    const sale = await deployerSwap(50_000_000_000_000n, 55n)
    const kinds = await until("the sale's events", async () => {
      const found = await eventsOf(sale.transaction.signature)
      return found.length === 2 ? found : undefined
    })
    expect(kinds).toEqual(["deployer_sell", "reserves_dropped"])
    expect(await eventsOf(buy.transaction.signature)).toEqual([])
    const requests = await sql(
      (db) => db<{ reason: string }>`select reason from scan_requests where mint = ${mint.address} and reason = 'event'`
    )
    expect(requests.length).toBeGreaterThanOrEqual(1)
  }, 60_000)

  test("an LP removal that takes 10 % is lp_removed only; one that takes 60 % is reserves_dropped too", async () => {
    const withdraw = (keepPct: bigint) =>
      recordVenueInstruction(world, {
        idl: "raydium_cpmm",
        name: "withdraw",
        accounts: {
          pool_state: pool.address,
          token_0_vault: pool.vaultA as KitAddress,
          token_1_vault: pool.vaultB as KitAddress,
          vault_0_mint: pool.mintA,
          vault_1_mint: pool.mintB
        },
        signerAccount: "owner",
        effects: () => {
          for (const vault of [pool.vaultA, pool.vaultB])
            setTokenAmount(world, vault as KitAddress, (before) => (before * keepPct) / 100n)
        }
      })
    const small = await withdraw(90n)
    const large = await withdraw(40n)
    const kinds = await until("the large removal's events", async () => {
      const found = await eventsOf(large.transaction.signature)
      return found.length === 2 ? found : undefined
    })
    expect(kinds).toEqual(["lp_removed", "reserves_dropped"])
    expect(await eventsOf(small.transaction.signature)).toEqual(["lp_removed"])
  }, 60_000)
})
