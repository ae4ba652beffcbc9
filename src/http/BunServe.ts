import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { Config, type ConfigError, Context, Duration, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../Config.ts"
import { AppLive } from "./Server.ts"
import { ClientAddress, lifecycle } from "./Lifecycle.ts"
import type { AppServices } from "./Services.ts"

export const ShutdownConfig = Config.integer("SHUTDOWN_TIMEOUT_SECONDS").pipe(
  Config.validate({ message: "SHUTDOWN_TIMEOUT_SECONDS must be between 1 and 300", validation: (n) => n >= 1 && n <= 300 }),
  Config.withDefault(15)
)

// On shutdown: stop accepting connections, mark /ready not ready, let requests in flight finish (up to
// SHUTDOWN_TIMEOUT_SECONDS), then close what is left. A request that was accepted is answered.
const drain = (server: Bun.Server<undefined>, deadline: Duration.Duration, dispose: () => Promise<void>) =>
  Effect.gen(function*() {
    lifecycle.draining = true
    const inFlightAtSignal = lifecycle.inFlight
    server.stop(false)
    yield* Effect.logInfo("shutting down: stopped accepting connections").pipe(Effect.annotateLogs({ inFlight: inFlightAtSignal }))
    const finished = yield* Effect.sync(() => lifecycle.inFlight).pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(20)), until: (count) => count === 0 }),
      Effect.timeoutTo({ duration: deadline, onSuccess: () => true, onTimeout: () => false })
    )
    if (!finished) {
      yield* Effect.logWarning("shutdown deadline reached; closing remaining requests").pipe(
        Effect.annotateLogs({ inFlight: lifecycle.inFlight })
      )
    }
    server.stop(true)
    yield* Effect.promise(dispose)
    yield* Effect.logInfo("shut down")
  })

/**
 * Serves the API with Bun.serve around HttpApi's web handler (the same handler the tests call), so the
 * server can stop accepting while requests in flight finish.
 */
export const serveApi = (services: Context.Context<AppServices>, logging: Layer.Layer<never, ConfigError.ConfigError>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const deadline = Duration.seconds(yield* ShutdownConfig)
    const { dispose, handler } = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(AppLive.pipe(Layer.provide(Layer.succeedContext(services))), HttpServer.layerContext, logging)
    )
    const server = yield* Effect.try({
      try: () =>
        Bun.serve({
          port: config.port,
          hostname: config.host,
          // Bun's own limit is a backstop with an empty 413; the envelope's 413 comes from ApiMiddleware.
          maxRequestBodySize: config.maxBodyBytes * 16,
          fetch: (request, bun) => handler(request, Context.make(ClientAddress, bun.requestIP(request)?.address ?? "unknown"))
        }),
      catch: (cause) => cause instanceof Error ? cause : new Error(`Failed to start server on port ${config.port}`)
    }).pipe(Effect.orDie)
    yield* Effect.addFinalizer(() => drain(server, deadline, dispose))
    yield* Effect.logInfo(`Listening on http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`)
    return server
  })
