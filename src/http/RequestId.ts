import { FiberRef } from "effect"

// Set once per request by the API middleware; handlers read it for `meta.requestId`.
export const CurrentRequestId = FiberRef.unsafeMake("")

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/

/** The client's X-Request-Id when it is a safe token, otherwise a fresh one (never echo arbitrary bytes). */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && CLIENT_REQUEST_ID.test(header) ? header : crypto.randomUUID()
