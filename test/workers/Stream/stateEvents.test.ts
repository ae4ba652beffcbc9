import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { makeScanner } from "../../../src/workers/Scanner/Worker.ts"
import { WebhookSettings } from "../../../src/features/Webhooks/Config.ts"
import { runWebhookBackground } from "../../../src/features/Webhooks/Background.ts"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { runtimeFor } from "../../support/effect.ts"
import { postJson, read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { pumpSwapWithdraw } from "../../support/solana/Launches.ts"
import { buildPool, type BuiltPool, referenceMarket } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testScannerConfig } from "../../support/solana/Settings.ts"
import { type BuiltMint, makeWorld, type World } from "../../support/solana/World.ts"
import { startReceiver, waitFor } from "../../features/Webhooks/receiver.ts"
import { testSettings } from "../../features/Webhooks/harness.ts"
import { startWatcher, StreamLayer } from "./harness.ts"

// A rug in progress on a watched mint: LP taken out of its PumpSwap pool. The watcher hears the withdraw
// on the mint's logs subscription, queues a priority rescan, the scanner stores the drained pool, the
// evaluator raises the watch's alert and the receiver gets the webhook, with no rescan call.

let world: World
let server: RpcServer
const receiver = startReceiver()
const fibers: Array<Fiber.RuntimeFiber<unknown, unknown>> = []
afterAll(async () => {
  await Effect.runPromise(Fiber.interruptAll(fibers))
  await server.stop()
  receiver.stop()
})
const { run, runtime } = runtimeFor(
  StreamLayer.pipe(Layer.provideMerge(Layer.merge(sqlServices(), Layer.succeed(WebhookSettings, testSettings))))
)
const app = testApp((await runtime.runtime()).context)

let mint: BuiltMint
let pool: BuiltPool
beforeAll(async () => {
  world = makeWorld()
  // SOL at 150 USD; the pool holds 600,000,000 tokens against 80 SOL: about 24,000 USD of liquidity.
  const { wsol, reference } = await referenceMarket(world)
  mint = await world.mint({ decimals: 6 })
  await world.holders(mint, [{ amount: 30_000_000_000_000n }, { amount: 20_000_000_000_000n }])
  pool = await buildPool(world, "pumpswap", {
    mint,
    quote: wsol,
    reserveMint: 600_000_000_000_000n,
    reserveQuote: 80_000_000_000n,
    lp: {
      incinerated: 400_000_000n,
      locked: 300_000_000n,
      locker: "streamflow",
      unlockAt: new Date(Date.UTC(2027, 5, 30)),
      wallets: [200_000_000n],
      burned: 0n
    }
  })
  server = startRpcServer(world)
  const scanner = await run(
    makeScanner(testScannerConfig(server.url, { pollMs: 10, referencePool: Option.some(reference.address) }))
  )
  fibers.push(await run(Effect.forkDaemon(scanner.run)))
  fibers.push(
    await run(Effect.forkDaemon(Effect.scoped(Effect.zipRight(runWebhookBackground(testSettings), Effect.never))))
  )
  fibers.push(await run(startWatcher(server)))
}, 120_000)

const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

