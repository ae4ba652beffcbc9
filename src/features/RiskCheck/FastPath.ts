import { Cause, Exit, Option } from "effect"
import { type Address, isSolanaAddress } from "../../domain/Address.ts"
import { PUBLIC_CORS_HEADERS } from "../../platform/Request/Cors.ts"
import { envelopeBodyOf, type Failure, failureOf, requestTimedOut, ServiceUnavailable } from "../../domain/Errors.ts"
import { isJsonMediaType, requestIdFrom } from "../../platform/Request/Request.ts"
import { rateLimitHeadersOf } from "../Accounts/RateLimitHeaders.ts"
import {
  admitPublic,
  type Peer,
  type PublicCaller,
  type PublicTraffic,
  publicRateLimited,
  publicStandingOf
} from "../Accounts/PublicTraffic.ts"
import { bound, boundRequests, refusals, scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import type { RequestRecord } from "../../platform/Observability/RequestLog.ts"
import type { LatestScans } from "../Scans/LatestScanCache.ts"
import type { StoredScan } from "../Scans/ScansRepo.ts"
import { lifecycle, requestInFlight } from "../System/Lifecycle.ts"
import { batchAddressesOf, batchAnswer, checkAnswer, MAX_BATCH, type WireAnswer } from "./Answer.ts"

// The risk-check hot path, served straight from Bun: GET /api/risk-check/{address} for any valid address
// (from memory, or read through the cache) and POST /api/risk-check/batch with a well-formed body whose
// mints memory holds. It calls what the HttpApi path calls (the cache's lookup, admitPublic, the answer
// functions, the envelope body) and hands everything else to HttpApi (a bad address, a body that is not
// exactly the contract's, a batch with a mint not in memory, a key to look up, a database that cannot
// answer), so validation, errors and /openapi.json stay HttpApi's alone.
// test/features/RiskCheck/fastRiskCheck.test.ts holds both paths to the same status, headers and body.

export interface FastPathSettings {
  readonly scans: LatestScans
  readonly traffic: PublicTraffic
  readonly maxBodyBytes: number
  /** REQUEST_TIMEOUT_MS: a read through the cache that has not answered by then is a 503. */
  readonly requestTimeoutMs: number
  /** Writes a request's log line; undefined when LOG_LEVEL leaves request lines out. */
  readonly log: ((record: RequestRecord) => void) | undefined
}

/** Answers from memory, or hands the request (or a replay of its body) to the HttpApi handler. */
export type FastPath = (
  request: Request,
  peer: Peer,
  delegate: (request: Request) => Promise<Response>
) => Response | Promise<Response> | undefined

const CHECK_PREFIX = "/api/risk-check/"
const CHECK_ROUTE = "/api/risk-check/:address"
const BATCH_PATH = "/api/risk-check/batch"

// Metrics with their label sets bound once (Observability/Metrics.ts): the same series as countRequest.
const countCheck = boundRequests("GET", CHECK_ROUTE)
const countBatch = boundRequests("POST", BATCH_PATH)
const cacheHits = bound(scanCacheEvents, { result: "hit" })
const refusalCounts: Readonly<Record<string, ReturnType<typeof bound>>> = {
  rate_limited: bound(refusals, { reason: "rate_limited" }),
  quota_exceeded: bound(refusals, { reason: "quota_exceeded" })
}

// The headers every admitted answer of one Cache-Control carries, built once; each answer copies them and
// adds its own (rate-limit standing, request id).
const answerHeaders = new Map<string, Headers>()
const answerHeadersOf = (cacheControl: string): Headers => {
  let headers = answerHeaders.get(cacheControl)
  if (headers === undefined) {
    answerHeaders.set(
      cacheControl,
      (headers = new Headers({
        "content-type": "application/json",
        "cache-control": cacheControl,
        ...PUBLIC_CORS_HEADERS
      }))
    )
  }
  return headers
}

const pathOf = (url: string): string => {
  const start = url.indexOf("/", url.indexOf("//") + 2)
  if (start === -1) return "/"
  const query = url.indexOf("?", start)
  return query === -1 ? url.slice(start) : url.slice(start, query)
}

/** The contract's batch body and nothing else (anything unusual goes to HttpApi for its exact error). */
const batchAddressesIn = (body: unknown): ReadonlyArray<string> | undefined => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== "addresses") return undefined
  const addresses = (body as { readonly addresses: unknown }).addresses
  if (!Array.isArray(addresses) || addresses.length === 0 || addresses.length > MAX_BATCH) return undefined
  for (const address of addresses) {
    if (typeof address !== "string" || address.length > 128) return undefined
  }
  return addresses as ReadonlyArray<string>
}

