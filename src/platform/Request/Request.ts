import { Context, FiberRef } from "effect"

// What is known of the request being handled, as fiber-local values: its id (set once by the HTTP
// middleware for the whole request) and the account it was authenticated as (set by the auth middleware,
// read back for the request's log line).

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The client's X-Request-Id when it is a safe token, otherwise a fresh one (never echo arbitrary bytes). */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && CLIENT_REQUEST_ID.test(header) ? header : crypto.randomUUID()

export const CurrentRequestId = FiberRef.unsafeMake("")

export const CurrentAccountId = FiberRef.unsafeMake<string | undefined>(undefined)

export const currentRequestId = FiberRef.get(CurrentRequestId)

/** The peer address of the connection, provided per request by the Bun server (Http/Server.ts). */
export class ClientAddress extends Context.Tag("ClientAddress")<ClientAddress, string>() {}

/**
 * The request as the Bun server sees it (Http/Edge.ts provides it per request):
 * - `commitBeforeDeadline()`: called by a transaction just before its COMMIT. `false`: the deadline has
 *   passed and the client was answered 503, so the work rolls back instead. `true`: the deadline will
 *   not answer any more; the request's own answer (its COMMIT's outcome) goes out, however late. Work
 *   is not interrupted at the deadline (an interrupted database call can hold its connection and its
 *   locks for seconds), and a COMMIT in flight when the deadline passes must not be answered 503.
 * - `defer(settle)`: `settle` runs once, after the handler's answer went out (`true`), or when it never
 *   will (`false`: the deadline answered instead, or the handler failed). A keyed read's charge commits
 *   there, so a process killed before its answer was written has charged nothing.
 */
export class RequestLifecycle extends Context.Tag("RequestLifecycle")<
  RequestLifecycle,
  {
    /** The request's id, the one its answer and its log line carry, whichever path answers. */
    readonly requestId: string
    readonly commitBeforeDeadline: () => boolean
    readonly defer: (settle: (answered: boolean) => void) => void
    /**
     * HttpApi's middleware reports what the request's record says beyond its status (the account, a
     * failure's code); the server records the request once, when its answer goes out (Http/Edge.ts).
     */
    readonly report: (accountId: string | undefined, errorCode: string | undefined) => void
  }
>() {}

/** The exact media type the API takes: `application/json`, with at most a UTF-8 charset parameter. */
export const isJsonMediaType = (contentType: string): boolean => {
  if (contentType === "application/json") return true // what nearly every client sends: no split
  const [type, ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase())
  return (
    type === "application/json" &&
    parameters.every((parameter) => parameter === "charset=utf-8" || parameter === 'charset="utf-8"')
  )
}

/** Deepest nesting of arrays and objects in a JSON text (strings skipped), counted without parsing it. */
export const jsonDepthOf = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 92)
        i++ // backslash: skip the escaped character
      else if (char === 34) inString = false
    } else if (char === 34) inString = true
    else if (char === 91 || char === 123) deepest = Math.max(deepest, ++depth)
    else if (char === 93 || char === 125) depth--
  }
  return deepest
}

// What a fast path and the server's edge (Http/Edge.ts) exchange: a feature's fast path is given the
// request as an EdgeRequest and answers with an Answered, or leaves it to HttpApi.

/** An answer, and what the request's record says beyond its status. */
export interface Answered {
  readonly response: Response
  /** The route template, when the answerer knows it; otherwise looked up from the path. */
  readonly route?: string | undefined
  readonly accountId?: string | undefined
  /** The envelope code of a failure (the refusals metric counts rate_limited and quota_exceeded). */
  readonly errorCode?: string | undefined
}

/** One request as a fast path sees it. */
export interface EdgeRequest {
  readonly request: Request
  readonly path: string
  /** The peer address, or how to look it up (only when a limit needs it). */
  readonly peer: string | (() => string)
  /** performance.now() when the request arrived: a fast path stamps its answer's timing with it. */
  readonly started: number
  readonly requestId: string
  /** The request's deadline, as HttpApi's handlers see it (Domain/Request.ts). */
  readonly lifecycle: typeof RequestLifecycle.Service
  /** HttpApi's answer to the request (or to a replay of its body), under the same deadline. */
  readonly delegate: (request: Request) => Promise<Answered>
}

/**
 * A route answered straight from Bun when what it needs is in memory: an answer, or undefined to leave
 * the request to the next fast path and finally HttpApi.
 */
export interface FastPath {
  readonly name: string
  readonly serve: (request: EdgeRequest) => Answered | Promise<Answered> | undefined
}
