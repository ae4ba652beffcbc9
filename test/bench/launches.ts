// npm run bench:launches [-- --rate 20 --seconds 60 --webhooks 10 --event-rate 2]
// Two timings on the local world, one process: the watcher on the world's WebSocket, one scanner (with a
// SOL/USD reference pool), the webhook evaluator and delivery worker, the app. On PostgreSQL with
// TEST_DATABASE_URL, else embedded PGlite. Each ends with its issue #26 target line, met or not.
//
// 1. State event to webhook: `webhooks` mints, each with a liquid PumpSwap pool, a first scan and a notifying
//    watch (liquidity_usd < 20,000) whose account has one webhook endpoint, a Bun.serve receiver on
//    127.0.0.1. Then, at `event-rate` a second, one LP withdraw per mint (the vaults keep 5%); for each, the
//    time from just before the withdraw's first write to the world (its vaults, then its transaction) to the
//    receiver getting that mint's watch.triggered webhook with a valid signature. Target: p95 ≤ 2 s.
// 2. Launch to verdict: pump.fun create_v2 launches at `rate` a second for `seconds`; for each, the time
//    from the world recording its create_v2 transaction (when the world's PubSub emits its logs; the world
//    builds the mint and curve before it, which is not counted) to the first GET /api/risk-check/<mint>
//    (polled every 10 ms) that answers a verdict. Prints the launches actually made per second (the world
//    builds each with real transactions) and the RPC calls per launch. Target: p95 ≤ 1 s.
import { loadavg } from "node:os"
import { parseArgs } from "node:util"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { Effect, Fiber, Layer, Logger, LogLevel, ManagedRuntime, Option } from "effect"
import type { Address } from "../../src/domain/Address.ts"
import { Accounts } from "../../src/features/Accounts/Accounts.ts"
import { ScanRequestsRepo } from "../../src/features/Scans/ScanRequestsRepo.ts"
import { runWebhookBackground } from "../../src/features/Webhooks/Background.ts"
import { WebhookSettings } from "../../src/features/Webhooks/Config.ts"
import { AppLive } from "../../src/platform/Http/App.ts"
import { registry } from "../../src/platform/Observability/Metrics.ts"
import { LAUNCH_PROGRAMS } from "../../src/workers/Stream/Programs.ts"
import { testSettings } from "../features/Webhooks/harness.ts"
import { startReceiver, verify, waitFor } from "../features/Webhooks/receiver.ts"
import { databaseKind } from "../support/database.ts"
import { postJson } from "../support/http.ts"
import { sqlServices } from "../support/layers.ts"
import { pumpCreate, pumpSwapWithdraw } from "../support/solana/Launches.ts"
import { buildPool, type BuiltPool, referenceMarket } from "../support/solana/Pools.ts"
import { startRpcServer } from "../support/solana/RpcServer.ts"
import { type BuiltMint, makeWorld } from "../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer } from "../workers/Stream/harness.ts"

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "20" },
    seconds: { type: "string", default: "60" },
    webhooks: { type: "string", default: "10" },
    "event-rate": { type: "string", default: "2" }
  }
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const webhooks = Number(values.webhooks)
const eventRate = Number(values["event-rate"])
// One whale account makes the endpoint and the watches: its 60 requests a minute bound the watches.
if (!(webhooks >= 0 && webhooks <= 50)) throw new Error("--webhooks is 0 to 50")
if (!(eventRate > 0 && rate > 0 && seconds > 0)) throw new Error("--rate, --seconds and --event-rate are > 0")

const runtime = ManagedRuntime.make(
  StreamLayer.pipe(Layer.provideMerge(Layer.merge(sqlServices(), Layer.succeed(WebhookSettings, testSettings))))
)
const services = (await runtime.runtime()).context
const { handler, dispose } = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(
    AppLive.pipe(Layer.provide(Layer.succeedContext(services))),
    HttpServer.layerContext,
    Logger.minimumLogLevel(LogLevel.Warning)
  )
)
const app = (path: string, init?: RequestInit) => handler(new Request(`http://localhost${path}`, init))
const verdictOf = async (mint: string) =>
  ((await (await app(`/api/risk-check/${mint}`)).json()) as { verdict: string }).verdict

