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
  Option,
  Runtime,
  type Scope
} from "effect"
import { Accounts } from "../../features/Accounts/Accounts.ts"
import { type Peer, peerAddress, PublicTraffic } from "../../features/Accounts/PublicTraffic.ts"
import { Quota } from "../../features/Accounts/Quota.ts"
import {
  envelopeBodyOf,
  failureOf,
  InternalError,
  PayloadTooLarge,
  requestTimedOut,
  ServiceUnavailable
} from "../../domain/Errors.ts"
import { ClientAddress, RequestLifecycle, requestIdFrom } from "../Request/Request.ts"
import { LogConfig, writeJsonLine } from "../Observability/Logging.ts"
import { countRequest, requestFields, requestLine, type RequestRecord } from "../Observability/RequestLog.ts"
import { makeFastPath } from "../../features/RiskCheck/FastPath.ts"
import { makeTokenRiskFastPath } from "../../features/TokenRisk/FastPath.ts"
import { LatestScanCache } from "../../features/Scans/LatestScanCache.ts"
import { lifecycle } from "../../features/System/Lifecycle.ts"
import { AppLive, type AppServices } from "./App.ts"
import { AppConfig, BUN_IDLE_TIMEOUT_SECONDS, ShutdownConfig } from "./Config.ts"
import { makeIdleCollector } from "./IdleCollector.ts"
import { routeOf } from "./Routes.ts"

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
  timing: { readonly grace: Duration.Duration; readonly deadline: Duration.Duration }
) =>
  Effect.gen(function* () {
    lifecycle.draining = true
    yield* Effect.logInfo("shutting down: not ready, closing connections after each response").pipe(
      Effect.annotateLogs({ inFlight: lifecycle.inFlight, graceSeconds: Duration.toSeconds(timing.grace) })
    )
    yield* waitUntil(() => false, Date.now() + Duration.toMillis(timing.grace))
    server.stop(false)
    yield* Effect.logInfo("shutting down: stopped accepting connections").pipe(
      Effect.annotateLogs({ inFlight: lifecycle.inFlight })
    )
    const finished = yield* waitUntil(() => lifecycle.inFlight === 0, Date.now() + Duration.toMillis(timing.deadline))
    if (!finished) {
      yield* Effect.logWarning("shutdown deadline reached; closing remaining requests").pipe(
        Effect.annotateLogs({ inFlight: lifecycle.inFlight })
      )
    }
    server.stop(true)
    yield* Effect.logInfo("shut down")
  })

/** The envelope of an API error answered in Bun's fetch, outside HttpApi (its failure, for the request log). */
const refusalOf = (
  error: ServiceUnavailable | PayloadTooLarge | InternalError,
  request: Request | undefined,
  headers: Record<string, string> = {}
) => {
  const requestId = requestIdFrom(request?.headers.get("x-request-id") ?? undefined)
  const failure = Option.getOrThrow(failureOf(error))
  const response = new Response(JSON.stringify(envelopeBodyOf(failure, requestId)), {
    status: failure.status,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-store",
      ...failure.headers,
      ...headers,
      "x-request-id": requestId
    }
  })
  return { failure, requestId, response }
}

/**
 * Bun's `error` hook: what Bun.serve answers when our fetch throws or rejects (a bug). Without it Bun
 * answers its own 500 page (HTML with the stack outside production); with it, the 500 envelope, and the
 * error is logged with the request id the client is given. Bun passes the error only, not the request.
 */
