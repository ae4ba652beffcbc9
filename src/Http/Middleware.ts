import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "./Config.ts"
import { envelopeResponse, renderCause, type Failure } from "./Envelope.ts"
import { lifecycle } from "../System/Lifecycle.ts"
import { inFlight, latency, refusals, requests } from "../Observability/Metrics.ts"
import { CurrentRequest, newRequestContext, type RequestContext } from "./RequestContext.ts"
import { routeOf } from "./Routes.ts"

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

const tooLarge = (length: number, maxBodyBytes: number): Failure => ({
  status: 413,
  code: "payload_too_large",
  message: `The body is ${length} bytes or more; the limit is ${maxBodyBytes}.`
})

// Reject what must not reach a handler: oversize and non-JSON bodies. A declared length is checked
// before reading; a chunked body is read here (the request caches it for the handler) and measured.
const precheck = (
  request: HttpServerRequest.HttpServerRequest,
  maxBodyBytes: number
): Effect.Effect<Failure | undefined> => {
  if (!BODY_METHODS.has(request.method)) return Effect.succeed(undefined)
  const declared = request.headers["content-length"]
  const chunked = request.headers["transfer-encoding"] !== undefined
  const hasBody = chunked || (declared !== undefined && Number(declared) > 0)
  const contentType = request.headers["content-type"]
  if (hasBody && contentType !== undefined && !contentType.toLowerCase().includes("application/json")) {
    return Effect.succeed({
      status: 415,
      code: "unsupported_media_type",
      message: `Content-Type ${contentType} is not accepted; send application/json.`
    })
  }
  if (declared !== undefined) {
    const length = Number(declared)
    return Effect.succeed(length > maxBodyBytes ? tooLarge(length, maxBodyBytes) : undefined)
  }
  if (!chunked) return Effect.succeed(undefined)
  return request.text.pipe(
    Effect.map((text) => {
      const length = Buffer.byteLength(text)
      return length > maxBodyBytes ? tooLarge(length, maxBodyBytes) : undefined
    }),
    Effect.orElseSucceed(() => undefined) // a body that cannot be read fails later, as malformed
  )
}

/** IETF RateLimit draft headers plus the widely used X-RateLimit-* ones, for the per-minute window. */
export const standingHeadersOf = (
  context: Pick<RequestContext, "standing" | "retryAfterSeconds">
): Record<string, string> | undefined => {
  const standing = context.standing
  if (standing === undefined) return undefined
  const { quota, rate } = standing
  const headers: Record<string, string> = {
    "ratelimit-policy": `"minute";q=${rate.limit};w=60${quota === undefined ? "" : `, "month";q=${quota.limit}`}`,
    "ratelimit": `"minute";r=${rate.remaining};t=${rate.resetSeconds}`,
    "x-ratelimit-limit": String(rate.limit),
    "x-ratelimit-remaining": String(rate.remaining),
    "x-ratelimit-reset": String(rate.resetSeconds)
  }
  if (quota !== undefined) {
    headers["x-quota-limit"] = String(quota.limit)
    headers["x-quota-remaining"] = String(quota.remaining)
  }
  if (context.retryAfterSeconds !== undefined) headers["retry-after"] = String(context.retryAfterSeconds)
  return headers
}

const withStanding = (response: HttpServerResponse.HttpServerResponse, context: RequestContext) => {
  const headers = standingHeadersOf(context)
  return headers === undefined ? response : HttpServerResponse.setHeaders(response, headers)
}

// A failed or abandoned call is never charged: its reserved quota goes back, and the headers say so.
const refundUnlessSucceeded = (context: RequestContext, status: number | undefined) => {
  const refund = context.refund
  if (refund === undefined || (status !== undefined && status < 400)) return Effect.void
  context.refund = undefined
  return refund.run.pipe(
    Effect.tap(() => {
      const quota = context.standing?.quota
      if (context.standing === undefined || quota === undefined) return
      const used = Math.max(0, quota.used - refund.cost)
      context.standing = { ...context.standing, quota: { ...quota, used, remaining: Math.max(0, quota.limit - used) } }
    }),
    Effect.catchAllCause((cause) => Effect.logError("quota refund failed", cause))
  )
}

/** What is recorded of every answered request: its metrics and one log line. */
export interface RequestRecord {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly seconds: number
  readonly requestId: string
  readonly accountId: string | undefined
  readonly refusal: RequestContext["refusal"]
}

/** The request's metrics; returns its route template. Shared with the risk-check fast path. */
export const countRequest = (record: RequestRecord, route: string = routeOf(record.method, record.path)): string => {
  requests.inc({ method: record.method, route, status: String(record.status) })
  latency.observe({ method: record.method, route }, record.seconds)
  if (record.refusal !== undefined) refusals.inc({ reason: record.refusal })
  return route
}

/** The fields of a request's log line: the key never appears, the account id does. */
export const requestFields = (record: RequestRecord, route: string): Record<string, string | number> => ({
  method: record.method,
  route,
  path: record.path,
  status: record.status,
  durationMs: Math.round(record.seconds * 100_000) / 100,
  requestId: record.requestId,
  ...(record.accountId === undefined ? {} : { accountId: record.accountId })
})

export const requestLine = (record: RequestRecord, route: string) =>
  Effect.logInfo("request").pipe(Effect.annotateLogs(requestFields(record, route)))

const observe = (request: HttpServerRequest.HttpServerRequest, context: RequestContext, status: number, started: number) => {
  const record: RequestRecord = {
    method: request.method,
    path: request.url.split("?")[0] ?? request.url,
    status,
    seconds: (performance.now() - started) / 1000,
    requestId: context.id,
    accountId: context.accountId,
    refusal: context.refusal
  }
  const route = countRequest(record)
  return Effect.whenLogLevel(Effect.suspend(() => requestLine(record, route)), "Info")
}

// Requests in flight, for the metric and for the shutdown drain.
const countInFlight = <A, E, R>(handled: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    inFlight.inc()
    lifecycle.inFlight++
    return Effect.ensuring(handled, Effect.sync(() => {
      inFlight.dec()
      lifecycle.inFlight--
    }))
  })

export const withEnvelope = (maxBodyBytes: number) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const started = performance.now()
    const request = yield* HttpServerRequest.HttpServerRequest
    const context = newRequestContext(request.headers["x-request-id"])
    const rejected = yield* precheck(request, maxBodyBytes)
    const response = rejected !== undefined
      ? envelopeResponse(rejected, context.id)
      : yield* app.pipe(
        Effect.catchAllCause((cause) => renderCause(cause, request, context.id)),
        Effect.onInterrupt(() => refundUnlessSucceeded(context, undefined)),
        Effect.locally(CurrentRequest, context)
      )
    yield* refundUnlessSucceeded(context, response.status)
    yield* observe(request, context, response.status, started)
    const answered = HttpServerResponse.setHeader(withStanding(response, context), "x-request-id", context.id)
    return lifecycle.draining ? HttpServerResponse.setHeader(answered, "connection", "close") : answered
  }).pipe(countInFlight)

export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  Effect.map(AppConfig, (config) => withEnvelope(config.maxBodyBytes))
)
