// Cross-origin access (CORS). The public risk-check routes, the probes and /openapi.json may be read from
// any origin; the keyed /api/v1 routes only from the origins named in CORS_ALLOWED_ORIGINS (none by
// default); anything else sends no CORS header. Http/Middleware.ts and RiskCheck/FastPath.ts apply it.

/** The response headers a browser script may read: the rate-limit headers, Retry-After and the request id. */
export const EXPOSED_HEADERS = [
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Quota-Limit",
  "X-Quota-Remaining",
  "Retry-After",
  "X-Request-Id"
] as const

const EXPOSE = EXPOSED_HEADERS.join(", ")

/** What the public routes send on every answer, from the fast path or HttpApi. */
export const PUBLIC_CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSE
}

const PUBLIC_PATHS = new Set(["/health", "/ready", "/openapi.json"])

type Access = "any" | "configured" | "none"

const accessOf = (path: string): Access =>
  path.startsWith("/api/risk-check/") || PUBLIC_PATHS.has(path)
    ? "any"
    : path.startsWith("/api/v1/")
      ? "configured"
      : "none"

/** The CORS headers of an answer to a request from `origin` (the Origin header, if any). */
export const corsHeadersOf = (
  path: string,
  origin: string | undefined,
  allowedOrigins: ReadonlyArray<string>
): Record<string, string> => {
  const access = accessOf(path)
  if (access === "any") return { ...PUBLIC_CORS_HEADERS }
  if (access === "none" || allowedOrigins.length === 0) return {}
  // The answer depends on the Origin: a shared cache must keep one copy per origin.
  if (origin === undefined || !allowedOrigins.includes(origin)) return { vary: "Origin" }
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSE, vary: "Origin" }
}

const PUBLIC_REQUEST_HEADERS = "Content-Type, X-Api-Key, X-Request-Id"
const KEYED_REQUEST_HEADERS = "Authorization, Content-Type, X-Request-Id"

/**
 * The headers of the 204 answering a preflight (OPTIONS) on a path that exists: what it allows when the
 * origin may call it, else only `Allow` (the browser then refuses the call).
 */
export const preflightHeadersOf = (
  path: string,
  origin: string | undefined,
  allowedOrigins: ReadonlyArray<string>,
  methods: ReadonlyArray<string>
): Record<string, string> => {
  const allow = [...methods, "OPTIONS"].join(", ")
  const cors = corsHeadersOf(path, origin, allowedOrigins)
  if (cors["access-control-allow-origin"] === undefined) return { allow, ...cors }
  return {
    allow,
    ...cors,
    "access-control-allow-methods": allow,
    "access-control-allow-headers": accessOf(path) === "any" ? PUBLIC_REQUEST_HEADERS : KEYED_REQUEST_HEADERS,
    "access-control-max-age": "600"
  }
}