const world = makeWorld()
// When the world records each transaction, by signature: the start of the launch timing.
const recordedAt = new Map<string, number>()
world.onChange((change) => {
  if (change.kind === "transaction") recordedAt.set(change.transaction.signature, performance.now())
})
// SOL at 150 USD; each pool holds 600,000,000 tokens against 80 SOL: about 24,000 USD of liquidity.
const { wsol, reference } = await referenceMarket(world)
const pools: Array<{ mint: BuiltMint; pool: BuiltPool }> = []
for (let i = 0; i < webhooks; i++) {
  const mint = await world.mint({ decimals: 6 })
  await world.holders(mint, [{ amount: 30_000_000_000_000n }, { amount: 20_000_000_000_000n }])
  const pool = await buildPool(world, "pumpswap", {
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
  pools.push({ mint, pool })
}
const server = startRpcServer(world)
const receiver = startReceiver()
const fibers = [
  await runtime.runPromise(startScanner(server, { referencePool: Option.some(reference.address) })),
  await runtime.runPromise(startWatcher(server)),
  await runtime.runPromise(
    Effect.forkDaemon(Effect.scoped(Effect.zipRight(runWebhookBackground(testSettings), Effect.never)))
  )
]
while (server.pubsub.subscriptions("logsSubscribe") < LAUNCH_PROGRAMS.length) await Bun.sleep(10)

const percentiles = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
  return { p50: at(50), p95: at(95), max: at(100) }
}
const ms = (value: number) => `${value.toFixed(0)} ms`
const target = (what: string, limitMs: number, p95: number) =>
  console.log(`target ${what} p95 ≤ ${limitMs / 1000} s : ${p95 <= limitMs ? "met" : `NOT met (measured ${ms(p95)})`}`)

// 1. State event to webhook.
if (webhooks > 0) {
  const account = await runtime.runPromise(Accounts.create("bench", { plan: "whale" }))
  const { key } = await runtime.runPromise(Accounts.createKey(account.id, ["watch:write", "webhook:write"], null))
  const auth = { authorization: `Bearer ${key}` }
  const created = await app("/api/v1/webhooks", postJson({ url: receiver.url }, auth))
  if (created.status !== 201) throw new Error(`endpoint not created: ${await created.text()}`)
  const { secret } = ((await created.json()) as { data: { secret: string } }).data
  for (const { mint } of pools) await runtime.runPromise(ScanRequestsRepo.request(mint.address as string as Address))
  for (const { mint } of pools)
    await waitFor(
      "a first scan",
      async () => ((await verdictOf(mint.address)) === "unknown" ? undefined : true),
      60_000
    )
  for (const { mint } of pools) {
    const rules = [{ metric: "liquidity_usd", comparison: "lt", threshold: 20_000 }]
    const watch = await app("/api/v1/decision/set-watch", postJson({ mint: mint.address, rules, notify: true }, auth))
    if (watch.status !== 201) throw new Error(`watch not set: ${await watch.text()}`)
  }
  // The watches make the mints tracked: the watcher subscribes to each one's account (and logs).
  await waitFor(
    "the mints' subscriptions",
    () => (server.pubsub.subscriptions("accountSubscribe") >= webhooks ? true : undefined),
    30_000
  )
  await Bun.sleep(200)
  const early = receiver.received.length
  const started = performance.now()
  const deliveries: Array<Promise<number | undefined>> = []
  for (const [index, { mint, pool }] of pools.entries()) {
    const due = started + (index * 1000) / eventRate
    if (performance.now() < due) await Bun.sleep(due - performance.now())
    const at = Date.now() // the receiver stamps with Date.now()
    await pumpSwapWithdraw(world, pool, 5n)
    deliveries.push(
      waitFor(
        "the watch's webhook",
        () =>
          receiver.received.find(
            (entry) => entry.body.includes(mint.address) && verify(secret, entry.headers, entry.body)
          ),
        30_000
      ).then(
        (entry) => entry.at - at,
        () => undefined
      )
    )
  }
  const results = await Promise.all(deliveries)
  const times = results.filter((time): time is number => time !== undefined)
  const { p50, p95, max } = percentiles(times)
  console.log(
    `state event to webhook on ${databaseKind}: ${webhooks} LP withdraws at ${eventRate}/s on watched mints, ${times.length} webhooks within 30 s` +
      (early > 0 ? ` (${early} webhooks before the withdraws)` : "")
  )
  console.log(`  p50 ${ms(p50)}, p95 ${ms(p95)}, max ${ms(max)}`)
  target("state event to webhook", 2_000, times.length === webhooks ? p95 : Number.POSITIVE_INFINITY)
}

// 2. Launch to verdict.
const rpcCalls = async () =>
  (await registry.getSingleMetric("risk_api_scanner_rpc_calls_total")?.get())?.values.reduce(
    (sum, v) => sum + v.value,
    0
  ) ?? 0
const callsBefore = await rpcCalls()
const waits: Array<Promise<number>> = []
const started = performance.now()
let made = 0
while (performance.now() - started < seconds * 1000) {
  const due = started + (made * 1000) / rate
  if (performance.now() < due) await Bun.sleep(due - performance.now())
  const launch = await pumpCreate(world, { kind: "create_v2" })
  const at = recordedAt.get(launch.transaction.signature)
  if (at === undefined) throw new Error("the create_v2 transaction was not recorded")
  made++
  waits.push(
    (async () => {
      while (true) {
        if ((await verdictOf(launch.mint.address)) !== "unknown") return performance.now() - at
        await Bun.sleep(10)
      }
    })()
  )
}
const elapsed = (performance.now() - started) / 1000
const { p50, p95, max } = percentiles(await Promise.all(waits))
console.log(
  `launch to verdict on ${databaseKind}: ${made} create_v2 launches in ${elapsed.toFixed(1)} s (${(made / elapsed).toFixed(1)}/s of ${rate}/s asked)`
)
console.log(`  p50 ${ms(p50)}, p95 ${ms(p95)}, max ${ms(max)}`)
console.log(
  `  RPC calls per launch (watcher + scan + tracking): ${(((await rpcCalls()) - callsBefore) / made).toFixed(1)}`
)
target("launch to verdict", 1_000, p95)
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(1))
    .join(", ")}`
)
await runtime.runPromise(Fiber.interruptAll(fibers))
receiver.stop()
await server.stop()
await dispose()
await runtime.dispose()
process.exit(0)
