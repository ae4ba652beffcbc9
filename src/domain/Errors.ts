import { type HttpApiEndpoint, HttpApiSchema } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Option, Schema, SchemaAST } from "effect"

// Every failure leaves the service as one envelope: {"error": {"code", "message", "requestId", "details"?}}.
// An error class is the one definition of a failure: its tag, envelope code, HTTP status and description
// are annotations on the class. Http/Envelope.ts renders any instance from them, and `envelope(Class)`
// derives from them the envelope-shaped schema that /openapi.json documents and typed clients decode.

const ErrorCodeId = Symbol.for("risk-api/ErrorCode")

/** The annotations of an API error class: envelope code, HTTP status and what the failure means. */
export const apiError = (
  code: string,
  status: number,
  description: string
): { readonly description: string; readonly [annotation: symbol]: unknown } => ({
  ...HttpApiSchema.annotations({ status, description }),
  description,
  [ErrorCodeId]: code
})

/** What the envelope says of an error class: read from its annotations, nowhere else. */
interface ErrorInfo {
  readonly code: string
  readonly status: number
  readonly description: string
}

/** The envelope code, status and description of an error class; none for a class that is not an API error. */
const errorInfoOf = (schema: Schema.Schema.Any): Option.Option<ErrorInfo> => {
  const ast = SchemaAST.typeAST(schema.ast)
  return Option.map(SchemaAST.getAnnotation<string>(ast, ErrorCodeId), (code) => ({
    code,
    status: HttpApiSchema.getStatus(ast, 500),
    description: Option.getOrElse(SchemaAST.getDescriptionAnnotation(ast), () => "")
  }))
}

/** A failure as the envelope reports it. */
export interface Failure {
  readonly status: number
  readonly code: string
  readonly message: string
  readonly details?: ReadonlyArray<typeof ErrorDetail.Type>
  readonly headers?: Readonly<Record<string, string>>
}

/** The failure an API error instance stands for: its class's code and status, its own message. */
export const failureOf = (error: unknown): Option.Option<Failure> => {
  if (typeof error !== "object" || error === null || !("ast" in error.constructor)) return Option.none()
  const message = "message" in error && typeof error.message === "string" ? error.message : ""
  return Option.map(
    errorInfoOf(error.constructor as unknown as Schema.Schema.Any),
    (info): Failure => ({
      status: info.status,
      code: info.code,
      message,
      // A 503 is temporary: the caller is told when to retry.
      ...(info.status === 503 ? { headers: { "retry-after": "5" } } : {})
    })
  )
}

/**
 * The failure of an API error instance, with what its class does not carry: a 400's details, a 405's
 * Allow header. Every failure the service answers is built from an error class, here or by failureOf.
 */
export const failureFrom = (
  error: { readonly message: string },
  extra: {
    readonly details?: ReadonlyArray<typeof ErrorDetail.Type>
    readonly headers?: Readonly<Record<string, string>>
  } = {}
): Failure => {
  const failure = Option.getOrThrow(failureOf(error))
  const headers = extra.headers === undefined ? failure.headers : { ...failure.headers, ...extra.headers }
  return {
    ...failure,
    ...(extra.details === undefined ? {} : { details: extra.details }),
    ...(headers === undefined ? {} : { headers })
  }
}

/** The longest text the envelope carries in a message or a detail (the contract documents 4096). */
const MAX_ERROR_TEXT = 1_024

// A message may echo what the client sent (an id, a value): cut, never echoed whole.
const cut = (text: string): string => (text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text)

/** The envelope's JSON body: the same on every path that answers a failure. */
export const envelopeBodyOf = (failure: Failure, requestId: string) => ({
  error: {
    code: failure.code,
    message: cut(failure.message),
    requestId,
    ...(failure.details === undefined
      ? {}
      : { details: failure.details.map((detail) => ({ path: cut(detail.path), message: cut(detail.message) })) })
  }
})

const ErrorDetail = Schema.Struct({
  path: Schema.String.annotations({ description: "Where the problem is, e.g. `addresses[3]` or `body`." }),
  message: Schema.String
}).annotations({ identifier: "ErrorDetail" })

/** The fields of every API error: a real `message` field, so it is serialised. */
const fields = { message: Schema.String }

interface ApiErrorClass<Self extends { readonly _tag: string; readonly message: string }>
  extends Schema.Schema<Self, { readonly _tag: Self["_tag"]; readonly message: string }> {
  new (props: { readonly message: string }): Self
}

