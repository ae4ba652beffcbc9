// npm run bench:launches [-- --rate 20 --seconds 60 --webhooks 10 --event-rate 2 --scan-concurrency 8]
// Two timings on the local world, as issue #26 asks: the world (LiteSVM, its JSON-RPC and PubSub
// WebSocket server, the launch generator: test/bench/launchWorld.ts) in a process of its own on one core,
// and the service in this process on the other: the watcher on the world's WebSocket, one scanner (with a
// SOL/USD reference pool), the webhook evaluator and delivery worker, the app. Pinned with taskset (BENCH_
// SERVICE_CORE, default 0; BENCH_WORLD_CORE, default 1) when there are two usable cores. On PostgreSQL with
// TEST_DATABASE_URL (the server itself is not pinned: other clients may share it), else embedded PGlite.
// Each part ends with its issue #26 target line, met or not, and the load average.
//
// 1. State event to webhook: `webhooks` mints, each with a liquid PumpSwap pool, a first scan and a notifying
//    watch (liquidity_usd < 20,000) whose account has one webhook endpoint, a Bun.serve receiver on
//    127.0.0.1. Then, at `event-rate` a second, one LP withdraw per mint (the vaults keep 5%); for each, the
//    time from just before the withdraw's first write to the world (its vaults, then its transaction) to the
//    receiver getting that mint's watch.triggered webhook with a valid signature. Target: p95 ≤ 2 s.
// 2. Launch to verdict: pump.fun create_v2 launches at `rate` a second for `seconds` (prepared before the
//    window: keys, PDAs, the funded creator; each launch's transactions run and are recorded in it); for
//    each, the time from the world recording its create_v2 transaction (when the world's PubSub emits its
//    logs; the mint and curve transactions before it are not counted) to the first GET
//    /api/risk-check/<mint> that answers a verdict (pending mints polled every 20 ms). Prints the
//    launches made per second, the JSON-RPC calls per launch the world served (watcher, scans, tracking),
//    and each process's CPU time over the window. Target: p95 ≤ 1 s.
import { loadavg } from "node:os"
import { cpuUsage } from "node:process"
import { parseArgs } from "node:util"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { address } from "@solana/kit"
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
import type { RpcServer } from "../support/solana/RpcServer.ts"
import { startScanner, startWatcher, StreamLayer } from "../workers/Stream/harness.ts"
import { epochMs, type ServiceMessage, type WorldMessage } from "./launchProtocol.ts"
import { allowedCores, pinned, pinPid } from "./pinning.ts"

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "20" },
    seconds: { type: "string", default: "60" },
    webhooks: { type: "string", default: "10" },
    "event-rate": { type: "string", default: "2" },
    /** Scans in flight in the one scanner process (SCANNER_CONCURRENCY; its default is 8). */
    "scan-concurrency": { type: "string", default: "8" }
  }
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const webhooks = Number(values.webhooks)
const eventRate = Number(values["event-rate"])
const scanConcurrency = Number(values["scan-concurrency"])
// One whale account makes the endpoint and the watches: its 60 requests a minute bound the watches.
if (!(webhooks >= 0 && webhooks <= 50)) throw new Error("--webhooks is 0 to 50")
if (!(eventRate > 0 && rate > 0 && seconds > 0)) throw new Error("--rate, --seconds and --event-rate are > 0")
if (!(Number.isInteger(scanConcurrency) && scanConcurrency >= 1)) throw new Error("--scan-concurrency is 1 or more")

const load = () =>
  `load average (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(1))
    .join(", ")}`

// Pinning: this process (and the threads it starts later: PGlite's) on one core, the world on another.
const serviceCore = process.env.BENCH_SERVICE_CORE ?? "0"
const worldCore = process.env.BENCH_WORLD_CORE ?? "1"
const usable = allowedCores().map(String)
const pin = Bun.which("taskset") !== null && usable.includes(serviceCore) && usable.includes(worldCore)
if (pin) pinPid(process.pid, serviceCore)
console.log(
  pin
    ? `service (watcher, one scanner, webhook workers, app) pinned to core ${serviceCore}, world to core ${worldCore}` +
        (databaseKind === "PostgreSQL" ? "; PostgreSQL not pinned" : "")
    : `not pinned (taskset or cores ${serviceCore} and ${worldCore} unavailable): service and world share every core`
)
console.log(load())

