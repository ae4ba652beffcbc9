import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer } from "effect"
import { registry } from "../../../src/platform/Observability/Metrics.ts"
import { LAUNCH_PROGRAMS } from "../../../src/workers/Stream/Programs.ts"
import { runtimeFor } from "../../support/effect.ts"
import { read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { PUMP_PROGRAM, pumpCreate } from "../../support/solana/Launches.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, NATIVE_MINT, type World } from "../../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer } from "./harness.ts"

// The stream when the socket fails: launches made while it is down are backfilled; two watcher
// processes queue and scan each launch once; a message that cannot be parsed is counted and skipped.

let world: World
let server: RpcServer
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
beforeAll(async () => {
  world = makeWorld()
  await world.quoteMint(NATIVE_MINT, 9)
  server = startRpcServer(world)
  // Two watcher processes (each its own source, socket and state) and one scanner, on one database. They track
  // no mint (trackedLimit 0): these tests are about launches, and a tracked mint's own subscriptions (its pools,
  // its deployer) would be mid-handshake when a test drops the sockets; kit then leaves an AbortError unhandled
  // (@solana/rpc-subscriptions-spec races its abort promise only after the subscribe request was sent), which
  // the service drops (KitSource.ts) but a test runner counts as a failure. State events: stateEvents.test.ts.
  const untracked = { trackedLimit: 0 }
  fibers.push(
    await run(startScanner(server)),
    await run(startWatcher(server, untracked)),
    await run(startWatcher(server, untracked))
  )
  await until(() => server.pubsub.subscriptions("logsSubscribe") >= 2 * LAUNCH_PROGRAMS.length)
}, 120_000)

const until = async (condition: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await Bun.sleep(20)
  }
}
const verdict = async (mint: string) => (await read(await app(`/api/risk-check/${mint}`))).body.verdict as string
const known = async (mints: ReadonlyArray<string>) =>
  (await Promise.all(mints.map(verdict))).every((v) => v !== "unknown")
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
const metric = async (name: string) => {
  const line = (await registry.metrics()).split("\n").find((entry) => entry.startsWith(`${name} `))
  return Number(line?.split(" ")[1] ?? 0)
}

describe("the stream when things fail", () => {
  test("with 2 watcher processes, each launch is queued once and scanned once", async () => {
    const launches = [
      await pumpCreate(world, { kind: "create_v2" }),
      await pumpCreate(world, { kind: "create" }),
      await pumpCreate(world, { kind: "create_v2" })
    ]
    const mints = launches.map((launch) => launch.mint.address)
    await until(() => known(mints))
    // Both watchers saw every create (two logs subscriptions per program are open).
    expect(server.pubsub.subscriptions("logsSubscribe")).toBeGreaterThanOrEqual(2 * LAUNCH_PROGRAMS.length)
    const rows = await sql(
      (db) => db<{ mint: string; events: string; requests: string; scans: string }>`
      select m.mint,
        (select count(*) from stream_events e where e.mint = m.mint)::text as events,
        (select count(*) from scan_requests r where r.mint = m.mint)::text as requests,
        (select count(*) from scans s where s.mint = m.mint)::text as scans
      from unnest(${mints}::text[]) as m(mint) order by m.mint`
    )
    expect(rows).toEqual([...mints].sort().map((mint) => ({ mint, events: "1", requests: "1", scans: "1" })))
  }, 60_000)

  test("3 tokens launched while the socket is down are all backfilled after it reconnects", async () => {
    const backfilledBefore = await metric("risk_api_stream_backfilled_total")
    const reconnectsBefore = await registry.getSingleMetricAsString("risk_api_stream_reconnects_total")
    server.pubsub.refuse(true)
    server.pubsub.drop()
    expect(server.pubsub.count()).toBe(0)
    const launches = [
      await pumpCreate(world, { kind: "create_v2" }),
      await pumpCreate(world, { kind: "create_v2", quote: "usdc" }),
      await pumpCreate(world, { kind: "create" })
    ]
    const mints = launches.map((launch) => launch.mint.address)
    // Nothing can have been heard of them: no socket is open.
    expect(await Promise.all(mints.map(verdict))).toEqual(["unknown", "unknown", "unknown"])
    server.pubsub.refuse(false)
    await until(() => known(mints), 30_000)
    const rows = await sql(
      (db) => db<{ mint: string; backfilled: boolean }>`
      select mint, backfilled from stream_events where mint = any(${mints}::text[]) order by mint`
    )
    expect(rows).toEqual([...mints].sort().map((mint) => ({ mint, backfilled: true })))
    // Each of the two watchers filled the gap of the pump program: 3 transactions each, at least.
    expect(await metric("risk_api_stream_backfilled_total")).toBeGreaterThanOrEqual(backfilledBefore + 6)
    expect(await registry.getSingleMetricAsString("risk_api_stream_reconnects_total")).not.toBe(reconnectsBefore)
  }, 60_000)

  test("a message that is not JSON and a notification of the wrong shape are counted and skipped; the next launch still lands", async () => {
    const before = await metric("risk_api_stream_malformed_total")
    // One broken message per socket, and one misshapen notification per logs subscription (the launch
    // programs' and the tracked mints', over both watchers).
    const expected = before + server.pubsub.count() + server.pubsub.subscriptions("logsSubscribe")
    server.pubsub.inject('{"jsonrpc":"2.0","method":"logsNotification","params":')
    server.pubsub.notifyAll("logsNotification", { context: { slot: 1 }, value: { signature: 42, logs: "not a list" } })
    await until(async () => (await metric("risk_api_stream_malformed_total")) >= expected)
    // (Subscriptions of mints that became tracked meanwhile may have got one too.)
    await Bun.sleep(100)
    const skipped = await metric("risk_api_stream_malformed_total")
    const launch = await pumpCreate(world, { kind: "create_v2" })
    await until(() => known([launch.mint.address]))
    // A well-formed launch is not counted as malformed.
    expect(await metric("risk_api_stream_malformed_total")).toBe(skipped)
    expect(await verdict(launch.mint.address)).not.toBe("unknown")
    const rows = await sql(
      (db) => db<{ program: string }>`select program from stream_events where mint = ${launch.mint.address}`
    )
    expect(rows).toEqual([{ program: PUMP_PROGRAM }])
  }, 60_000)
})
