import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import type { Address as KitAddress } from "@solana/kit"
import { Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { USDC } from "../../../src/workers/Scanner/Pools/Quotes.ts"
import { streamMalformedInstructions } from "../../../src/workers/Stream/Metrics.ts"
import { runtimeFor } from "../../support/effect.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { recordVenueInstruction, type VenueIdl } from "../../support/solana/PoolLaunches.ts"
import { type BuiltPool, buildPool, type LpSpec, type PoolVenue } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { type BuiltMint, makeWorld, NATIVE_MINT, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer, untilSubscribed, verdictOf } from "./harness.ts"

// Pool creations on every venue the scanner reads, and the LaunchLab and DBC launchpads' launches and
// migrations: each instruction built to its program's public IDL in the world, seen by the watcher on the
// WebSocket, its transaction read, a priority scan queued for the pool's token (never its quote), and the
// verdict at GET /api/risk-check. A malformed one of each kind is counted and skipped.

let world: World
let server: RpcServer
let wsol: BuiltMint
let usdc: BuiltMint
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
beforeAll(async () => {
  world = makeWorld()
  wsol = await world.quoteMint(NATIVE_MINT, 9)
  usdc = await world.quoteMint(USDC, 6)
  server = startRpcServer(world)
  fibers.push(await run(startScanner(server)), await run(startWatcher(server)))
  await untilSubscribed(server)
}, 120_000)

const verdict = (mint: string, ms?: number) => verdictOf(app, mint, ms)
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

interface Case {
  readonly venue: PoolVenue
  readonly idl: VenueIdl
  readonly name: string
  readonly kind: "create" | "create_pool" | "migrate"
  readonly quote: "wsol" | "usdc"
  readonly signerAccount: string
  /** The instruction's accounts the IDL names for the pool, its token and its quote. */
  readonly accounts: (pool: BuiltPool, mint: KitAddress, quote: KitAddress) => Readonly<Record<string, KitAddress>>
}
const pair =
  (a: string, b: string, pool: string) =>
  (built: BuiltPool): Readonly<Record<string, KitAddress>> => ({
    [pool]: built.address,
    [a]: built.mintA,
    [b]: built.mintB
  })
/** The venues with an LP mint, and the LP holdings their fixture writes. */
const LP_VENUES: ReadonlySet<PoolVenue> = new Set(["raydium-amm-v4", "raydium-cpmm", "meteora-damm-v1"])
const LP: LpSpec = {
  incinerated: 400_000_000n,
  locked: 100_000_000n,
  locker: "streamflow",
  unlockAt: new Date(Date.UTC(2027, 5, 30)),
  wallets: [600_000_000n],
  burned: 0n
}
const CASES: ReadonlyArray<Case> = [
  {
    venue: "raydium-amm-v4",
    idl: "raydium_amm_v4",
    name: "initialize2",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "user_wallet",
    accounts: pair("coin_mint", "pc_mint", "amm")
  },
  {
    venue: "raydium-cpmm",
    idl: "raydium_cpmm",
    name: "initialize",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "creator",
    accounts: pair("token_0_mint", "token_1_mint", "pool_state")
  },
  {
    venue: "raydium-clmm",
    idl: "raydium_clmm",
    name: "create_pool",
    kind: "create_pool",
    quote: "usdc",
    signerAccount: "pool_creator",
    accounts: pair("token_mint_0", "token_mint_1", "pool_state")
  },
  {
    venue: "orca-whirlpool",
    idl: "orca_whirlpool",
    name: "initialize_pool",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "funder",
    accounts: pair("token_mint_a", "token_mint_b", "whirlpool")
  },
  {
    venue: "orca-whirlpool",
    idl: "orca_whirlpool",
    name: "initialize_pool_v2",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "funder",
    accounts: pair("token_mint_a", "token_mint_b", "whirlpool")
  },
  {
    venue: "meteora-dlmm",
    idl: "meteora_dlmm",
    name: "initialize_lb_pair",
    kind: "create_pool",
    quote: "usdc",
    signerAccount: "funder",
    accounts: pair("token_mint_x", "token_mint_y", "lb_pair")
  },
  {
    venue: "meteora-dlmm",
    idl: "meteora_dlmm",
    name: "initialize_customizable_permissionless_lb_pair2",
    kind: "create_pool",
    quote: "usdc",
    signerAccount: "funder",
    accounts: pair("token_mint_x", "token_mint_y", "lb_pair")
  },
  {
    venue: "meteora-damm-v1",
    idl: "meteora_damm_v1",
    name: "initialize_permissionless_constant_product_pool_with_config2",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "payer",
    accounts: pair("token_a_mint", "token_b_mint", "pool")
  },
  {
    venue: "meteora-damm-v2",
    idl: "meteora_damm_v2",
    name: "initialize_pool",
    kind: "create_pool",
    quote: "wsol",
    signerAccount: "payer",
    accounts: pair("token_a_mint", "token_b_mint", "pool")
  },
  {
    venue: "meteora-dbc",
    idl: "meteora_dbc",
    name: "initialize_virtual_pool_with_spl_token",
    kind: "create",
    quote: "wsol",
    signerAccount: "creator",
    accounts: (pool, mint, quote) => ({ pool: pool.address, base_mint: mint, quote_mint: quote })
  },
  {
    venue: "meteora-dbc",
    idl: "meteora_dbc",
    name: "migrate_meteora_damm",
    kind: "migrate",
    quote: "wsol",
    signerAccount: "payer",
    accounts: (pool, mint, quote) => ({ virtual_pool: pool.address, token_a_mint: mint, token_b_mint: quote })
  },
  {
    venue: "meteora-dbc",
    idl: "meteora_dbc",
    name: "migration_damm_v2",
    kind: "migrate",
    quote: "wsol",
    signerAccount: "payer",
    accounts: (pool, mint, quote) => ({ virtual_pool: pool.address, base_mint: mint, quote_mint: quote })
  },
  {
    venue: "raydium-launchlab",
    idl: "raydium_launchpad",
    name: "initialize_v2",
    kind: "create",
    quote: "wsol",
    signerAccount: "creator",
    accounts: (pool, mint, quote) => ({ pool_state: pool.address, base_mint: mint, quote_mint: quote })
  },
  {
    venue: "raydium-launchlab",
    idl: "raydium_launchpad",
    name: "initialize_with_token_2022",
    kind: "create",
    quote: "wsol",
    signerAccount: "creator",
    accounts: (pool, mint, quote) => ({ pool_state: pool.address, base_mint: mint, quote_mint: quote })
  },
  {
    venue: "raydium-launchlab",
    idl: "raydium_launchpad",
    name: "migrate_to_amm",
    kind: "migrate",
    quote: "wsol",
    signerAccount: "payer",
    accounts: (pool, mint, quote) => ({ pool_state: pool.address, base_mint: mint, quote_mint: quote })
  },
  {
    venue: "raydium-launchlab",
    idl: "raydium_launchpad",
    name: "migrate_to_cpswap",
    kind: "migrate",
    quote: "wsol",
    signerAccount: "payer",
    accounts: (pool, mint, quote) => ({ pool_state: pool.address, base_mint: mint, quote_mint: quote })
  }
]

const malformedCounted = async (program: string, instruction: string) =>
  (await streamMalformedInstructions.get()).values.find(
    (value) => value.labels.program === program && value.labels.instruction === instruction
  )?.value ?? 0

describe("pool creations and launchpads through the stream", () => {
  for (const entry of CASES) {
    test(`${entry.venue} ${entry.name}: a priority scan of the pool's token, a verdict with no other call; a malformed one is counted and skipped`, async () => {
      const mint = await world.mint({ decimals: 6 })
      const quote = entry.quote === "wsol" ? wsol : usdc
      const pool = await buildPool(world, entry.venue, {
        mint,
        quote,
        reserveMint: 593_100_000_000_000n,
        reserveQuote: entry.quote === "wsol" ? 42_000_000_000n : 12_345_000_000n,
        ...(LP_VENUES.has(entry.venue) ? { lp: LP } : {})
      })
      const sent = await recordVenueInstruction(world, {
        idl: entry.idl,
        name: entry.name,
        accounts: entry.accounts(pool, mint.address, quote.address),
        signerAccount: entry.signerAccount
      })
      const answer = await verdict(mint.address)
      expect({ status: answer.status, verdictKnown: ["ok", "warn", "block"].includes(answer.body.verdict) }).toEqual({
        status: 200,
        verdictKnown: true
      })
      // The token, never its quote, is queued, ahead of other work.
      const events = await sql(
        (db) => db<{ mint: string; kind: string; program: string; slot: string }>`
        select mint, kind, program, slot::text as slot from stream_events where signature = ${sent.transaction.signature}`
      )
      expect(events).toEqual([
        { mint: mint.address, kind: entry.kind, program: sent.program, slot: sent.transaction.slot.toString() }
      ])
      const requests = await sql(
        (db) => db<{ reason: string; priority: number }>`
        select reason, priority from scan_requests where mint = ${mint.address}`
      )
      expect(requests).toEqual([{ reason: "launch", priority: -2 }])
      const document = Option.getOrThrow(await run(ScansRepo.latestDocument(mint.address as string as Address)))
      // A launch's evidence carries it as the stream saw it; a migration is not the token's launch.
      expect(document.launch as unknown).toEqual(
        entry.kind === "migrate"
          ? undefined
          : {
              program: sent.program as string,
              kind: entry.kind,
              slot: Number(sent.transaction.slot),
              signature: sent.transaction.signature,
              time: new Date(sent.transaction.blockTime * 1000).toISOString()
            }
      )
      // The pool's facts are in the evidence: the scanner reads the venue.
      expect(JSON.stringify(document)).toContain(pool.address)
      // Cost per launch (README): the watcher's getTransaction, then the scan's calls.
      console.log(
        `${entry.venue} ${entry.name}: 1 getTransaction + scan ${document.provenance.rpcCalls} calls in ${document.provenance.rpcRoundTrips} requests`
      )

      // The same instruction, malformed: counted, nothing queued.
      const before = await malformedCounted(sent.program, entry.name)
      const other = await world.mint({ decimals: 6 })
      const bad = await recordVenueInstruction(world, {
        idl: entry.idl,
        name: entry.name,
        accounts: entry.accounts(pool, other.address, quote.address),
        signerAccount: entry.signerAccount,
        malformed: true
      })
      const deadline = Date.now() + 10_000
      while ((await malformedCounted(sent.program, entry.name)) === before && Date.now() < deadline) await Bun.sleep(20)
      expect(await malformedCounted(sent.program, entry.name)).toBe(before + 1)
      const badEvents = await sql(
        (db) => db<{ mint: string }>`select mint from stream_events where signature = ${bad.transaction.signature}`
      )
      expect(badEvents).toEqual([])
    }, 60_000)
  }

  test("a pool of two quotes (SOL/USDC) launches nothing", async () => {
    const pool = await buildPool(world, "raydium-cpmm", {
      mint: wsol,
      quote: usdc,
      reserveMint: 1_000_000_000_000n,
      reserveQuote: 150_000_000_000n,
      lp: LP
    })
    const sent = await recordVenueInstruction(world, {
      idl: "raydium_cpmm",
      name: "initialize",
      accounts: pair("token_0_mint", "token_1_mint", "pool_state")(pool),
      signerAccount: "creator"
    })
    // A later launch is seen, so the quote pool's transaction was handled before it.
    const mint = await world.mint({ decimals: 6 })
    const later = await buildPool(world, "raydium-cpmm", {
      mint,
      quote: wsol,
      reserveMint: 1_000_000n,
      reserveQuote: 1_000_000n,
      lp: LP
    })
    await recordVenueInstruction(world, {
      idl: "raydium_cpmm",
      name: "initialize",
      accounts: pair("token_0_mint", "token_1_mint", "pool_state")(later),
      signerAccount: "creator"
    })
    expect((await verdict(mint.address)).body.verdict).not.toBe("unknown")
    const events = await sql(
      (db) => db<{ mint: string }>`select mint from stream_events where signature = ${sent.transaction.signature}`
    )
    expect(events).toEqual([])
    const quoteRequests = await sql(
      (db) => db<{ mint: string }>`
      select mint from scan_requests where mint = any(${[wsol.address, usdc.address] as ReadonlyArray<KitAddress>}::text[])`
    )
    expect(quoteRequests).toEqual([])
  }, 60_000)
})
