import { Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { registry } from "../../platform/Observability/Metrics.ts"
import { ServerLoggingLive } from "../../platform/Observability/Logging.ts"
import { ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { ScannerConfig } from "../../workers/Scanner/Config.ts"
import { databaseLayer } from "../../platform/Sql/Database.ts"
import { StreamConfig } from "../../workers/Stream/Config.ts"
import { StreamEventsRepo } from "../../workers/Stream/EventsRepo.ts"
import { runWatcher, streamConfigured } from "../../workers/Stream/Run.ts"
import { ScannerNotConfigured } from "./ScannerCommands.ts"

// `risk-api watcher`: the launch and event stream on its own (README, "The launch and event stream").

const metricsPort = Options.integer("metrics-port").pipe(
  Options.optional,
  Options.withDescription("Serve the watcher's Prometheus metrics on this port (GET /metrics).")
)

export const watcherCommand = Command.make("watcher", { metricsPort }, ({ metricsPort }) =>
  Effect.gen(function* () {
    const stream = yield* StreamConfig
    const scanner = yield* ScannerConfig
    if (!streamConfigured(stream, scanner)) {
      return yield* Effect.fail(
        new ScannerNotConfigured({
          message:
            "SOLANA_RPC_URL and one of SOLANA_WS_URL or SOLANA_GRPC_URL must be set (your provider's JSON-RPC URL, and its WebSocket or Yellowstone gRPC endpoint)"
        })
      )
    }
    if (Option.isSome(metricsPort)) {
      const server = Bun.serve({
        port: metricsPort.value,
        hostname: "127.0.0.1",
        fetch: async (request) =>
          new URL(request.url).pathname === "/metrics"
            ? new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } })
            : new Response("not found", { status: 404 })
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => server.stop()))
    }
    return yield* runWatcher(stream, scanner)
  }).pipe(
    Effect.scoped,
    Effect.provide(
      Layer.mergeAll(ScanRequestsRepo.Default, StreamEventsRepo.Default).pipe(
        Layer.provideMerge(databaseLayer("forever"))
      )
    ),
    Effect.provide(ServerLoggingLive)
  )
).pipe(
  Command.withDescription(
    "Run the launch and event stream: subscribe to SOLANA_GRPC_URL (Yellowstone gRPC) or else SOLANA_WS_URL, queue a scan for each launch and each state event on a tracked mint."
  )
)