// The world process, driven over IPC: requests answered by id, launches streamed.
const answers = new Map<number, (message: WorldMessage) => void>()
const worldEvents: Array<(message: WorldMessage) => void> = []
let nextId = 1
const child = Bun.spawn(
  pinned(pin ? worldCore : undefined, [
    process.execPath,
    new URL("./launchWorld.ts", import.meta.url).pathname,
    String(webhooks)
  ]),
  {
    stdout: "inherit",
    stderr: "inherit",
    ipc: (message: WorldMessage) => {
      const id = "id" in message ? message.id : undefined
      const answer = id === undefined ? undefined : answers.get(id)
      if (answer !== undefined && id !== undefined) {
        answers.delete(id)
        return answer(message)
      }
      for (const listener of worldEvents) listener(message)
    }
  }
)
const tell = (message: ServiceMessage) => child.send(message)
const ask = <K extends WorldMessage["kind"]>(
  message: ServiceMessage & { readonly id: number }
): Promise<Extract<WorldMessage, { kind: K }>> =>
  new Promise((resolve) => {
    answers.set(message.id, resolve as (message: WorldMessage) => void)
    tell(message)
  })
const next = <K extends WorldMessage["kind"]>(kind: K): Promise<Extract<WorldMessage, { kind: K }>> =>
  new Promise((resolve) => {
    const listener = (message: WorldMessage) => {
      if (message.kind !== kind) return
      worldEvents.splice(worldEvents.indexOf(listener), 1)
      resolve(message as Extract<WorldMessage, { kind: K }>)
    }
    worldEvents.push(listener)
  })
const ready = await next("ready")
const subscriptions = async (method: "logsSubscribe" | "accountSubscribe") =>
  (await ask<"subscriptions">({ kind: "subscriptions", id: nextId++, method })).count
const served = () => ask<"calls">({ kind: "calls", id: nextId++ })
const servedCalls = async () => (await served()).calls
// What the harness needs of a server: its URLs (the world's counters are read over IPC).
const server = { url: ready.url, wsUrl: ready.wsUrl } as RpcServer

