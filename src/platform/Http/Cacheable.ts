import { HttpServerResponse } from "@effect/platform"
import { createHash } from "node:crypto"

// /docs (a 3 MB page) and /openapi.json change only with a new build: they are sent with an ETag and
// may be cached for five minutes; a client that sends the ETag back in If-None-Match gets a 304 without the body.
const CACHEABLE = new Set(["/docs", "/openapi.json"])
const CACHE_CONTROL = "public, max-age=300"

const etags = new WeakMap<Uint8Array, string>()

const etagOf = (body: Uint8Array): string => {
  let etag = etags.get(body)
  if (etag === undefined) {
    etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
    etags.set(body, etag)
  }
  return etag
}

/** The response with its validators, or a 304 when the client already holds this version. */
export const withValidators = (
  method: string,
  path: string,
  ifNoneMatch: string | undefined,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (!CACHEABLE.has(path) || (method !== "GET" && method !== "HEAD") || response.status !== 200) return response
  if (response.body._tag !== "Uint8Array") return response
  const etag = etagOf(response.body.body)
  const headers = { etag, "cache-control": CACHE_CONTROL }
  const matches = ifNoneMatch?.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")
  return matches ? HttpServerResponse.empty({ status: 304, headers }) : HttpServerResponse.setHeaders(response, headers)
}
