import { type HttpApiEndpoint, HttpApiSchema } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Schema } from "effect"

// Every failure leaves the service as one envelope: {"error": {"code", "message", "requestId", "details"?}}.
// Each typed error is a tagged class for the handlers and, through `envelope`, an envelope-shaped schema
// for the contract, so /openapi.json and generated clients see exactly what goes over the wire.

export const ErrorDetail = Schema.Struct({
  path: Schema.String.annotations({ description: "Where the problem is, e.g. `addresses[3]` or `body`." }),
  message: Schema.String
}).annotations({ identifier: "ErrorDetail" })

const envelopeOf = (code: string, identifier: string, description: string) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code).annotations({ description: "Stable machine-readable code." }),
      message: Schema.String.annotations({ description: "Human-readable explanation." }),
      requestId: Schema.String.annotations({ description: "Same value as the X-Request-Id response header." }),
      details: Schema.optional(Schema.Array(ErrorDetail))
    })
  }).annotations({ identifier, description })

interface ApiErrorClass<Self extends { readonly message: string }> extends Schema.Schema<Self, any> {
  new(props: { readonly message: string }): Self
}

export interface ErrorInfo {
  readonly code: string
  readonly status: number
}

const registry = new Map<string, ErrorInfo>()

/** The status and code of a typed error, by its tag. */
export const errorInfo = (tag: string): ErrorInfo | undefined => registry.get(tag)

const envelope = <Self extends { readonly _tag: string; readonly message: string }>(
  cls: ApiErrorClass<Self>,
  tag: Self["_tag"],
  code: string,
  status: number,
  description: string
) => {
  registry.set(tag, { code, status })
  const identifier = `${tag}Error`
  return Schema.transform(envelopeOf(code, identifier, description), Schema.typeSchema(cls), {
    strict: true,
    decode: (body) => new cls({ message: body.error.message }),
    encode: (error) => ({ error: { code, message: error.message, requestId: "" } })
  }).annotations(HttpApiSchema.annotations({ status, description }))
}

const fields = { message: Schema.String }

export class InvalidAddress extends Schema.TaggedError<InvalidAddress>()("InvalidAddress", fields) {}
export const InvalidAddressError = envelope(
  InvalidAddress, "InvalidAddress", "invalid_address", 400,
  "The address is not base58 that decodes to 32 bytes."
)

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {}
export const InvalidRequestError = envelope(
  InvalidRequest, "InvalidRequest", "invalid_request", 400,
  "The request does not match the schema; `details` names each field and problem."
)

export class MalformedJson extends Schema.TaggedError<MalformedJson>()("MalformedJson", fields) {}
export const MalformedJsonError = envelope(
  MalformedJson, "MalformedJson", "malformed_json", 400,
  "The body is not valid JSON."
)

export class BatchTooLarge extends Schema.TaggedError<BatchTooLarge>()("BatchTooLarge", fields) {}
export const BatchTooLargeError = envelope(
  BatchTooLarge, "BatchTooLarge", "batch_too_large", 400,
  "More than 50 addresses in one batch."
)

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields) {}
export const NotFoundError = envelope(NotFound, "NotFound", "not_found", 404, "No route at this path.")

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", fields) {}
export const MethodNotAllowedError = envelope(
  MethodNotAllowed, "MethodNotAllowed", "method_not_allowed", 405,
  "The path exists but not with this method; the Allow header lists the methods it takes."
)

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields) {}
export const PayloadTooLargeError = envelope(
  PayloadTooLarge, "PayloadTooLarge", "payload_too_large", 413,
  "The body is larger than the limit (MAX_BODY_BYTES)."
)

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields) {}
export const UnsupportedMediaTypeError = envelope(
  UnsupportedMediaType, "UnsupportedMediaType", "unsupported_media_type", 415,
  "The body is not sent as application/json."
)

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields) {}
export const UnauthorizedError = envelope(
  Unauthorized, "Unauthorized", "unauthorized", 401,
  "No valid API key: missing, malformed, unknown, revoked or expired (all answer the same)."
)

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {}
export const ForbiddenError = envelope(
  Forbidden, "Forbidden", "forbidden", 403,
  "The key is valid but lacks the scope this route needs; the message names it."
)

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", fields) {}
export const RateLimitedError = envelope(
  RateLimited, "RateLimited", "rate_limited", 429,
  "Over the plan's requests per minute; Retry-After says when the window resets."
)

export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", fields) {}
export const QuotaExceededError = envelope(
  QuotaExceeded, "QuotaExceeded", "quota_exceeded", 429,
  "The plan's monthly cost units are used up; Retry-After says when the month resets (UTC)."
)

export class NotScanned extends Schema.TaggedError<NotScanned>()("NotScanned", fields) {}
export const NotScannedError = envelope(
  NotScanned, "NotScanned", "not_scanned", 404,
  "The mint has never been scanned; the message gives the rescan URL. Not charged."
)

export class WatchNotFound extends Schema.TaggedError<WatchNotFound>()("WatchNotFound", fields) {}
export const WatchNotFoundError = envelope(
  WatchNotFound, "WatchNotFound", "watch_not_found", 404,
  "No watch with this id belongs to the calling account (other accounts' watches are not visible)."
)

export class WatchLimitReached extends Schema.TaggedError<WatchLimitReached>()("WatchLimitReached", fields) {}
export const WatchLimitReachedError = envelope(
  WatchLimitReached, "WatchLimitReached", "watch_limit_reached", 409,
  "The account has the maximum number of unexpired watches; delete one or let it expire."
)

export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields) {}
export const InternalErrorError = envelope(
  InternalError, "InternalError", "internal_error", 500,
  "An unexpected failure; nothing internal is disclosed. Quote the requestId to support."
)

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", fields) {}
export const ServiceUnavailableError = envelope(
  ServiceUnavailable, "ServiceUnavailable", "service_unavailable", 503,
  "The database is unreachable; retry after the Retry-After seconds."
)

/** The failures of any route that takes a JSON body, before its handler runs. */
export const jsonBodyErrors = <
  Name extends string,
  Method extends HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE
>(endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>) =>
  endpoint
    .addError(InvalidRequestError)
    .addError(MalformedJsonError)
    .addError(PayloadTooLargeError)
    .addError(UnsupportedMediaTypeError)

/** The refusals of a metered route. */
export const meteredErrors = <
  Name extends string,
  Method extends HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE
>(endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>) =>
  endpoint.addError(RateLimitedError).addError(QuotaExceededError)
