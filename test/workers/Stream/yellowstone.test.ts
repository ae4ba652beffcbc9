import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer } from "effect"
import { streamMalformed, streamReconnects } from "../../../src/workers/Stream/Metrics.ts"
import type { LogNotice } from "../../../src/workers/Stream/Source.ts"
import { makeYellowstoneSource } from "../../../src/workers/Stream/YellowstoneSource.ts"
import { runtimeFor } from "../../support/effect.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { type GeyserServer, startGeyserServer } from "../../support/solana/Geyser.ts"
import { PUMP_PROGRAM, pumpCreate } from "../../support/solana/Launches.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, NATIVE_MINT, type World } from "../../support/solana/World.ts"
import { startGrpcWatcher, startScanner, StreamLayer, untilGrpcSubscribed, verdictOf } from "./harness.ts"

// The stream on a Yellowstone gRPC source: the watcher reads the world's transactions from a Geyser
// Subscribe stream (test/support/solana/Geyser.ts), which carries each whole transaction, so the watcher
// makes no getTransaction; the scanner reads the world over JSON-RPC as usual. Last, the source alone on an
// endpoint that keeps no replay.

let world: World
/** The scanner's JSON-RPC. */
let server: RpcServer
/** The watcher's JSON-RPC, apart, so its calls are counted alone. */
let watcherRpc: RpcServer
let geyser: GeyserServer
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await geyser.stop()
  await watcherRpc.stop()
  await server.stop()
})
const { run, runtime } = runtimeFor(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const app = testApp((await runtime.runtime()).context)
beforeAll(async () => {
  world = makeWorld()
  await world.quoteMint(NATIVE_MINT, 9)
  server = startRpcServer(world)
  watcherRpc = startRpcServer(world)
  geyser = await startGeyserServer(world, { replayFrom: world.slot })
  fibers.push(await run(startScanner(server)), await run(startGrpcWatcher(watcherRpc, geyser, { pingMs: 1_000 })))
  await untilGrpcSubscribed(geyser)
}, 120_000)

const until = async (condition: () => boolean | Promise<boolean>, ms = 20_000) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await Bun.sleep(20)
  }
}
const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
const malformedCount = async () => (await streamMalformed.get()).values[0]?.value ?? 0
const grpcReconnects = async () =>
  (await streamReconnects.get()).values.find((value) => value.labels.subscription === "grpc")?.value ?? 0
const eventsOf = (mint: string) =>
  sql(
    (db) => db<{ kind: string; slot: string; backfilled: boolean }>`
      select kind, slot::text as slot, backfilled from stream_events where mint = ${mint}`
  )
const expectVerdict = async (mint: string) => {
  const answer = await verdictOf(app, mint)
  expect({ status: answer.status, verdictKnown: ["ok", "warn", "block"].includes(answer.body.verdict) }).toEqual({
    status: 200,
    verdictKnown: true
  })
}

