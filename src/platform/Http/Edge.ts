import { Context, Option } from "effect"
import { type Peer, peerAddress } from "../../features/Accounts/PublicTraffic.ts"
import { corsHeadersOf } from "../Request/Cors.ts"
import {
  envelopeBodyOf,
  type Failure,
  failureOf,
  InternalError,
  PayloadTooLarge,
  requestTimedOut
} from "../../domain/Errors.ts"
import {
  type Answered,
  ClientAddress,
  type EdgeRequest,
  type FastPath,
  RequestLifecycle,
  requestIdFrom
} from "../Request/Request.ts"
import { bound, boundRequests, refusals } from "../Observability/Metrics.ts"
import type { RequestRecord } from "../Observability/RequestLog.ts"
import type { Lifecycle } from "../../features/System/Lifecycle.ts"
import { type BodyReader, drainBody, lingerFor, measuredBody } from "./Linger.ts"
import { routeOf, routeTakesBody } from "./Routes.ts"

// The edge: what Bun.serve calls for every request, and the one place that answers outside HttpApi. It
// owns the request deadline, the body precheck (413), the envelope, CORS and draining headers, the
// request's metrics and log line, and in-flight counting; fast paths and HttpApi only produce answers.
// A request is recorded once, with the status and duration of the answer that went out.

export type { FastPath }

/** What Bun.serve calls for each request: the peer's address is looked up only when a limit needs it. */
export type ServerFetch = (request: Request, peer: Peer) => Response | Promise<Response>

interface EdgeSettings {
  readonly maxBodyBytes: number
  readonly requestTimeoutMs: number
  readonly corsAllowedOrigins: ReadonlyArray<string>
}

/** The HttpApi web handler (HttpApiBuilder.toWebHandler), given the request's context. */
export type ApiHandler = (
  request: Request,
  context: Context.Context<ClientAddress | RequestLifecycle>
) => Promise<Response>

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

const pathOf = (url: string): string => {
  const start = url.indexOf("/", url.indexOf("//") + 2)
  if (start === -1) return "/"
  const query = url.indexOf("?", start)
  return query === -1 ? url.slice(start) : url.slice(start, query)
}

// "open" until either the deadline answers ("late") or a transaction is about to commit ("committing").
type DeadlineState = "open" | "late" | "committing"

class Exchange implements EdgeRequest {
  state: DeadlineState = "open"
  deferred: Array<(answered: boolean) => void> | undefined = undefined
  /** What HttpApi's middleware reported of its answer (Domain/Request.ts). */
  reported: { accountId: string | undefined; errorCode: string | undefined } | undefined = undefined
  #requestId: string | undefined = undefined
  #lifecycle: typeof RequestLifecycle.Service | undefined = undefined

  constructor(
    public request: Request,
    readonly path: string,
    readonly peer: Peer,
    readonly started: number,
    readonly edge: Edge
  ) {}

  get requestId(): string {
    this.#requestId ??= requestIdFrom(this.request.headers.get("x-request-id") ?? undefined)
    return this.#requestId
  }

  get lifecycle(): typeof RequestLifecycle.Service {
    this.#lifecycle ??= {
      requestId: this.requestId,
      commitBeforeDeadline: () => {
        if (this.state === "late") return false
        this.state = "committing"
        return true
      },
      defer: (work) => {
        this.deferred ??= []
        this.deferred.push(work)
      },
      report: (accountId, errorCode) => {
        this.reported = { accountId, errorCode }
      }
    }
    return this.#lifecycle
  }

  /** Made when a fast path asks for it (most requests never hand on): one closure less per request. */
  get delegate(): (request: Request) => Promise<Answered> {
    return (request) => this.edge.delegate(this, request)
  }

  /** Deferred work learns whether the request's own answer went out, once Bun has written it. */
  settle(answered: boolean): void {
    const deferred = this.deferred
    if (deferred === undefined) return
    this.deferred = undefined
    setImmediate(() => {
      for (const work of deferred) work(answered)
    })
  }
}

interface Edge {
  readonly delegate: (exchange: Exchange, request: Request) => Promise<Answered>
}

