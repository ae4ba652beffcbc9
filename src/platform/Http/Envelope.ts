import { HttpApiError, HttpServerError, HttpServerResponse } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { SqlError } from "@effect/sql"
import {
  ClientClosedRequest,
  envelopeBodyOf,
  type Failure,
  failureFrom,
  failureOf,
  InternalError,
  InvalidAddress,
  InvalidRequest,
  MalformedJson,
  MethodNotAllowed,
  NotFound,
  ServiceUnavailable
} from "../../domain/Errors.ts"
import { isUnreachable } from "../Sql/Unavailable.ts"
import { allowedMethods, routeOf } from "./Routes.ts"

// The one place that turns any failure (typed error, schema failure, unknown route, defect) into the
// JSON envelope. A typed error's code and status are annotations on its class (Domain/Errors.ts).

export type { Failure }

export const envelopeResponse = (failure: Failure, requestId: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(envelopeBodyOf(failure, requestId), {
    status: failure.status,
    headers: { "cache-control": "no-store", ...failure.headers }
  })

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.length === 0
    ? "body"
    : path.reduce<string>(
        (text, key) =>
          typeof key === "number" ? `${text}[${key}]` : text === "" ? String(key) : `${text}.${String(key)}`,
        ""
      )

// A rejected value is quoted in the issue's message; a huge one is cut, not echoed whole.
const MAX_ISSUE_MESSAGE = 300
const shortened = (message: string) =>
  message.length > MAX_ISSUE_MESSAGE ? `${message.slice(0, MAX_ISSUE_MESSAGE)}…` : message

const fromDecodeError = (error: HttpApiError.HttpApiDecodeError): Failure => {
  const details = error.issues.map((issue) => ({ path: formatPath(issue.path), message: shortened(issue.message) }))
  const first = details[0]
  const more = details.length > 1 ? ` (and ${details.length - 1} more, see details)` : ""
  return failureFrom(
    new InvalidRequest({
      message: first === undefined ? "The request does not match the schema." : `${first.path}: ${first.message}${more}`
    }),
    { details }
  )
}

/**
 * A path parameter the router cannot take (not valid percent-encoding, empty before another segment, longer
 * than the router's bound) is the route's own 400: the code its contract lists for a bad parameter.
 */
export const parameterRefusal = (route: string, problem: string): Failure =>
  route.startsWith("/api/risk-check/")
    ? failureFrom(new InvalidAddress({ message: `The address is not valid: ${problem}.` }))
    : failureFrom(new InvalidRequest({ message: `path: ${problem}.` }), {
        details: [{ path: "path", message: problem }]
      })

// find-my-way's maxParamLength, which HttpApi's router keeps at its default.
const MAX_PARAMETER_LENGTH = 100

/** No route has the path (404), or not with this method (405, naming the methods it takes). */
export const noRoute = (method: string, path: string, allowed: ReadonlyArray<string>): Failure =>
  allowed.length === 0
    ? failureFrom(new NotFound({ message: `No route for ${method} ${path}.` }))
    : failureFrom(
        new MethodNotAllowed({ message: `${method} is not allowed on ${path}; use ${allowed.join(", ")}.` }),
        {
          headers: { allow: allowed.join(", ") }
        }
      )

const fromRouteNotFound = (request: HttpServerRequest.HttpServerRequest): Failure => {
  const path = request.url.split("?")[0] ?? request.url
  // Our table matches it but the router did not: a parameter over the router's length bound (100).
  if (path.split("/").some((segment) => segment.length > MAX_PARAMETER_LENGTH)) {
    const route = routeOf(request.method, path)
    if (route !== "unmatched") return parameterRefusal(route, "a path parameter is too long")
  }
  return noRoute(request.method, path, allowedMethods(path))
}

const internal = failureFrom(
  new InternalError({ message: "Internal error; nothing was changed by this failure. Quote the requestId to support." })
)

const unavailable = failureFrom(
  new ServiceUnavailable({ message: "The evidence database is unreachable; retry shortly." })
)

const fromValue = (value: unknown, request: HttpServerRequest.HttpServerRequest): Failure | undefined => {
  if (value instanceof HttpApiError.HttpApiDecodeError) return fromDecodeError(value)
  if (HttpServerError.isServerError(value) && value._tag === "RouteNotFound") return fromRouteNotFound(request)
  if (HttpServerError.isServerError(value) && value._tag === "RequestError" && value.reason === "Decode") {
    return failureFrom(new MalformedJson({ message: "The body is not valid JSON." }))
  }
  if (value instanceof SqlError.SqlError && isUnreachable(value)) return unavailable
  return Option.getOrUndefined(failureOf(value))
}

// Only interruption: the client closed the connection before the answer (nginx's 499). Nobody reads the
// envelope, but the request line and metrics record it, and it is not a defect.
const clientClosed = failureFrom(
  new ClientClosedRequest({ message: "The client closed the connection before the answer was ready." })
)

/** The envelope for a cause, and whether it is a defect worth logging. */
export const classify = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest
): { readonly failure: Failure; readonly defect: boolean } => {
  if (Cause.isInterruptedOnly(cause)) return { failure: clientClosed, defect: false }
  const failed = Cause.failureOption(cause).pipe(Option.flatMapNullable((value) => fromValue(value, request)))
  if (Option.isSome(failed)) return { failure: failed.value, defect: false }
  const died = Cause.dieOption(cause).pipe(Option.flatMapNullable((value) => fromValue(value, request)))
  if (Option.isSome(died)) return { failure: died.value, defect: false }
  return { failure: internal, defect: true }
}

/** The envelope response for a cause (and the failure it reports); a defect is logged with the request id. */
export const renderCause = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string
): Effect.Effect<{ readonly failure: Failure; readonly response: HttpServerResponse.HttpServerResponse }> => {
  const { defect, failure } = classify(cause, request)
  const rendered = { failure, response: envelopeResponse(failure, requestId) }
  return defect
    ? Effect.as(
        Effect.logError("request failed with a defect", cause).pipe(Effect.annotateLogs({ requestId })),
        rendered
      )
    : Effect.succeed(rendered)
}
