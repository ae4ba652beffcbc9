import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import { CallBudgetExhausted, makeRpcClient, type RpcSettings } from "../../../src/workers/Scanner/Rpc.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings } from "../../support/solana/Settings.ts"
import { type BuiltMint, makeWorld, type World } from "../../support/solana/World.ts"

// The scanner's transport: the calls of one scan stage (issued in the same turn of the event loop) leave as
// one JSON-RPC batch, one HTTP round trip; every answer goes back to its own call. The budget counts
// calls, since providers bill calls.

let world: World
let server: RpcServer
let mint: BuiltMint

const settings = (overrides: Partial<RpcSettings> = {}): RpcSettings => testRpcSettings(server.url, overrides)

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  mint = await world.mint({ program: "token", decimals: 6 })
  await world.holders(mint, [{ amount: 5n }, { amount: 7n }])
})
afterEach(() => server.reset())
afterAll(() => server.stop())

const rejectionOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error
  )

describe("scanner RPC transport: batches", () => {
  test("three calls in one stage are one HTTP request, each answered with its own result", async () => {
    const { counter, rpc } = makeRpcClient(settings()).forScan(10)
    const [account, largest, slot] = await Promise.all([
      rpc.getAccountInfo(mint.address, { encoding: "base64" }).send(),
      rpc.getTokenLargestAccounts(mint.address).send(),
      rpc.getSlot().send()
    ])
    expect(account.value?.owner).toBe(mint.program)
    expect(largest.value.map((entry) => String(entry.amount))).toEqual(["7", "5"])
    expect(slot).toBe(world.slot)
    expect(server.requests()).toBe(1)
    expect(counter.calls()).toBe(3)
    expect(counter.roundTrips()).toBe(1)
  })

  test("one call's JSON-RPC error fails that call only; the rest of the batch is answered", async () => {
    const { rpc } = makeRpcClient(settings()).forScan(10)
    const [good, bad] = await Promise.allSettled([
      rpc.getTokenSupply(mint.address).send(),
      rpc.getTokenSupply(world.svm.latestBlockhash() as never).send()
    ])
    expect(good.status === "fulfilled" ? String(good.value.value.amount) : good.reason).toBe("12")
    expect(bad.status).toBe("rejected")
    expect(server.requests()).toBe(1)
  })

  test("with batching off, each call is its own request", async () => {
    const { counter, rpc } = makeRpcClient(settings({ batch: false })).forScan(10)
    await Promise.all([rpc.getSlot().send(), rpc.getSlot().send(), rpc.getTokenSupply(mint.address).send()])
    expect(server.requests()).toBe(3)
    expect(counter.roundTrips()).toBe(3)
    expect(counter.calls()).toBe(3)
  })

  test("the rate limit counts calls, as providers do: a second batch of a second's worth waits for the bucket", async () => {
    const { rpc } = makeRpcClient(settings({ requestsPerSecond: 4 })).forScan(10)
    const started = performance.now()
    await Promise.all(Array.from({ length: 4 }, () => rpc.getSlot().send()))
    await Promise.all(Array.from({ length: 4 }, () => rpc.getSlot().send()))
    // A lower bound only: 4 tokens refill in a second at 4 calls per second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900)
    expect(server.requests()).toBe(2)
  })

  test("the budget counts calls: the call past it fails with CallBudgetExhausted, the others are answered", async () => {
    const { counter, rpc } = makeRpcClient(settings()).forScan(2)
    const results = await Promise.allSettled([rpc.getSlot().send(), rpc.getSlot().send(), rpc.getSlot().send()])
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected"])
    expect(results[2]?.status === "rejected" ? results[2].reason : undefined).toBeInstanceOf(CallBudgetExhausted)
    expect(counter.calls()).toBe(2)
    expect(server.requests()).toBe(1)
  })

  test("a 429 on a batch retries the whole batch after Retry-After; the round trips count the retry", async () => {
    server.fault({ kind: "rateLimit", count: 1, retryAfterSeconds: 0 })
    const { counter, rpc } = makeRpcClient(settings()).forScan(10)
    const [a, b] = await Promise.all([rpc.getSlot().send(), rpc.getTokenSupply(mint.address).send()])
    expect(a).toBe(world.slot)
    expect(String(b.value.amount)).toBe("12")
    expect(server.requests()).toBe(2)
    expect(counter.roundTrips()).toBe(2)
  })

  test("a malformed batch answer is retried, and after the retries every call of the batch fails", async () => {
    server.fault({ kind: "malformed", count: 5 })
    const { rpc } = makeRpcClient(settings({ retries: 1 })).forScan(10)
    const errors = await Promise.all([
      rejectionOf(rpc.getSlot().send()),
      rejectionOf(rpc.getTokenSupply(mint.address).send())
    ])
    for (const error of errors) expect(String(error)).toContain("malformed JSON")
    expect(server.requests()).toBe(2)
  })
})