export interface EdgeOptions {
  readonly handler: ApiHandler
  readonly settings: EdgeSettings
  readonly lifecycle: Lifecycle
  readonly fastPaths: ReadonlyArray<FastPath>
  /** Writes a request's log line; undefined when LOG_LEVEL leaves request lines out. */
  readonly log: ((record: RequestRecord) => void) | undefined
  /** Writes an error line (a failure of our own code, with the request id the client was given). */
  readonly logError: (fields: Record<string, unknown>) => void
}

/** Every request's answer, from a fast path or HttpApi, within the deadline, recorded once. */
export const makeEdge = (options: EdgeOptions): ServerFetch => {
  const { fastPaths, handler, lifecycle, log, logError, settings } = options
  const linger = lingerFor(settings.requestTimeoutMs)
  // Per method, then per route: no key is joined per request.
  const counters = new Map<string, Map<string, (status: number, seconds: number) => void>>()
  const refusalCounts = new Map([
    ["rate_limited", bound(refusals, { reason: "rate_limited" })],
    ["quota_exceeded", bound(refusals, { reason: "quota_exceeded" })]
  ])

  /** The request's metrics and log line, for the answer that goes out now. */
  const record = (exchange: Exchange, answered: Answered): void => {
    const { method } = exchange.request
    const route = answered.route ?? routeOf(method, exchange.path)
    const status = answered.response.status
    const seconds = (performance.now() - exchange.started) / 1000
    let byRoute = counters.get(method)
    if (byRoute === undefined) {
      byRoute = new Map()
      counters.set(method, byRoute)
    }
    let count = byRoute.get(route)
    if (count === undefined) {
      count = boundRequests(method, route)
      byRoute.set(route, count)
    }
    count(status, seconds)
    if (answered.errorCode !== undefined) refusalCounts.get(answered.errorCode)?.inc()
    log?.({
      method,
      path: exchange.path,
      route,
      status,
      seconds,
      requestId: exchange.requestId,
      accountId: answered.accountId,
      errorCode: answered.errorCode
    })
  }

  /** The answer as it leaves: closing its connection when the server drains; recorded. */
  const finish = (exchange: Exchange, answered: Answered): Response => {
    if (lifecycle.draining()) answered.response.headers.set("connection", "close")
    record(exchange, answered)
    return answered.response
  }

  /** The envelope of a failure answered here, with the headers HttpApi's answers carry (Http/Middleware.ts). */
  const refusal = (exchange: Exchange, failure: Failure, headers: Record<string, string> = {}): Answered => ({
    response: new Response(JSON.stringify(envelopeBodyOf(failure, exchange.requestId)), {
      status: failure.status,
      headers: {
        "content-type": "application/json",
        "cache-control": "no-store",
        ...failure.headers,
        ...corsHeadersOf(
          exchange.path,
          exchange.request.headers.get("origin") ?? undefined,
          settings.corsAllowedOrigins
        ),
        ...headers,
        "x-request-id": exchange.requestId
      }
    }),
    errorCode: failure.code
  })

  const failureFor = (error: unknown): Failure => Option.getOrThrow(failureOf(error))

  // A body over the limit is answered 413 and its connection closed. The rest of it is first read and
  // dropped, for a bounded time and size (a lingering close): a client still sending would otherwise get a
  // reset before it reads the answer. One that asked to be told first (Expect: 100-continue) is told now.
  const tooLarge = async (exchange: Exchange, length: number, reader: BodyReader | undefined) => {
    if (exchange.request.headers.get("expect")?.toLowerCase() !== "100-continue") {
      await drainBody(reader ?? exchange.request.body?.getReader(), linger)
    } else {
      void reader?.cancel().catch(() => undefined)
    }
    return refusal(
      exchange,
      failureFor(
        new PayloadTooLarge({ message: `The body is ${length} bytes or more; the limit is ${settings.maxBodyBytes}.` })
      ),
      {
        connection: "close"
      }
    )
  }

  /** HttpApi's answer; the middleware reports the account and failure code for the record. */
  const delegate = (exchange: Exchange, request: Request): Promise<Answered> => {
    // The client going away does not interrupt the work (an interrupted database call can hold its
    // pooled connection and row locks for seconds): it runs to its own bounds (statement timeouts).
    const detached = new Request(request, { signal: new AbortController().signal })
    const context = Context.make(ClientAddress, peerAddress(exchange.peer)).pipe(
      Context.add(RequestLifecycle, exchange.lifecycle)
    )
    return handler(detached, context).then((response) => ({
      response,
      accountId: exchange.reported?.accountId,
      errorCode: exchange.reported?.errorCode
    }))
  }
  const edge: Edge = { delegate }

  const route = (exchange: Exchange): Answered | Promise<Answered> => {
    for (const fast of fastPaths) {
      const answered = fast.serve(exchange)
      if (answered !== undefined) return answered
    }
    return delegate(exchange, exchange.request)
  }

  // The one deadline: an answer not ready by REQUEST_TIMEOUT_MS is replaced by the 503 envelope. The work is
  // not interrupted; it is marked late, so a transaction rolls back instead of committing behind the 503
  // (Sql/Transactions.ts), and one already committing is answered by its own outcome, however late.
  // Deferred work (a keyed read's charge) runs after the answer is written: told whether it was its own.
  const withinDeadline = (exchange: Exchange, pending: Promise<Answered>): Promise<Response> => {
    const leave = lifecycle.enter()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (exchange.state === "committing") return
        exchange.state = "late"
        resolve(finish(exchange, refusal(exchange, failureFor(requestTimedOut(settings.requestTimeoutMs)))))
      }, settings.requestTimeoutMs)
      pending.then(
        (answered) => {
          leave()
          clearTimeout(timer)
          const late = exchange.state === "late"
          exchange.settle(!late)
          if (!late) resolve(finish(exchange, answered))
        },
        (error: unknown) => {
          leave()
          clearTimeout(timer)
          exchange.settle(false)
          logError({ requestId: exchange.requestId, error: describe(error) })
          if (exchange.state !== "late") {
            resolve(
              finish(
                exchange,
                refusal(exchange, failureFor(new InternalError({ message: UNEXPECTED })), { connection: "close" })
              )
            )
          }
        }
      )
    })
  }

  return (request, peer) => {
    const exchange = new Exchange(request, pathOf(request.url), peer, performance.now(), edge)
    // Only a route that takes a body has one read; any other's body is never read, nor refused.
    if (BODY_METHODS.has(request.method) && routeTakesBody(request.method, exchange.path)) {
      const declared = request.headers.get("content-length")
      if (declared !== null) {
        const length = Number(declared)
        if (length > settings.maxBodyBytes) return withinDeadline(exchange, tooLarge(exchange, length, undefined))
      } else if (request.body !== null) {
        // No declared length (chunked): read here up to the limit, so every later step sees a declared one.
        return withinDeadline(
          exchange,
          measuredBody(request, settings.maxBodyBytes).then((measured) => {
            if (measured._tag === "TooLarge") return tooLarge(exchange, measured.length, measured.reader)
            exchange.request = measured.request
            return route(exchange)
          })
        )
      }
    }
    const answered = route(exchange)
    return answered instanceof Promise ? withinDeadline(exchange, answered) : finish(exchange, answered)
  }
}

const UNEXPECTED = "An unexpected error occurred; quote the requestId to support."

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error)

/**
 * Bun's `error` hook: what Bun.serve answers when the edge itself throws (a bug). Without it Bun answers its
 * own 500 page (HTML with the stack outside production); with it, the 500 envelope, and the error logged with
 * the request id the client is given. Bun passes the error only, not the request.
 */
export const unexpectedFailure = (error: unknown, logError: (fields: Record<string, unknown>) => void): Response => {
  const requestId = crypto.randomUUID()
  const failure = Option.getOrThrow(failureOf(new InternalError({ message: UNEXPECTED })))
  logError({ requestId, error: describe(error) })
  return new Response(JSON.stringify(envelopeBodyOf(failure, requestId)), {
    status: failure.status,
    headers: {
      "content-type": "application/json",
      "cache-control": "no-store",
      connection: "close",
      "x-request-id": requestId
    }
  })
}