export const makeFastPath = (settings: FastPathSettings): FastPath => {
  const { log, scans, traffic } = settings

  // The caller and its admission, as PublicAccess admits it; undefined when its X-Api-Key must first be
  // looked up in the database, which HttpApi does.
  const admit = (request: Request, peer: Peer): PublicCaller | undefined => {
    const apiKey = request.headers.get("x-api-key")
    const account = apiKey === null ? Option.none() : traffic.cachedAccountOf(apiKey)
    if (account === undefined) return undefined
    return admitPublic(traffic, account, request.headers.get("x-forwarded-for") ?? undefined, peer)
  }

  const respond = (
    request: Request,
    path: string,
    route: string,
    started: number,
    caller: PublicCaller,
    answer: () => WireAnswer,
    failed?: Failure
  ): Response => {
    const requestId = requestIdFrom(request.headers.get("x-request-id") ?? undefined)
    const refusal = caller.decision.admitted ? failed : Option.getOrThrow(failureOf(publicRateLimited(caller.decision)))
    const wire =
      refusal === undefined
        ? answer()
        : { body: JSON.stringify(envelopeBodyOf(refusal, requestId)), cacheControl: "no-store" }
    const standing = publicStandingOf(caller.decision)
    let headers: Headers | Record<string, string>
    if (refusal === undefined) {
      headers = new Headers(answerHeadersOf(wire.cacheControl))
      if (standing !== undefined) {
        const rate = rateLimitHeadersOf(standing)
        for (const name in rate) headers.set(name, rate[name]!)
      }
      headers.set("x-request-id", requestId)
      if (lifecycle.draining) headers.set("connection", "close")
    } else {
      headers = {
        "content-type": "application/json",
        "cache-control": wire.cacheControl,
        ...(standing === undefined ? {} : rateLimitHeadersOf(standing)),
        ...refusal.headers,
        ...PUBLIC_CORS_HEADERS,
        "x-request-id": requestId
      }
      if (lifecycle.draining) headers.connection = "close"
    }
    const status = refusal?.status ?? 200
    const seconds = (performance.now() - started) / 1000
    ;(route === CHECK_ROUTE ? countCheck : countBatch)(status, seconds)
    if (refusal !== undefined) refusalCounts[refusal.code]?.inc()
    if (log !== undefined) {
      log({
        method: request.method,
        path,
        route,
        status,
        seconds,
        requestId,
        accountId: caller.accountId,
        errorCode: refusal?.code
      })
    }
    return new Response(wire.body, { status, headers })
  }

  const check = (
    request: Request,
    path: string,
    started: number,
    peer: Peer,
    delegate: (request: Request) => Promise<Response>
  ): Response | Promise<Response> | undefined => {
    // Only addresses that passed validation are ever cached, so a hit needs no base58 decode.
    const address = path.slice(CHECK_PREFIX.length)
    const held = scans.peek(address)
    if (held === undefined && !isSolanaAddress(address)) return undefined
    const caller = admit(request, peer)
    if (caller === undefined) return undefined
    if (held !== undefined) {
      return respond(request, path, CHECK_ROUTE, started, caller, () => {
        cacheHits.inc()
        return checkAnswer(address, held, started)
      })
    }
    // Not in memory: a refused caller is answered without a read; otherwise the cache's own lookup reads
    // through. A database that cannot answer is the same 503 envelope HttpApi gives (not a second wait
    // there); anything else unexpected goes to HttpApi (admitted there again, so given back here).
    if (!caller.decision.admitted)
      return respond(request, path, CHECK_ROUTE, started, caller, () => checkAnswer(address, null, started))
    return withinDeadline(scans.load(address as Address), settings.requestTimeoutMs).then((loaded) => {
      if (Exit.isSuccess(loaded))
        return respond(request, path, CHECK_ROUTE, started, caller, () => checkAnswer(address, loaded.value, started))
      const unavailable = Option.flatMap(Cause.failureOption(loaded.cause), failureOf)
      if (Option.isSome(unavailable)) {
        return respond(
          request,
          path,
          CHECK_ROUTE,
          started,
          caller,
          () => checkAnswer(address, null, started),
          unavailable.value
        )
      }
      traffic.release(caller.client, caller.accountId)
      return delegate(request)
    })
  }

  const batch = async (
    request: Request,
    path: string,
    started: number,
    peer: Peer,
    delegate: (request: Request) => Promise<Response>
  ): Promise<Response> => {
    const contentType = request.headers.get("content-type")
    const declared = request.headers.get("content-length")
    if (
      contentType === null ||
      !isJsonMediaType(contentType) ||
      declared === null ||
      !(Number(declared) <= settings.maxBodyBytes) ||
      request.headers.has("transfer-encoding")
    )
      return delegate(request)
    const text = await request.text()
    const replay = () =>
      delegate(new Request(request.url, { method: request.method, headers: request.headers, body: text }))
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return replay()
    }
    const addresses = batchAddressesIn(parsed)
    if (addresses === undefined) return replay()
    const distinct = batchAddressesOf(addresses)
    const held = new Map<string, StoredScan | null>()
    for (const address of distinct) {
      const scan = scans.peek(address) // a hit is a valid address: only those are cached
      if (scan !== undefined) held.set(address, scan)
      else if (isSolanaAddress(address)) return replay()
    }
    const caller = admit(request, peer)
    if (caller === undefined) return replay()
    return respond(request, path, BATCH_PATH, started, caller, () => {
      cacheHits.inc(held.size)
      return batchAnswer(distinct, (address) => held.get(address), started)
    })
  }

  return (request, peer, delegate) => {
    const path = pathOf(request.url)
    if (!path.startsWith(CHECK_PREFIX)) return undefined
    const started = performance.now()
    if (request.method === "GET") return inFlightWhileAsync(check(request, path, started, peer, delegate))
    if (request.method === "POST" && path === BATCH_PATH)
      return inFlightWhileAsync(batch(request, path, started, peer, delegate))
    return undefined
  }
}

// The read keeps going for the requests that share it; this one stops waiting at the deadline.
const withinDeadline = <A>(read: Promise<Exit.Exit<A, ServiceUnavailable>>, milliseconds: number) =>
  new Promise<Exit.Exit<A, ServiceUnavailable>>((resolve) => {
    const timer = setTimeout(() => resolve(Exit.fail(requestTimedOut(milliseconds))), milliseconds)
    void read.then((exit) => {
      clearTimeout(timer)
      resolve(exit)
    })
  })

// An answer that waits (a read, a body) is in flight like any HttpApi request: the shutdown drain waits
// for it and the gauge shows it. One given synchronously is done before anything else runs.
const inFlightWhileAsync = (answer: Response | Promise<Response> | undefined) => {
  if (!(answer instanceof Promise)) return answer
  return answer.finally(requestInFlight())
}
