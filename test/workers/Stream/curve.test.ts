import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Option } from "effect"
import { streamEvents, streamNotifications } from "../../../src/workers/Stream/Metrics.ts"
import { runtimeFor } from "../../support/effect.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { PUMP_PROGRAM, type PumpLaunch, pumpCreate, pumpCurveAfterTrades } from "../../support/solana/Launches.ts"
import { referenceMarket } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer, untilSubscribed, verdictOf } from "./harness.ts"

// A dump into a pump.fun curve: the curve keeps its SOL as lamports of its own account, so no vault balance
// shows it. A launch the stream saw is tracked; the watcher subscribes to its curve account and a real SOL
// reserve falling STREAM_RESERVE_DROP_PCT (30 % here) below the highest it saw is a `reserves_dropped` event
// that queues a priority rescan. Smaller sells, buys, and the completed curve's migration are not.

let world: World
let server: RpcServer
let launch: PumpLaunch
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
const SOL = 1_000_000_000n
// The registry is the process's: other test files in this run count too.
const dropsCounted = async () =>
  (await streamEvents.get()).values.find(
    (value) => value.labels.kind === "reserves_dropped" && value.labels.program === PUMP_PROGRAM
  )?.value ?? 0
const curveNotices = async (outcome: string) =>
  (await streamNotifications.get()).values.find(
    (value) => value.labels.subscription === "account" && value.labels.outcome === outcome
  )?.value ?? 0
const dropsOf = (mint: string) =>
  sql(
    (db) => db<{ signature: string; program: string }>`
    select signature, program from stream_events where mint = ${mint} and kind = 'reserves_dropped' order by slot`
  )
const eventRequests = (mint: string) =>
  sql((db) => db<{ reason: string }>`select reason from scan_requests where mint = ${mint} and reason = 'event'`).then(
    (rows) => rows.length
  )
/** Rewrites the curve and waits until the watcher has handled the notification of that change. */
const trade = async (realQuote: bigint, options: { readonly complete?: boolean } = {}) => {
  const counts = async () =>
    (await curveNotices("handled")) + (await curveNotices("no_reserve_drop")) + (await curveNotices("curve_complete"))
  const before = await counts()
  pumpCurveAfterTrades(world, launch, realQuote, options)
  await until("the curve's notification", async () => ((await counts()) > before ? true : undefined))
}

beforeAll(async () => {
  world = makeWorld()
  const { reference } = await referenceMarket(world)
  server = startRpcServer(world)
  fibers.push(
    await run(startScanner(server, { referencePool: Option.some(reference.address) })),
    await run(startWatcher(server))
  )
  await untilSubscribed(server)
  const accountsBefore = server.pubsub.subscriptions("accountSubscribe")
  launch = await pumpCreate(world, { kind: "create_v2" })
  // The launch is scanned, then tracked: its mint account and its curve get a subscription each.
  expect((await verdictOf(app, launch.mint.address)).body.verdict).not.toBe("unknown")
  await until("the curve's subscription", async () =>
    server.pubsub.subscriptions("accountSubscribe") >= accountsBefore + 2 ? true : undefined
  )
}, 120_000)

describe("reserve drops on a pump.fun curve", () => {
  test("buys and a sell of 10% of the curve's SOL queue nothing; falling 40% below its high queues a priority rescan", async () => {
    const droppedBefore = await dropsCounted()
    await trade(10n * SOL)
    await trade(20n * SOL)
    await trade(18n * SOL)
    expect(await dropsOf(launch.mint.address)).toEqual([])
    expect(await eventRequests(launch.mint.address)).toBe(0)

    // 18 -> 12 SOL is a third below the last figure and 40% below the 20 SOL high: a dump split over sells is seen.
    await trade(12n * SOL)
    const drops = await until("the reserves_dropped event", async () => {
      const rows = await dropsOf(launch.mint.address)
      return rows.length > 0 ? rows : undefined
    })
    expect(drops.map((row) => row.program)).toEqual([PUMP_PROGRAM as string])
    expect(drops[0]?.signature).toMatch(/^curve:\d+$/)
    expect(
      await until("the priority rescan", async () => ((await eventRequests(launch.mint.address)) > 0 ? 1 : undefined))
    ).toBe(1)
    expect(await dropsCounted()).toBe(droppedBefore + 1)
  }, 60_000)

  test("after a drop the high starts again; the completed curve's migration emptying it is no drop", async () => {
    const droppedBefore = await dropsCounted()
    // 12 SOL is the new reference: 10 SOL is 17% below it.
    await trade(10n * SOL)
    expect(await dropsCounted()).toBe(droppedBefore)
    await trade(85n * SOL, { complete: true })
    await trade(0n, { complete: true })
    expect(await dropsCounted()).toBe(droppedBefore)
    expect((await dropsOf(launch.mint.address)).length).toBe(1)
  }, 60_000)
})