const envelopes = new WeakMap<object, Schema.Schema.Any>()

/**
 * The wire form of an error class, for the contract: the envelope with the class's code, decoded back into
 * the class (so a typed client gets the class) and annotated with its status and description.
 */
export const envelope = <Self extends { readonly _tag: string; readonly message: string }>(
  cls: ApiErrorClass<Self>
): Schema.Schema<
  Self,
  {
    readonly error: {
      readonly code: string
      readonly message: string
      readonly requestId: string
      readonly details?: ReadonlyArray<typeof ErrorDetail.Type>
    }
  }
> => {
  const known = envelopes.get(cls)
  if (known !== undefined) return known as never
  const info = Option.getOrThrow(errorInfoOf(cls))
  const tag = Option.getOrThrow(SchemaAST.getIdentifierAnnotation(SchemaAST.typeAST(cls.ast)))
  const encoded = Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(info.code).annotations({ description: "Stable machine-readable code." }),
      message: Schema.String.annotations({ description: "Human-readable explanation." }),
      requestId: Schema.String.annotations({ description: "Same value as the X-Request-Id response header." }),
      details: Schema.optional(Schema.Array(ErrorDetail))
    })
  }).annotations({ identifier: `${tag}Error`, description: info.description })
  const schema = Schema.transform(encoded, Schema.typeSchema(cls), {
    strict: true,
    // A typed client's error keeps what the envelope says besides the message.
    decode: ({ error }) =>
      Object.assign(new cls({ message: error.message }), {
        code: error.code,
        requestId: error.requestId,
        ...(error.details === undefined ? {} : { details: error.details })
      }),
    encode: (error) => ({ error: { code: info.code, message: error.message, requestId: "" } })
  }).annotations(HttpApiSchema.annotations({ status: info.status, description: info.description }))
  envelopes.set(cls, schema)
  return schema as never
}

export class InvalidAddress extends Schema.TaggedError<InvalidAddress>()(
  "InvalidAddress",
  fields,
  apiError("invalid_address", 400, "The address is not base58 that decodes to 32 bytes.")
) {}

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  fields,
  apiError("invalid_request", 400, "The request does not match the schema; `details` names each field and problem.")
) {}

export class MalformedJson extends Schema.TaggedError<MalformedJson>()(
  "MalformedJson",
  fields,
  apiError("malformed_json", 400, "The body is not valid JSON.")
) {}

export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  fields,
  apiError("not_found", 404, "No route at this path.")
) {}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()(
  "MethodNotAllowed",
  fields,
  apiError(
    "method_not_allowed",
    405,
    "The path exists but not with this method; the Allow header lists the methods it takes."
  )
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  fields,
  apiError("payload_too_large", 413, "The body is larger than the limit (MAX_BODY_BYTES).")
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  fields,
  apiError("unsupported_media_type", 415, "The body is not sent as application/json.")
) {}

export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  fields,
  apiError(
    "internal_error",
    500,
    "An unexpected failure; nothing internal is disclosed. Quote the requestId to support."
  )
) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  fields,
  apiError("service_unavailable", 503, "The database is unreachable; retry after the Retry-After seconds.")
) {}

/** A webhook endpoint of the calling account: Webhooks' routes, and Watches' `notify` naming one. */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()(
  "WebhookNotFound",
  fields,
  apiError("webhook_not_found", 404, "No webhook endpoint with this id belongs to the calling account.")
) {}

/** Never read by anyone: the client closed the connection first (nginx's 499), for the request's record. */
export class ClientClosedRequest extends Schema.TaggedError<ClientClosedRequest>()(
  "ClientClosedRequest",
  fields,
  apiError("client_closed_request", 499, "The client closed the connection before the answer was ready.")
) {}

/** The 503 of a request not answered by REQUEST_TIMEOUT_MS, the same wherever the deadline is kept. */
export const requestTimedOut = (milliseconds: number): ServiceUnavailable =>
  new ServiceUnavailable({ message: `The request took longer than ${milliseconds} ms; retry shortly.` })

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
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>
) =>
  endpoint
    .addError(envelope(InvalidRequest))
    .addError(envelope(MalformedJson))
    .addError(envelope(PayloadTooLarge))
    .addError(envelope(UnsupportedMediaType))
