// npm run bench:launches [-- --rate 20 --seconds 60]
// Launch to verdict on the local world: pump.fun create_v2 launches at `rate` a second for `seconds`,
// the watcher on the world's WebSocket, one scanner, the app in process; for each launch, the time from
// its transaction being recorded to the first GET /api/risk-check/<mint> that answers a verdict. Prints
// p50/p95, the launches actually made per second (the world builds each with real transactions), and
// the RPC calls per launch. On PostgreSQL with TEST_DATABASE_URL, else embedded PGlite.
import { parseArgs } from "node:util"
import { Fiber, Layer, ManagedRuntime } from "effect"
import { registry } from "../../src/platform/Observability/Metrics.ts"
import { LAUNCH_PROGRAMS } from "../../src/workers/Stream/Programs.ts"
import { databaseKind } from "../support/database.ts"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { Logger, LogLevel } from "effect"
import { AppLive } from "../../src/platform/Http/App.ts"
import { sqlServices } from "../support/layers.ts"
import { pumpCreate } from "../support/solana/Launches.ts"
import { startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld, NATIVE_MINT } from "../support/solana/World.ts"
import { startScanner, startWatcher, StreamLayer } from "../workers/Stream/harness.ts"

const { values } = parseArgs({
  options: { rate: { type: "string", default: "20" }, seconds: { type: "string", default: "60" } }
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)

const runtime = ManagedRuntime.make(StreamLayer.pipe(Layer.provideMerge(sqlServices())))
const services = (await runtime.runtime()).context
const { handler, dispose } = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(
    AppLive.pipe(Layer.provide(Layer.succeedContext(services))),
    HttpServer.layerContext,
    Logger.minimumLogLevel(LogLevel.Warning)
  )
)
const app = (path: string) => handler(new Request(`http://localhost${path}`))
const world = makeWorld()
await world.quoteMint(NATIVE_MINT, 9)
const server = startRpcServer(world)
const fibers = [await runtime.runPromise(startScanner(server)), await runtime.runPromise(startWatcher(server))]
while (server.pubsub.subscriptions("logsSubscribe") < LAUNCH_PROGRAMS.length) await Bun.sleep(10)

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
  const at = performance.now()
  made++
  waits.push(
    (async () => {
      while (true) {
        const body = (await (await app(`/api/risk-check/${launch.mint.address}`)).json()) as { verdict: string }
        if (body.verdict !== "unknown") return performance.now() - at
        await Bun.sleep(10)
      }
    })()
  )
}
const elapsed = (performance.now() - started) / 1000
const times = (await Promise.all(waits)).sort((a, b) => a - b)
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? Number.NaN
console.log(
  `launch to verdict on ${databaseKind}: ${made} create_v2 launches in ${elapsed.toFixed(1)} s (${(made / elapsed).toFixed(1)}/s of ${rate}/s asked)`
)
console.log(`  p50 ${pct(50).toFixed(0)} ms, p95 ${pct(95).toFixed(0)} ms, max ${pct(100).toFixed(0)} ms`)
console.log(
  `  RPC calls per launch (watcher + scan + tracking): ${(((await rpcCalls()) - callsBefore) / made).toFixed(1)}`
)
await runtime.runPromise(Fiber.interruptAll(fibers))
await server.stop()
await dispose()
await runtime.dispose()
process.exit(0)
