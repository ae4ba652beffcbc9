import { HttpApiBuilder, HttpServer } from "@effect/platform"
import {
  type ConfigError,
  Context,
  Duration,
  Effect,
  FiberRef,
  FiberRefs,
  Layer,
  LogLevel,
  Runtime,
  type Scope
} from "effect"
import { Accounts } from "../../features/Accounts/Accounts.ts"
import { PublicTraffic } from "../../features/Accounts/PublicTraffic.ts"
import { Quota } from "../../features/Accounts/Quota.ts"
import { LogConfig, writeJsonLine } from "../Observability/Logging.ts"
import { requestFields, requestLine, type RequestRecord } from "../Observability/RequestLog.ts"
import { makeFastPath } from "../../features/RiskCheck/FastPath.ts"
import { makeTokenRiskFastPath } from "../../features/TokenRisk/FastPath.ts"
import { LatestScanCache } from "../../features/Scans/LatestScanCache.ts"
import { Lifecycle } from "../../features/System/Lifecycle.ts"
import { AppLive, type AppServices } from "./App.ts"
import { AppConfig, BUN_IDLE_TIMEOUT_SECONDS, ShutdownConfig } from "./Config.ts"
import { type FastPath, makeEdge, type ServerFetch, unexpectedFailure } from "./Edge.ts"
import { makeIdleCollector } from "./IdleCollector.ts"

export type { ServerFetch }

const writeErrorLine = (fields: Record<string, unknown>) =>
  writeJsonLine("error", "unhandled error in the HTTP server", Object.entries(fields))

// Under a steady stream of requests, timers (Effect.sleep, setTimeout) can be starved for as long as the
// stream lasts; setImmediate runs once per turn of the event loop, so waiting on it keeps time.
const nextTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

const waitUntil = (done: () => boolean, deadline: number): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    while (!done()) {
      if (Date.now() >= deadline) return false
      yield* nextTurn // spins one event-loop turn at a time: only while shutting down
    }
    return true
  })

// On shutdown: first a grace period in which /ready answers 503 (the load balancer stops sending) and
// every response closes its connection (no client reuses a connection we are about to close); then stop
// accepting, let requests in flight finish (up to SHUTDOWN_TIMEOUT_SECONDS) and close what is left.
const drain = (
  server: Bun.Server<undefined>,
  lifecycle: Lifecycle,
  timing: { readonly grace: Duration.Duration; readonly deadline: Duration.Duration }
) =>
  Effect.gen(function* () {
    lifecycle.drain()
    yield* Effect.logInfo("shutting down: not ready, closing connections after each response").pipe(
      Effect.annotateLogs({ inFlight: lifecycle.inFlight(), graceSeconds: Duration.toSeconds(timing.grace) })
    )
    yield* waitUntil(() => false, Date.now() + Duration.toMillis(timing.grace))
    server.stop(false)
    yield* Effect.logInfo("shutting down: stopped accepting connections").pipe(
      Effect.annotateLogs({ inFlight: lifecycle.inFlight() })
    )
    const finished = yield* waitUntil(() => lifecycle.inFlight() === 0, Date.now() + Duration.toMillis(timing.deadline))
    if (!finished) {
      yield* Effect.logWarning("shutdown deadline reached; closing remaining requests").pipe(
        Effect.annotateLogs({ inFlight: lifecycle.inFlight() })
      )
    }
    server.stop(true)
    yield* Effect.logInfo("shut down")
  })

/** The HttpApi web handler (the same handler the tests call) behind the edge, with the fast paths unless turned off. */
export const makeServerFetch = (
  services: Context.Context<AppServices>,
  logging: Layer.Layer<never, ConfigError.ConfigError>,
  options: { readonly fastPath: boolean } = { fastPath: true }
): Effect.Effect<ServerFetch, ConfigError.ConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const { dispose, handler } = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(
        AppLive.pipe(Layer.provide(Layer.succeedContext(services))),
        HttpServer.layerContext,
        logging,
        // No tracer is exported, so spans (one per request and per SQL statement) would only cost CPU.
        Layer.setTracerEnabled(false)
      )
    )
    yield* Effect.addFinalizer(() => Effect.promise(dispose))
    const { format } = yield* LogConfig
    const logRuntime = yield* Layer.toRuntime(logging)
    const level = FiberRefs.getOrDefault(logRuntime.fiberRefs, FiberRef.currentMinimumLogLevel)
    const runLog = Runtime.runSync(logRuntime)
    // Request lines: written directly in the JSON format (a few µs instead of a fiber).
    const log = !LogLevel.lessThanEqual(level, LogLevel.Info)
      ? undefined
      : format === "json"
        ? (record: RequestRecord) => writeJsonLine("info", "request", Object.entries(requestFields(record)))
        : (record: RequestRecord) => runLog(requestLine(record))
    const fastPaths: ReadonlyArray<FastPath> = options.fastPath
      ? [
          makeTokenRiskFastPath({
            accounts: Context.get(services, Accounts),
            quota: Context.get(services, Quota),
            scans: Context.get(services, LatestScanCache),
            maxBodyBytes: config.maxBodyBytes,
            corsAllowedOrigins: config.corsAllowedOrigins,
            run: Runtime.runPromiseExit(logRuntime)
          }),
          makeFastPath({
            scans: Context.get(services, LatestScanCache),
            traffic: Context.get(services, PublicTraffic),
            maxBodyBytes: config.maxBodyBytes,
            logError: writeErrorLine
          })
        ]
      : []
    return makeEdge({
      handler,
      settings: config,
      lifecycle: Context.get(services, Lifecycle),
      fastPaths,
      log,
      logError: writeErrorLine
    })
  })

/**
 * Serves the API with Bun.serve around makeServerFetch, so the server can stop accepting while requests in
 * flight finish.
 */
export const serveApi = (
  services: Context.Context<AppServices>,
  logging: Layer.Layer<never, ConfigError.ConfigError>
) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const shutdown = yield* ShutdownConfig
    const timing = {
      grace: Duration.seconds(shutdown.graceSeconds),
      deadline: Duration.seconds(shutdown.timeoutSeconds)
    }
    const fetch = yield* makeServerFetch(services, logging)
    const collector = yield* makeIdleCollector
    const server = yield* Effect.try({
      try: () =>
        Bun.serve({
          port: config.port,
          hostname: config.host,
          // Bun's own limit answers an empty 413 (no envelope, no request id) before our code sees the
          // request, so it is out of the way: the edge (Http/Edge.ts) refuses declared and chunked bodies
          // over MAX_BODY_BYTES with the envelope, and reads no more than its lingering close allows.
          maxRequestBodySize: Number.MAX_SAFE_INTEGER,
          idleTimeout: BUN_IDLE_TIMEOUT_SECONDS,
          fetch: (request, bun) => {
            collector.served()
            return fetch(request, () => bun.requestIP(request)?.address ?? "unknown")
          },
          error: (error) => unexpectedFailure(error, writeErrorLine)
        }),
      catch: (cause) => (cause instanceof Error ? cause : new Error(`Failed to start server on port ${config.port}`))
    }).pipe(Effect.orDie)
    yield* Effect.addFinalizer(() => drain(server, Context.get(services, Lifecycle), timing))
    yield* Effect.logInfo(`Listening on http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`)
    return server
  })
