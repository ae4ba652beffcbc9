import type { HttpApiEndpoint } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Schema } from "effect"
import { apiError, envelope } from "../../domain/Errors.ts"

const fields = { message: Schema.String }

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  fields,
  apiError(
    "unauthorized",
    401,
    "No valid API key: missing, malformed, unknown, revoked or expired (all answer the same)."
  )
) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  fields,
  apiError("forbidden", 403, "The key is valid but lacks the scope this route needs; the message names it.")
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  fields,
  apiError("rate_limited", 429, "Over the plan's requests per minute; Retry-After says when the window resets.")
) {}

export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()(
  "QuotaExceeded",
  fields,
  apiError(
    "quota_exceeded",
    429,
    "The plan's monthly cost units are used up; Retry-After says when the month resets (UTC)."
  )
) {}

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
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>
) => endpoint.addError(envelope(RateLimited)).addError(envelope(QuotaExceeded))
