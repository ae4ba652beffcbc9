import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { type Cause, Effect, FiberRef, Option } from "effect"
import { corsHeadersOf, preflightHeadersOf } from "../Request/Cors.ts"
import { failureFrom, InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from "../../domain/Errors.ts"
import {
  CurrentAccountId,
  CurrentRequestId,
  isJsonMediaType,
  jsonDepthOf,
  RequestLifecycle,
  requestIdFrom
} from "../Request/Request.ts"
import { withMcp } from "../../interfaces/Mcp/Http.ts"
import { countRequest, type RequestRecord, requestLine } from "../Observability/RequestLog.ts"
import { withValidators } from "./Cacheable.ts"
import { AppConfig } from "./Config.ts"
import { envelopeResponse, type Failure, noRoute, parameterRefusal, renderCause } from "./Envelope.ts"
import { allowedMethods, routeOf, routeTakesBody, routeWithEmptyParameter } from "./Routes.ts"

const decodes = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

/** Deepest JSON nesting a body may have: the contract's bodies need 3; decoding a deeper one only costs. */
const MAX_JSON_DEPTH = 32

const tooDeep = failureFrom(
  new InvalidRequest({ message: `body: JSON nested deeper than ${MAX_JSON_DEPTH} levels.` }),
  {
    details: [{ path: "body", message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]
  }
)

const tooLarge = (length: number, maxBodyBytes: number): Failure =>
  failureFrom(new PayloadTooLarge({ message: `The body is ${length} bytes or more; the limit is ${maxBodyBytes}.` }))

// Reject what must not reach a handler: oversize and non-JSON bodies. A declared length is checked
// before reading; a chunked body is read here (the request caches it for the handler) and measured.
const precheck = (
  request: HttpServerRequest.HttpServerRequest,
  maxBodyBytes: number
): Effect.Effect<Failure | undefined> => {
  if (!BODY_METHODS.has(request.method) || !routeTakesBody(request.method, request.url.split("?")[0] ?? request.url)) {
    return Effect.succeed(undefined)
  }
  const declared = request.headers["content-length"]
  const chunked = request.headers["transfer-encoding"] !== undefined
  const hasBody = chunked || (declared !== undefined && Number(declared) > 0)
  const contentType = request.headers["content-type"]
  if (hasBody && contentType !== undefined && !isJsonMediaType(contentType)) {
    return Effect.succeed(
      failureFrom(
        new UnsupportedMediaType({ message: `Content-Type ${contentType} is not accepted; send application/json.` })
      )
    )
  }
  if (declared !== undefined && Number(declared) > maxBodyBytes)
    return Effect.succeed(tooLarge(Number(declared), maxBodyBytes))
  if (!hasBody) return Effect.succeed(undefined)
  // The body is read here (the request keeps it for the handler): measured when chunked, and its nesting
  // bounded before anything decodes it.
  return request.text.pipe(
    Effect.map((text) => {
      const length = Buffer.byteLength(text)
      if (length > maxBodyBytes) return tooLarge(length, maxBodyBytes)
      return jsonDepthOf(text) > MAX_JSON_DEPTH ? tooDeep : undefined
    }),
    Effect.orElseSucceed(() => undefined) // a body that cannot be read fails later, as malformed
  )
}

/**
 * Refusals before routing: a path parameter that is not valid percent-encoding or is empty (400), a path that matches no route
 * exactly, letter case included (404 or 405: the router alone would match case-insensitively), and HEAD on
 * the keyed routes, which are metered GETs (405).
 */
const routingRefusal = (method: string, path: string): Failure | undefined => {
  // A parameter that is not valid percent-encoding, or left empty before another segment, is the route's
  // own 400: the code its contract lists for a bad parameter (an address route's invalid_address).
  const decoded = decodes(path)
  const route = decoded ? (routeWithEmptyParameter(method, path) ?? "unmatched") : routeOf(method, path)
  if (route !== "unmatched")
    return parameterRefusal(route, decoded ? "a path parameter is empty" : "the path is not valid percent-encoding")
  const keyedHead = method === "HEAD" && path.startsWith("/api/v1/")
  if (!keyedHead && routeOf(method, path) !== "unmatched") return undefined
  return noRoute(
    method,
    path,
    allowedMethods(path).filter((allowed) => !(keyedHead && allowed === "HEAD"))
  )
}

// The request's metrics, and its log line when info is logged. Behind the server's edge (Http/Edge.ts) the
// request is recorded there, once its answer goes out (the deadline's 503 may go out instead): the
// middleware only reports the account and failure code. A tool call of POST /mcp, nested in a request,
// and a request handled without the edge (in-process tests) are recorded here.
const observe = (record: RequestRecord, edge: Option.Option<typeof RequestLifecycle.Service>, nested: boolean) => {
  if (Option.isSome(edge) && !nested) return Effect.sync(() => edge.value.report(record.accountId, record.errorCode))
  countRequest(record)
  return Effect.whenLogLevel(
    Effect.suspend(() => requestLine(record)),
    "Info"
  )
}

interface Settings {
  readonly maxBodyBytes: number
  readonly corsAllowedOrigins: ReadonlyArray<string>
}

// OPTIONS on a path that exists answers 204 (a CORS preflight); on any other path it is the 404 envelope.
const preflight = (path: string, origin: string | undefined, settings: Settings) => {
  const methods = allowedMethods(path)
  return methods.length === 0
    ? undefined
    : HttpServerResponse.empty({
        status: 204,
        headers: preflightHeadersOf(path, origin, settings.corsAllowedOrigins, methods)
      })
}

const handle = (app: HttpApp.Default, settings: Settings) =>
  Effect.gen(function* () {
    const started = performance.now()
    const request = yield* HttpServerRequest.HttpServerRequest
    const edge = yield* Effect.serviceOption(RequestLifecycle)
    const nested = (yield* FiberRef.get(CurrentRequestId)) !== ""
    const requestId =
      Option.isSome(edge) && !nested ? edge.value.requestId : requestIdFrom(request.headers["x-request-id"])
    const path = request.url.split("?")[0] ?? request.url
    const origin = request.headers.origin
    const preflighted = request.method === "OPTIONS" ? preflight(path, origin, settings) : undefined
    const rejected =
      preflighted !== undefined
        ? undefined
        : (routingRefusal(request.method, path) ?? (yield* precheck(request, settings.maxBodyBytes)))
    const render = (cause: Cause.Cause<unknown>) => renderCause(cause, request, requestId)
    const [response, errorCode, accountId] =
      preflighted !== undefined
        ? [preflighted, undefined, undefined]
        : rejected !== undefined
          ? [envelopeResponse(rejected, requestId), rejected.code, undefined]
          : yield* app.pipe(
              Effect.map((response) => [response, undefined] as const),
              Effect.catchAllCause((cause) =>
                Effect.map(render(cause), ({ failure, response }) => [response, failure.code] as const)
              ),
              Effect.zipWith(
                FiberRef.get(CurrentAccountId),
                ([response, code], account) => [response, code, account] as const
              ),
              Effect.locally(CurrentRequestId, requestId),
              Effect.locally(CurrentAccountId, undefined)
            )
    yield* observe(
      {
        method: request.method,
        path,
        route: routeOf(request.method, path),
        status: response.status,
        seconds: (performance.now() - started) / 1000,
        requestId,
        accountId,
        errorCode
      },
      edge,
      nested
    )
    return HttpServerResponse.setHeaders(
      withValidators(request.method, path, request.headers["if-none-match"], response),
      {
        ...corsHeadersOf(path, origin, settings.corsAllowedOrigins),
        // Keyed answers are one account's: never stored by a shared cache.
        ...(path.startsWith("/api/v1/") && response.headers["cache-control"] === undefined
          ? { "cache-control": "no-store" }
          : {}),
        "x-request-id": requestId
      }
    )
  })

/**
 * Around every HttpApi request: the request id, the body prechecks, the one envelope for every failure
 * (Http/Envelope.ts), and the request's record (reported to the edge, or written here without one).
 */
const withEnvelope =
  (settings: Settings) =>
  (app: HttpApp.Default): HttpApp.Default =>
    handle(app, settings)

// POST /mcp is answered inside the envelope, and each of its tool calls re-enters the envelope (Mcp/Http.ts).
export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  Effect.map(AppConfig, (settings) => (app: HttpApp.Default) => {
    const enveloped: HttpApp.Default = withEnvelope(settings)(withMcp(app, () => enveloped))
    return enveloped
  })
)