// As the server runs: the latest-scan cache on (kept fresh by notifications on PostgreSQL, by polling on
// the embedded database). The public rate limit is off: this process's verdict polls are one client.
const services_ = sqlServices({
  perMinute: 0,
  cache: { size: 30_000, ttlSeconds: 60, notifications: databaseKind === "PostgreSQL" }
})
const runtime = ManagedRuntime.make(
  StreamLayer.pipe(Layer.provideMerge(Layer.merge(services_, Layer.succeed(WebhookSettings, testSettings))))
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
/** The verdict GET /api/risk-check/<mint> answers; undefined when it does not answer 200. */
const verdictOf = async (mint: string) => {
  const response = await app(`/api/risk-check/${mint}`)
  return response.status === 200 ? ((await response.json()) as { verdict: string }).verdict : undefined
}

const receiver = startReceiver()
const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const fibers = [
  await runtime.runPromise(
    // SCANNER_POLL_MS's default: an idle lane is woken at once by the watcher's request in this process.
    startScanner(server, {
      referencePool: Option.some(address(ready.reference)),
      pollMs: 250,
      concurrency: scanConcurrency
    }).pipe(Effect.provide(quiet))
  ),
  // The stream's defaults where they cost per launch: 500 tracked mints, refreshed every 5 s, 16 reads at once.
  await runtime.runPromise(
    startWatcher(server, { trackedLimit: 500, trackRefreshMs: 5_000, concurrency: 16 }).pipe(Effect.provide(quiet))
  ),
  await runtime.runPromise(
    Effect.forkDaemon(Effect.scoped(Effect.zipRight(runWebhookBackground(testSettings), Effect.never)))
  )
]
while ((await subscriptions("logsSubscribe")) < LAUNCH_PROGRAMS.length) await Bun.sleep(10)

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
  for (const mint of ready.mints) await runtime.runPromise(ScanRequestsRepo.request(mint as Address))
  for (const mint of ready.mints)
    await waitFor("a first scan", async () => ((await verdictOf(mint)) === "unknown" ? undefined : true), 60_000)
  for (const mint of ready.mints) {
    const rules = [{ metric: "liquidity_usd", comparison: "lt", threshold: 20_000 }]
    const watch = await app("/api/v1/decision/set-watch", postJson({ mint, rules, notify: true }, auth))
    if (watch.status !== 201) throw new Error(`watch not set: ${await watch.text()}`)
  }
  // The watches make the mints tracked: the watcher subscribes to each one's account (and logs).
  await waitFor(
    "the mints' subscriptions",
    async () => ((await subscriptions("accountSubscribe")) >= webhooks ? true : undefined),
    30_000
  )
  await Bun.sleep(200)
  const early = receiver.received.length
  const started = performance.now()
  const deliveries: Array<Promise<number | undefined>> = []
  for (const [index, mint] of ready.mints.entries()) {
    const due = started + (index * 1000) / eventRate
    if (performance.now() < due) await Bun.sleep(due - performance.now())
    const { at } = await ask<"withdrawn">({ kind: "withdraw", id: nextId++, index })
    deliveries.push(
      waitFor(
        "the watch's webhook",
        () => receiver.received.find((entry) => entry.body.includes(mint) && verify(secret, entry.headers, entry.body)),
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
  console.log(load())
}

// 2. Launch to verdict.
const scannerCalls = async () =>
  (await registry.getSingleMetric("risk_api_scanner_rpc_calls_total")?.get())?.values.reduce(
    (sum, v) => sum + v.value,
    0
  ) ?? 0
const total = (calls: Readonly<Record<string, number>>) => Object.values(calls).reduce((sum, n) => sum + n, 0)
const callsBefore = await servedCalls()
const scannerBefore = await scannerCalls()
// Pending launches, polled every 20 ms: POST /api/risk-check/batch (50 mints a request, the same answer
// as the single check) finds those with a verdict, and GET /api/risk-check/<mint> confirms each; the time
// is taken when the GET answers. One request a mint per sweep would cost the service more than its scans
// once a backlog builds (and so feed the backlog).
const pending = new Map<string, number>()
const times: Array<number> = []
let sweeping = true
const answered = async (mints: ReadonlyArray<string>) => {
  const response = await app("/api/risk-check/batch", postJson({ addresses: mints }))
  if (response.status !== 200) return []
  const { results } = (await response.json()) as { results: Record<string, { verdict?: string }> }
  return mints.filter((mint) => {
    const verdict = results[mint]?.verdict
    return verdict !== undefined && verdict !== "unknown"
  })
}
const sweep = (async () => {
  while (sweeping || pending.size > 0) {
    const mints = [...pending.keys()]
    for (let i = 0; i < mints.length; i += 50) {
      for (const mint of await answered(mints.slice(i, i + 50))) {
        const verdict = await verdictOf(mint)
        const at = pending.get(mint)
        if (at === undefined || verdict === undefined || verdict === "unknown") continue
        times.push(epochMs() - at)
        pending.delete(mint)
      }
    }
    await Bun.sleep(20)
  }
})()
worldEvents.push((message) => {
  if (message.kind === "launched") pending.set(message.mint, message.at)
})
tell({ kind: "launches", rate, seconds })
const { count } = await next("prepared")
console.log(`${count} launches prepared; ${load()}`)
const serviceCpu = cpuUsage()
const done = await next("launches done")
const windowUsage = cpuUsage(serviceCpu)
const windowMs = (windowUsage.user + windowUsage.system) / 1000
sweeping = false
const waited = Promise.race([sweep.then(() => true), Bun.sleep(60_000).then(() => false)])
if (!(await waited)) console.log(`  ${pending.size} launches had no verdict 60 s after the last`)
// CPU from the first launch to the last verdict: all the work the launches made, over both processes.
const allUsage = cpuUsage(serviceCpu)
const allServiceMs = (allUsage.user + allUsage.system) / 1000
const { calls, cpuMs: worldMs } = await served()
const elapsed = done.elapsedMs / 1000
const { p50, p95, max } = percentiles(times)
const byMethod = Object.entries(calls)
  .map(([method, n]) => [method, (n - (callsBefore[method] ?? 0)) / done.made] as const)
  .filter(([, n]) => n > 0)
  .sort((a, b) => b[1] - a[1])
console.log(
  `launch to verdict on ${databaseKind}: ${done.made} create_v2 launches in ${elapsed.toFixed(1)} s (${(done.made / elapsed).toFixed(1)}/s of ${rate}/s asked), ${times.length} verdicts`
)
console.log(`  p50 ${ms(p50)}, p95 ${ms(p95)}, max ${ms(max)}`)
console.log(
  `  JSON-RPC calls per launch served by the world (watcher + scan + tracking): ${((total(calls) - total(callsBefore)) / done.made).toFixed(1)}` +
    ` (${byMethod.map(([method, n]) => `${method} ${n.toFixed(1)}`).join(", ")}); by the scanner: ${(((await scannerCalls()) - scannerBefore) / done.made).toFixed(1)}`
)
console.log(
  `  CPU over the window: world ${((done.cpuMs / done.elapsedMs) * 100).toFixed(0)} % of a core, service ${((windowMs / done.elapsedMs) * 100).toFixed(0)} %` +
    `${databaseKind === "PostgreSQL" ? "" : " (its database's thread included)"}; to the last verdict, a launch cost the world ${(worldMs / done.made).toFixed(1)} ms` +
    ` (making it, serving its calls) and the service ${(allServiceMs / done.made).toFixed(1)} ms`
)
target("launch to verdict", 1_000, times.length === done.made ? p95 : Number.POSITIVE_INFINITY)
console.log(load())
await runtime.runPromise(Fiber.interruptAll(fibers))
receiver.stop()
tell({ kind: "stop" })
await child.exited
await dispose()
await runtime.dispose()
process.exit(0)