describe("launches through a Yellowstone gRPC source", () => {
  test("a pump create_v2 reaches a verdict at GET /api/risk-check, and the watcher reads no transaction", async () => {
    const launch = await pumpCreate(world, { kind: "create_v2", quote: "sol" })
    await expectVerdict(launch.mint.address)
    expect(await eventsOf(launch.mint.address)).toEqual([
      { kind: "create_v2", slot: launch.transaction.slot.toString(), backfilled: false }
    ])
    expect(watcherRpc.calls.get("getTransaction") ?? 0).toBe(0)
    // The token went as x-token.
    expect(geyser.tokens.at(-1)).toBe("test-token")
  }, 30_000)

  test("a tracked mint's authorities revoked: the account updates queue a state event, with no JSON-RPC call", async () => {
    const mint = await world.mint({ decimals: 6, freezeAuthority: await world.signer() })
    // A read (as the API's read counter writes it) makes the mint tracked: the watcher adds its filters.
    await sql((db) => db`insert into mint_reads (mint, reads, last_read_at) values (${mint.address}, 1, now())`)
    await until(() => geyser.controls.accountAddresses().some((addresses) => addresses.includes(mint.address)))
    await until(() => geyser.controls.transactionAddresses().some((addresses) => addresses.includes(mint.address)))
    // The watcher compares each account update with the one before: the first is its baseline.
    await world.revoke(mint, "mint")
    const freeze = await world.revoke(mint, "freeze")
    await until(async () => (await eventsOf(mint.address)).length > 0)
    expect(await eventsOf(mint.address)).toEqual([
      { kind: "mint_changed", slot: freeze.slot.toString(), backfilled: false }
    ])
    // No JSON-RPC call at all from the watcher: no getTransaction, no getSignaturesForAddress.
    expect(watcherRpc.requests()).toBe(0)
  }, 30_000)

  test("an update that is not a whole transaction is skipped and counted; the stream reads on", async () => {
    const before = await malformedCount()
    geyser.controls.inject({
      filters: ["transactions"],
      transaction: {
        slot: String(world.slot),
        transaction: {
          signature: Buffer.alloc(3, 1),
          isVote: false,
          transaction: { signatures: [Buffer.alloc(3, 1)], message: { accountKeys: [Buffer.alloc(5, 2)] } },
          meta: { logMessages: ["Program log: Instruction: CreateV2"] }
        }
      }
    })
    await until(async () => (await malformedCount()) > before)
    expect((await malformedCount()) - before).toBe(1)
    const launch = await pumpCreate(world, { kind: "create", quote: "sol" })
    await expectVerdict(launch.mint.address)
  }, 30_000)

  test("after the server drops the stream, the watcher reconnects and replays the launches made while it was down", async () => {
    const reconnectsBefore = await grpcReconnects()
    const replaysBefore = geyser.controls.fromSlots.length
    geyser.controls.refuse(true)
    geyser.controls.drop()
    await until(async () => (await grpcReconnects()) > reconnectsBefore)
    const missed = await pumpCreate(world, { kind: "create_v2", quote: "usdc" })
    geyser.controls.refuse(false)
    await untilGrpcSubscribed(geyser)
    await expectVerdict(missed.mint.address)
    expect(await eventsOf(missed.mint.address)).toEqual([
      { kind: "create_v2", slot: missed.transaction.slot.toString(), backfilled: true }
    ])
    // The replay asked from a slot the watcher had seen, not later than the missed launch.
    const fromSlot = geyser.controls.fromSlots.at(-1)
    expect(geyser.controls.fromSlots.length).toBeGreaterThan(replaysBefore)
    expect(fromSlot !== undefined && fromSlot <= missed.transaction.slot).toBe(true)
    // Live again.
    const live = await pumpCreate(world, { kind: "create", quote: "sol" })
    await expectVerdict(live.mint.address)
    expect((await eventsOf(live.mint.address)).map((event) => event.backfilled)).toEqual([false])
    expect(watcherRpc.calls.get("getTransaction") ?? 0).toBe(0)
  }, 40_000)

  test("the watcher pings the stream, and makes it again when nothing comes back for three ping periods", async () => {
    await until(() => geyser.controls.pings() > 0)
    const reconnectsBefore = await grpcReconnects()
    const streamsBefore = geyser.tokens.length
    // The endpoint stops answering but keeps the stream open (a half-dead connection).
    geyser.controls.stall(true)
    await until(async () => (await grpcReconnects()) > reconnectsBefore)
    geyser.controls.stall(false)
    await until(() => geyser.tokens.length > streamsBefore)
    await untilGrpcSubscribed(geyser)
    const launch = await pumpCreate(world, { kind: "create_v2", quote: "sol" })
    await expectVerdict(launch.mint.address)
  }, 40_000)
})

describe("the Yellowstone source on an endpoint without replay", () => {
  test("it resumes live without from_slot (the gap is not filled), and each notice carries its transaction", async () => {
    const alone = makeWorld()
    await alone.quoteMint(NATIVE_MINT, 9)
    const endpoint = await startGeyserServer(alone)
    const notices: Array<LogNotice> = []
    const source = makeYellowstoneSource({
      url: endpoint.url,
      token: undefined,
      pingMs: 1_000,
      reconnectMaxMs: 200,
      replay: true
    })
    const fiber = Effect.runFork(
      source.logs(PUMP_PROGRAM, (notice) =>
        Effect.sync(() => {
          notices.push(notice)
        })
      )
    )
    try {
      await until(() => endpoint.controls.transactionAddresses().some((addresses) => addresses.includes(PUMP_PROGRAM)))
      const first = await pumpCreate(alone, { kind: "create", quote: "sol" })
      await until(() => notices.length === 1)
      const reconnectsBefore = await grpcReconnects()
      endpoint.controls.refuse(true)
      endpoint.controls.drop()
      await until(async () => (await grpcReconnects()) > reconnectsBefore)
      const missed = await pumpCreate(alone, { kind: "create", quote: "sol" })
      endpoint.controls.refuse(false)
      await until(() => endpoint.controls.transactionAddresses().some((addresses) => addresses.includes(PUMP_PROGRAM)))
      const live = await pumpCreate(alone, { kind: "create_v2", quote: "sol" })
      await until(() => notices.length === 2)
      expect(notices.map((notice) => notice.signature)).toEqual([
        first.transaction.signature,
        live.transaction.signature
      ])
      expect(notices.map((notice) => notice.signature)).not.toContain(missed.transaction.signature)
      expect(endpoint.controls.fromSlots).toEqual([])
      expect(endpoint.tokens.every((token) => token === undefined)).toBe(true)
      const notice = notices[1]
      expect({
        slot: notice?.slot,
        backfilled: notice?.backfilled,
        failed: notice?.failed,
        logs: notice?.logs,
        keys: notice?.transaction?.transaction.message.accountKeys,
        signatures: notice?.transaction?.transaction.signatures
      }).toEqual({
        slot: live.transaction.slot,
        backfilled: false,
        failed: false,
        logs: [...live.transaction.logs],
        keys: [...live.transaction.accountKeys],
        signatures: [...live.transaction.signatures]
      })
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
      await endpoint.stop()
    }
  }, 30_000)
})
