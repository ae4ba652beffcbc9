import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { registry } from "../../../src/platform/Observability/Metrics.ts"
import { streamEvents } from "../../../src/workers/Stream/Metrics.ts"
import { runtimeFor } from "../../support/effect.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { PUMP_PROGRAM, pumpCreate, type PumpCreateKind } from "../../support/solana/Launches.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { referenceMarket } from "../../support/solana/Pools.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer, untilSubscribed, verdictOf } from "./harness.ts"

// Launches on the world reach the API through the stream alone: the watcher sees the create on the
// WebSocket, reads the transaction, queues a launch scan; the scanner stores it; GET /api/risk-check
// answers a verdict, with no rescan call.

let world: World
let server: RpcServer
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
// The registry is the process's: other test files in this run count too.
const launchesCounted = async (kind: string) =>
  (await streamEvents.get()).values.find((value) => value.labels.kind === kind && value.labels.program === PUMP_PROGRAM)
    ?.value ?? 0
let createV2Before = 0
// Registered before the runtime's own afterAll, so the fibers stop before the database does.
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
beforeAll(async () => {
  createV2Before = await launchesCounted("create_v2")
  world = makeWorld()
  // SOL at 150 USD (the reference pool), so a SOL curve's depth is valued.
  const { reference } = await referenceMarket(world)
  server = startRpcServer(world)
  fibers.push(
    await run(startScanner(server, { referencePool: Option.some(reference.address) })),
    await run(startWatcher(server))
  )
  await untilSubscribed(server)
}, 120_000)

const verdict = (mint: string, ms?: number) => verdictOf(app, mint, ms)

const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

describe("launches through the stream", () => {
  const kinds: ReadonlyArray<readonly [PumpCreateKind, "sol" | "usdc"]> = [
    ["create", "sol"],
    ["create_v2", "sol"],
    ["create_v2", "usdc"]
  ]
  for (const [kind, quote] of kinds) {
    runtimeTest(
      `pump ${kind} quoted in ${quote}: GET /api/risk-check answers a verdict with no other call`,
      async () => {
        const launch = await pumpCreate(world, { kind, quote })
        const answer = await verdict(launch.mint.address)
        expect([answer.status, answer.body]).not.toEqual([200, expect.objectContaining({ verdict: "unknown" })])
        expect({ status: answer.status, verdictKnown: ["ok", "warn", "block"].includes(answer.body.verdict) }).toEqual({
          status: 200,
          verdictKnown: true
        })
        // Before its first buy the curve holds no real quote, yet it quotes buys from its virtual reserves: a
        // market (no `no_market` block), young and thin, with missing evidence keeping it from `ok`.
        expect({ verdict: answer.body.verdict, noMarket: answer.body.flags.includes("no_market") }).toEqual({
          verdict: "warn",
          noMarket: false
        })
        const events = await sql(
          (db) => db<{ kind: string; program: string; slot: string }>`
        select kind, program, slot::text as slot from stream_events where mint = ${launch.mint.address}`
        )
        expect(events).toEqual([
          { kind, program: "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P", slot: launch.transaction.slot.toString() }
        ])
        // The evidence carries the launch as the stream saw it.
        const document = Option.getOrThrow(
          await run(ScansRepo.latestDocument(launch.mint.address as string as Address))
        )
        expect(document.launch as unknown).toEqual({
          program: PUMP_PROGRAM as string,
          kind,
          slot: Number(launch.transaction.slot),
          signature: launch.transaction.signature,
          time: new Date(launch.transaction.blockTime * 1000).toISOString()
        })
        const requests = await sql(
          (db) => db<{ reason: string; priority: number }>`
        select reason, priority from scan_requests where mint = ${launch.mint.address}`
        )
        expect(requests).toEqual([{ reason: "launch", priority: -2 }])
      }
    )
  }

  runtimeTest("the metrics count each launch by program and kind", async () => {
    expect(await launchesCounted("create_v2")).toBe(createV2Before + 2)
    const text = await registry.metrics()
    expect(text).toMatch(/risk_api_stream_subscriptions\{subscription="logs",state="up"\} [1-9]/)
  })
})

function runtimeTest(name: string, body: () => Promise<void>) {
  // A deadline for the test, not an assertion on a duration.
  test(name, body, 30_000)
}
