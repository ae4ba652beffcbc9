import { EXPOSED_HEADERS } from "../../platform/Request/Cors.ts"

// The response headers the server sends, declared once under components.headers and referenced from each
// response, so generated clients can read them as typed values. Which response carries which header
// follows Http/Middleware.ts (request id, CORS), Accounts/RateLimitHeaders.ts and the handlers.

type Json = Record<string, unknown>

/** Which side of the API a path is on: it decides CORS, rate-limit and cache headers. */
export type RouteKind = "public" | "keyed" | "probe"

export const routeKindOf = (path: string): RouteKind =>
  path.startsWith("/api/v1/") ? "keyed" : path.startsWith("/api/risk-check/") ? "public" : "probe"

const INT32_MAX = 2_147_483_647
const count = (description: string, example: number): Json => ({
  description,
  schema: { type: "integer", format: "int32", minimum: 0, maximum: INT32_MAX },
  example
})

export const headerComponents: Json = {
  RequestId: {
    description:
      "The request id: the client's own X-Request-Id when it sent a valid one (letters, digits and `._:-`, up to 128 characters), otherwise generated.",
    schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", maxLength: 128 },
    example: "6f1c2a4e-3b7d-4e0a-9d52-1f8e7c6b5a40"
  },
  RateLimit: {
    description:
      "IETF RateLimit draft: requests left in the current minute (`r`) and seconds until it resets (`t`). Sent once the request reached the limiter.",
    schema: { type: "string", pattern: '^"minute";r=[0-9]+;t=[0-9]+$', maxLength: 64 },
    example: '"minute";r=29;t=41'
  },
  RateLimitPolicy: {
    description:
      "IETF RateLimit draft: the per-minute quota (`q`, window `w` seconds) and, on keyed routes, the monthly cost units.",
    schema: { type: "string", pattern: '^"minute";q=[0-9]+;w=60(, "month";q=[0-9]+)?$', maxLength: 96 },
    example: '"minute";q=30;w=60, "month";q=5000'
  },
  XRateLimitLimit: count("Requests allowed in the current minute. Sent once the request reached the limiter.", 30),
  XRateLimitRemaining: count("Requests left in the current minute.", 29),
  XRateLimitReset: count("Seconds until the current minute resets.", 41),
  XQuotaLimit: count(
    "Cost units the plan allows this calendar month (UTC). Keyed routes, once the key is authenticated.",
    5000
  ),
  XQuotaRemaining: count("Cost units left this month.", 4989),
  RetryAfter: count("Seconds to wait before retrying: until the limit that refused resets (429), or 5 (503).", 41),
  CacheControlPublic: {
    description:
      "`public, max-age=60, stale-while-revalidate=300` for a fresh verdict, `public, max-age=15` for a stale one, `no-cache` for cold and unknown; `no-store` on the batch, rescans and failures.",
    schema: {
      type: "string",
      enum: ["public, max-age=60, stale-while-revalidate=300", "public, max-age=15", "no-cache", "no-store"]
    },
    example: "public, max-age=60, stale-while-revalidate=300"
  },
  CacheControlNoStore: {
    description: "Keyed answers and failures are never stored by caches.",
    schema: { type: "string", enum: ["no-store"] },
    example: "no-store"
  },
  // Named after the header itself: the OWASP ruleset looks for this key in every `headers` map.
  "Access-Control-Allow-Origin": {
    description: "Any origin may read the answer (CORS).",
    schema: { type: "string", enum: ["*"] },
    example: "*"
  },
  AllowOriginConfigured: {
    description:
      "The request's Origin, sent only when it is one of CORS_ALLOWED_ORIGINS (none by default), with `Vary: Origin`.",
    schema: { type: "string", pattern: "^https?://[^/\\s]+$", maxLength: 2048 },
    example: "https://dashboard.example.org"
  },
  ExposeHeaders: {
    description: "The headers a browser script may read: the rate-limit headers, Retry-After and X-Request-Id.",
    schema: { type: "string", enum: [EXPOSED_HEADERS.join(", ")] },
    example: EXPOSED_HEADERS.join(", ")
  }
}

const ref = (name: string): Json => ({ $ref: `#/components/headers/${name}` })

const rateLimitHeaders = (kind: RouteKind): Json => ({
  RateLimit: ref("RateLimit"),
  "RateLimit-Policy": ref("RateLimitPolicy"),
  "X-RateLimit-Limit": ref("XRateLimitLimit"),
  "X-RateLimit-Remaining": ref("XRateLimitRemaining"),
  "X-RateLimit-Reset": ref("XRateLimitReset"),
  ...(kind === "keyed" ? { "X-Quota-Limit": ref("XQuotaLimit"), "X-Quota-Remaining": ref("XQuotaRemaining") } : {})
})

/** The headers of one response of an operation on a path of this kind. */
export const responseHeadersOf = (kind: RouteKind, status: string, isEnvelope: boolean): Json => {
  const limited = kind !== "probe" && /^[24]/.test(status)
  const cache =
    kind === "public"
      ? ref("CacheControlPublic")
      : kind === "keyed" || isEnvelope || status !== "200"
        ? ref("CacheControlNoStore")
        : undefined
  return {
    "X-Request-Id": ref("RequestId"),
    ...(limited ? rateLimitHeaders(kind) : {}),
    ...(status === "429" || status === "503" ? { "Retry-After": ref("RetryAfter") } : {}),
    ...(cache === undefined ? {} : { "Cache-Control": cache }),
    "Access-Control-Allow-Origin": kind === "keyed" ? ref("AllowOriginConfigured") : ref("Access-Control-Allow-Origin"),
    "Access-Control-Expose-Headers": ref("ExposeHeaders")
  }
}