describe("state events on a watched mint", () => {
  test("an LP withdraw delivers the watch's webhook, through a priority rescan and no other call", async () => {
    const account = await run(Accounts.create("stream", { plan: "whale" }))
    const { key } = await run(Accounts.createKey(account.id, ["watch:write", "webhook:write"], null))
    const auth = { authorization: `Bearer ${key}` }
    const endpoint = await read(await app("/api/v1/webhooks", postJson({ url: receiver.url }, auth)))
    expect(endpoint.status).toBe(201)
    // The first scan: the pool is liquid, so the rule does not hold.
    await run(ScanRequestsRepo.request(mint.address as string as Address))
    const first = await waitFor(
      "the first scan",
      async () => {
        const answer = await read(await app(`/api/risk-check/${mint.address}`))
        return answer.body.verdict === "unknown" ? undefined : answer.body
      },
      20_000
    )
    expect(first.scan_depth).toBe("full")
    const watch = await read(
      await app(
        "/api/v1/decision/set-watch",
        postJson(
          {
            mint: mint.address,
            rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 20_000 }],
            notify: true
          },
          auth
        )
      )
    )
    expect(watch.status).toBe(201)
    // The watch makes the mint tracked: the watcher subscribes to its logs and its account.
    await waitFor(
      "the mint's subscriptions",
      () => (server.pubsub.subscriptions("accountSubscribe") >= 1 ? true : undefined),
      10_000
    )
    await Bun.sleep(50)
    expect(receiver.received).toEqual([])

    const withdrawn = Date.now()
    const withdraw = await pumpSwapWithdraw(world, pool, 5n)
    const delivered = await waitFor(
      "the watch's webhook",
      () => receiver.received.find((entry) => entry.body.includes(mint.address)),
      20_000
    )
    const body = JSON.parse(delivered.body) as { type: string; data: { mint: string } }
    expect({ type: body.type, mint: body.data.mint }).toEqual({ type: "watch.triggered", mint: mint.address })
    expect(delivered.at).toBeGreaterThanOrEqual(withdrawn)
    console.log(`LP withdraw to webhook: ${delivered.at - withdrawn} ms`)
    const events = await sql(
      (db) => db<{ kind: string; signature: string }>`
      select kind, signature from stream_events where mint = ${mint.address} and kind = 'lp_removed'`
    )
    expect(events).toEqual([{ kind: "lp_removed", signature: withdraw.signature }])
    const requests = await sql(
      (db) =>
        db<{ reason: string }>`select reason from scan_requests where mint = ${mint.address} order by requested_at`
    )
    expect(requests.map((row) => row.reason)).toEqual(["rescan", "event"])
  }, 60_000)
})

describe("authority and freeze events on a tracked mint", () => {
  test("SetAuthority and a holder's freeze each queue a priority rescan; the account's first change is seen too", async () => {
    const tracked = await world.mint({ decimals: 6, freezeAuthority: await world.signer() })
    const [holder] = await world.holders(tracked, [{ amount: 5_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const accountSubscriptions = server.pubsub.subscriptions("accountSubscribe")
    const logsSubscriptions = server.pubsub.subscriptions("logsSubscribe")
    // A read (as the API's read counter writes it) makes the mint tracked.
    await sql((db) => db`insert into mint_reads (mint, reads, last_read_at) values (${tracked.address}, 1, now())`)
    await waitFor(
      "the tracked mint's account and logs subscriptions",
      () =>
        server.pubsub.subscriptions("accountSubscribe") > accountSubscriptions &&
        server.pubsub.subscriptions("logsSubscribe") > logsSubscriptions
          ? true
          : undefined,
      10_000
    )
    const kindsOf = () =>
      sql(
        (db) => db<{ kind: string; signature: string }>`
        select kind, signature from stream_events where mint = ${tracked.address} order by kind`
      )

    // accountSubscribe sends changes only: the watcher read the account when tracking began, so this first
    // change is one too (before, it became the comparison's starting point and was missed).
    const revoked = await world.revoke(tracked, "mint")
    await waitFor("the authority events", async () => ((await kindsOf()).length >= 2 ? true : undefined), 10_000)
    expect(await kindsOf()).toEqual([
      { kind: "authority_set", signature: revoked.signature },
      { kind: "mint_changed", signature: `account:${revoked.slot}` }
    ])

    const frozen = await world.freeze(tracked, holder.account)
    await waitFor(
      "the freeze event",
      async () => ((await kindsOf()).some((row) => row.kind === "holder_frozen") ? true : undefined),
      10_000
    )
    expect((await kindsOf()).filter((row) => row.kind === "holder_frozen")).toEqual([
      { kind: "holder_frozen", signature: frozen.signature }
    ])
    const reasons = await sql(
      (db) => db<{ reason: string }>`select reason from scan_requests where mint = ${tracked.address}`
    )
    expect(reasons.length).toBeGreaterThanOrEqual(1)
    expect(reasons.every((row) => row.reason === "event")).toBe(true)
  }, 60_000)
})
