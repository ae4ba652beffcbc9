import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer } from "effect"
import { LAUNCH_PROGRAMS } from "../../../src/workers/Stream/Programs.ts"
import { testDatabaseUrl } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { pumpCreate } from "../../support/solana/Launches.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, NATIVE_MINT, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer } from "./harness.ts"

// Leader election (STREAM_LEADER_ELECTION) on PostgreSQL: of two watchers, only the one holding the advisory
// lock subscribes; when it stops, the other takes the lock and the next launch is still seen. The embedded
// database has one process, which leads without a lock: these tests run with TEST_DATABASE_URL only.

let world: World
let server: RpcServer
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server?.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
const until = async (what: string, condition: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`)
    await Bun.sleep(20)
  }
}
const subscribed = () => server.pubsub.subscriptions("logsSubscribe")
// Advisory locks are per database, and test files share one: a key of this run's own.
const key = `stream-leader-test-${crypto.randomUUID()}`
const leading = { leaderElection: true, leaderRetryMs: 100, trackedLimit: 0 }

describe.skipIf(testDatabaseUrl === undefined)("leader election among watchers", () => {
  let first: Fiber.RuntimeFiber<unknown, unknown>
  beforeAll(async () => {
    world = makeWorld()
    await world.quoteMint(NATIVE_MINT, 9)
    server = startRpcServer(world)
    fibers.push(await run(startScanner(server)))
    first = await run(startWatcher(server, leading, key))
    fibers.push(first)
    await until("the first watcher's subscriptions", () => subscribed() >= LAUNCH_PROGRAMS.length)
    fibers.push(await run(startWatcher(server, leading, key)))
  }, 120_000)

  test("the second watcher stands by: one set of subscriptions, one read of each launch", async () => {
    // Several of the standby's retries.
    await Bun.sleep(500)
    expect(subscribed()).toBe(LAUNCH_PROGRAMS.length)
    const launch = await pumpCreate(world, { kind: "create_v2" })
    await until(
      "the launch's verdict",
      async () => (await read(await app(`/api/risk-check/${launch.mint.address}`))).body.verdict !== "unknown"
    )
    const rows = await sql(
      (db) => db<{ kind: string }>`select kind from stream_events where mint = ${launch.mint.address}`
    )
    expect(rows).toEqual([{ kind: "create_v2" }])
  }, 60_000)

  test("when the leader stops, the standby takes the lock and sees the next launch", async () => {
    // The leader's own subscriptions end (the standby may subscribe before the server has seen them close,
    // so the count alone can stay at or above one set).
    const leaders = new Set(server.pubsub.subscriptionIds("logsSubscribe"))
    await Effect.runPromise(Fiber.interrupt(first))
    await until("the leader's subscriptions closed", () =>
      server.pubsub.subscriptionIds("logsSubscribe").every((id) => !leaders.has(id))
    )
    await until("the standby's subscriptions", () => subscribed() === LAUNCH_PROGRAMS.length)
    const launch = await pumpCreate(world, { kind: "create" })
    await until(
      "the launch's verdict",
      async () => (await read(await app(`/api/risk-check/${launch.mint.address}`))).body.verdict !== "unknown"
    )
  }, 60_000)
})
