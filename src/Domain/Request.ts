import { Context, FiberRef } from "effect"

// What is known of the request being handled, as fiber-local values: its id (set once by the HTTP
// middleware for the whole request) and the account it was authenticated as (set by the auth middleware,
// read back for the request's log line).

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/

/** The client's X-Request-Id when it is a safe token, otherwise a fresh one (never echo arbitrary bytes). */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && CLIENT_REQUEST_ID.test(header) ? header : crypto.randomUUID()

export const CurrentRequestId = FiberRef.unsafeMake("")

export const CurrentAccountId = FiberRef.unsafeMake<string | undefined>(undefined)

export const currentRequestId = FiberRef.get(CurrentRequestId)

/** The peer address of the connection, provided per request by the Bun server (Http/Server.ts). */
export class ClientAddress extends Context.Tag("ClientAddress")<ClientAddress, string>() {}
