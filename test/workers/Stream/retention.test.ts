import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer } from "effect"
import { StreamEventsRepo } from "../../../src/workers/Stream/EventsRepo.ts"
import { runtimeFor } from "../../support/effect.ts"
import { sqlServices } from "../../support/layers.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld } from "../../support/solana/World.ts"
import { startWatcher, StreamLayer } from "./harness.ts"

// stream_events retention: a watcher deletes the events received before STREAM_EVENTS_RETENTION_DAYS as it
// starts (and hourly), in batches; newer events stay.

let server: RpcServer
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
})
const { run } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

const insert = (signature: string, daysAgo: number) =>
  sql(
    (db) => db`
    insert into stream_events (signature, mint, kind, program, slot, received_at)
    values (${signature}, 'RetentionMint1111111111111111111111111111111', 'create', 'p', 1,
      now() - ${daysAgo} * interval '1 day')`
  )
const signatures = () =>
  sql(
    (db) =>
      db<{
        signature: string
      }>`select signature from stream_events where signature like 'retention-%' order by signature`
  ).then((rows) => rows.map((row) => row.signature))

beforeAll(() => {
  server = startRpcServer(makeWorld())
})

describe("stream_events retention", () => {
  test("pruneBatch deletes at most its batch, oldest first, and only past the cutoff", async () => {
    await insert("retention-a-old", 40)
    await insert("retention-b-older", 50)
    await insert("retention-c-new", 2)
    expect(await run(StreamEventsRepo.pruneBatch(30, 1))).toBe(1)
    expect(await signatures()).toEqual(["retention-a-old", "retention-c-new"])
    expect(await run(StreamEventsRepo.pruneBatch(30, 10))).toBe(1)
    expect(await run(StreamEventsRepo.pruneBatch(30, 10))).toBe(0)
    expect(await signatures()).toEqual(["retention-c-new"])
  })

  test("a watcher prunes as it starts, by its retention setting", async () => {
    await insert("retention-d-old", 8)
    await insert("retention-e-new", 6)
    fibers.push(await run(startWatcher(server, { eventsRetentionDays: 7 })))
    const deadline = Date.now() + 10_000
    while ((await signatures()).includes("retention-d-old") && Date.now() < deadline) await Bun.sleep(20)
    expect(await signatures()).toEqual(["retention-c-new", "retention-e-new"])
  })
})