export const unexpectedFailure = (
  error: unknown,
  log: (line: Record<string, unknown>) => void = writeErrorLine
): Response => {
  const { requestId, response } = refusalOf(
    new InternalError({ message: "An unexpected error occurred; quote the requestId to support." }),
    undefined,
    { connection: "close" }
  )
  log({ requestId, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  return response
}

const writeErrorLine = (fields: Record<string, unknown>) =>
  writeJsonLine("error", "unhandled error in the HTTP server", Object.entries(fields))

/**
 * A body sent without a declared length (chunked) is read here, up to MAX_BODY_BYTES, before anything else
 * sees it: over the limit, the 413 envelope (the connection is closed: the rest is never read); within it,
 * the request again with the bytes read and their length, so every later step sees a declared length.
 * Bun's own limit (maxRequestBodySize) is then never reached, and never answers its empty 413.
 */
const measuredBody = async (request: Request, maxBodyBytes: number): Promise<Request | number> => {
  const reader = request.body!.getReader()
  const chunks: Array<Uint8Array> = []
  let length = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    length += value.byteLength
    if (length > maxBodyBytes) {
      void reader.cancel().catch(() => undefined)
      return length
    }
    chunks.push(value)
  }
  const headers = new Headers(request.headers)
  headers.delete("transfer-encoding")
  headers.set("content-length", String(length))
  return new Request(request.url, { method: request.method, headers, body: Buffer.concat(chunks) })
}

/** Whether a request's body arrives without a declared length and would be read by a route. */
// Cheapest first: reading `request.body` makes Bun build the body's stream.
const unmeasured = (request: Request): boolean =>
  request.method !== "GET" &&
  request.method !== "HEAD" &&
  !request.headers.has("content-length") &&
  request.body !== null

const deadlineAnswer = (request: Request, milliseconds: number): Response =>
  refusalOf(requestTimedOut(milliseconds), request).response

/**
 * The request deadline: an HttpApi answer not ready by REQUEST_TIMEOUT_MS is replaced by the 503 envelope;
 * the request goes on in the background (a call to a silent database gives up at its own timeout) and its
 * late answer is dropped. Bounding here, outside the Effect runtime, costs one timer and no fiber.
 */
const withinDeadline = (
  answer: Promise<Response>,
  request: Request,
  milliseconds: number,
  onLate?: () => boolean
): Promise<Response> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // `onLate` false: the request's work is committing, so its own answer is the truth and goes out.
      if (onLate !== undefined && !onLate()) return
      resolve(deadlineAnswer(request, milliseconds))
    }, milliseconds)
    answer.then(
      (response) => {
        clearTimeout(timer)
        resolve(response)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/**
 * What Bun.serve calls for each request: the peer's address travels with it for the rate limiter, as a
 * function when the server has it (Bun's requestIP is looked up only when a limit needs it).
 */
export type ServerFetch = (request: Request, peer: Peer) => Response | Promise<Response>

/** The HttpApi web handler (the same handler the tests call), fronted by the risk-check fast path unless turned off. */
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
    // Request lines answered outside HttpApi: written directly in the JSON format (a few µs instead of a fiber).
    const logRequest = !LogLevel.lessThanEqual(level, LogLevel.Info)
      ? undefined
      : format === "json"
        ? (record: RequestRecord) => writeJsonLine("info", "request", Object.entries(requestFields(record)))
        : (record: RequestRecord) => runLog(requestLine(record))
    // A body over the limit is refused before anything else reads it (a declared one before it is read at
    // all, a chunked one as soon as it passes the limit), with the same envelope as Http/Middleware.ts.
    const tooLarge = (request: Request, length: number): Response => {
      const tooLarge = new PayloadTooLarge({
        message: `The body is ${length} bytes or more; the limit is ${config.maxBodyBytes}.`
      })
      const { failure, requestId, response } = refusalOf(tooLarge, request, { connection: "close" })
      const path = new URL(request.url).pathname
      const record: RequestRecord = {
        method: request.method,
        path,
        route: routeOf(request.method, path),
        status: failure.status,
        seconds: 0,
        requestId,
        accountId: undefined,
        errorCode: failure.code
      }
      countRequest(record)
      logRequest?.(record)
      return response
    }
    const oversize = (request: Request): Response | undefined => {
      const declared = Number(request.headers.get("content-length") ?? 0)
      return declared > config.maxBodyBytes ? tooLarge(request, declared) : undefined
    }
    // At the deadline the client gets the 503 and the request is marked late, not interrupted: an
    // interrupted database call can hold its pooled connection and its row locks for seconds (the
    // driver's cancel needs a free connection), so work runs to its own bounds (statement timeouts) and a
    // transaction of a late request rolls back instead of committing behind the 503 (Sql/Transactions.ts).
    // The client going away does not interrupt it either, for the same reason. Work deferred until the
    // answer is written (a keyed read's charge commits there) runs on the next turn of the event loop,
    // after Bun has written the response; if the deadline answered instead, or the handler failed, it is
    // told so and rolls back.
    const slow = (request: Request, peer: Peer) => {
      const detached = new Request(request, { signal: new AbortController().signal })
      const deferred: Array<(answered: boolean) => void> = []
      // "open" until either the deadline answers ("late") or a transaction is about to commit ("committing").
      let state: "open" | "late" | "committing" = "open"
      const settle = (answered: boolean) =>
        setImmediate(() => {
          for (const work of deferred.splice(0)) work(answered)
        })
      const lifecycle = {
        commitBeforeDeadline: () => {
          if (state === "late") return false
          state = "committing"
          return true
        },
        defer: (work: (answered: boolean) => void) => void deferred.push(work)
      }
      const answer = handler(
        detached,
        Context.make(ClientAddress, peerAddress(peer)).pipe(Context.add(RequestLifecycle, lifecycle))
      )
      answer.then(
        () => settle(state !== "late"),
        () => settle(false)
      )
      return withinDeadline(answer, request, config.requestTimeoutMs, () => {
        if (state === "committing") return false
        state = "late"
        return true
      })
    }
    const keyed = options.fastPath
      ? makeTokenRiskFastPath({
          accounts: Context.get(services, Accounts),
          quota: Context.get(services, Quota),
          scans: Context.get(services, LatestScanCache),
          maxBodyBytes: config.maxBodyBytes,
          requestTimeoutMs: config.requestTimeoutMs,
          corsAllowedOrigins: config.corsAllowedOrigins,
          run: Runtime.runPromiseExit(logRuntime),
          log: logRequest
        })
      : undefined
    const fast = options.fastPath
      ? makeFastPath({
          scans: Context.get(services, LatestScanCache),
          traffic: Context.get(services, PublicTraffic),
          maxBodyBytes: config.maxBodyBytes,
          requestTimeoutMs: config.requestTimeoutMs,
          log: logRequest
        })
      : undefined
    // The fast path's answers that wait (a batch body arriving, a read-through) end at the request deadline
    // too: a batch body trickled in a byte at a time gets the 503, not a connection held for hours.
    const answer: ServerFetch = (request, peer) => {
      const early = oversize(request)
      if (early !== undefined) return early
      // Keyed token risk keeps its own deadline: its charge must know whether the deadline answered first.
      const keyedAnswer = keyed?.(request, (replayed) => slow(replayed, peer))
      if (keyedAnswer !== undefined) return keyedAnswer
      const quick = fast?.(request, peer, (replayed) => slow(replayed, peer))
      if (quick === undefined) return slow(request, peer)
      return quick instanceof Promise ? withinDeadline(quick, request, config.requestTimeoutMs) : quick
    }
    // A chunked body is measured first, within the request deadline (a body that trickles in gets the 503
    // and is never handled); once it is read, its handling has the deadline of any request. One deadline
    // around both would answer 503 over a write whose COMMIT had begun.
    const measured = (request: Request, peer: Peer): Promise<Response> =>
      new Promise((resolve, reject) => {
        let late = false
        const timer = setTimeout(() => {
          late = true
          resolve(deadlineAnswer(request, config.requestTimeoutMs))
        }, config.requestTimeoutMs)
        measuredBody(request, config.maxBodyBytes).then(
          (read) => {
            if (late) return
            clearTimeout(timer)
            resolve(typeof read === "number" ? tooLarge(request, read) : answer(read, peer))
          },
          (error: unknown) => {
            clearTimeout(timer)
            reject(error)
          }
        )
      })
    return (request, peer) => (unmeasured(request) ? measured(request, peer) : answer(request, peer))
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
          // request, so it is out of the way: makeServerFetch refuses declared and chunked bodies over
          // MAX_BODY_BYTES with the envelope, and never reads more than that.
          maxRequestBodySize: Number.MAX_SAFE_INTEGER,
          idleTimeout: BUN_IDLE_TIMEOUT_SECONDS,
          fetch: (request, bun) => {
            collector.served()
            return fetch(request, () => bun.requestIP(request)?.address ?? "unknown")
          },
          error: (error) => unexpectedFailure(error)
        }),
      catch: (cause) => (cause instanceof Error ? cause : new Error(`Failed to start server on port ${config.port}`))
    }).pipe(Effect.orDie)
    yield* Effect.addFinalizer(() => drain(server, timing))
    yield* Effect.logInfo(`Listening on http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`)
    return server
  })
