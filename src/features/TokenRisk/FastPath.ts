import { Cause, type Effect, Exit, Option } from "effect"
import type { Accounts, Caller } from "../Accounts/Accounts.ts"
import { metaFor } from "../Accounts/Meta.ts"
import { chargeRead, isKnownRefused } from "../Accounts/Metered.ts"
import type { Quota, Standing } from "../Accounts/Quota.ts"
import { rateLimitHeadersOf } from "../Accounts/RateLimitHeaders.ts"
import { isSolanaAddress } from "../../domain/Address.ts"
import { corsHeadersOf } from "../../platform/Request/Cors.ts"
import { envelopeBodyOf, type Failure, failureOf, requestTimedOut } from "../../domain/Errors.ts"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { isJsonMediaType, requestIdFrom } from "../../platform/Request/Request.ts"
import { bound, boundRequests, scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import type { RequestRecord } from "../../platform/Observability/RequestLog.ts"
import type { LatestScans } from "../Scans/LatestScanCache.ts"
import { lifecycle, requestInFlight } from "../System/Lifecycle.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST, TOKEN_RISK_SCOPE } from "./Api.ts"
import { tokenRiskBodyOf } from "./Packet.ts"

// POST /api/v1/token/risk served straight from Bun when everything it needs is in memory: a key the key
// cache holds with the route's scope, a body that is exactly the contract's, a mint the scan cache holds.
// It charges with `metered`'s own protocol (Accounts/Metered.ts chargeRead: the charge and its reservation
// in one statement, confirmed once the answer is written, refunded if the deadline answered instead) and writes the
// bytes HttpApi writes (Packet.ts); a database that cannot answer the charge is HttpApi's 503. Everything
// else goes to HttpApi: an unknown key, a refusal (429), a mint never scanned, a body to diagnose, a bug.
// test/features/TokenRisk/fastTokenRisk.test.ts holds both paths to the same status, headers and body.

export interface TokenRiskFastPathSettings {
  readonly accounts: Accounts
  readonly quota: Quota
  readonly scans: LatestScans
  readonly maxBodyBytes: number
  /** REQUEST_TIMEOUT_MS: an answer not ready by then is the 503 envelope, and its charge is refunded. */
  readonly requestTimeoutMs: number
  readonly corsAllowedOrigins: ReadonlyArray<string>
  /** Runs the charge on the server's runtime (its logger). */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
  /** Writes a request's log line; undefined when LOG_LEVEL leaves request lines out. */
  readonly log: ((record: RequestRecord) => void) | undefined
}

/** Answers, or hands the request (or a replay of its body) to HttpApi; undefined: not this route's, or not from memory. */
export type TokenRiskFastPath = (
  request: Request,
  delegate: (request: Request) => Promise<Response>
) => Promise<Response> | undefined

const PATH = "/api/v1/token/risk"
const BEARER = "Bearer "
const countRisk = boundRequests("POST", PATH)
const cacheHits = bound(scanCacheEvents, { result: "hit" })

/** The contract's body and nothing else: `{"address": "<mint>"}`. */
const addressIn = (text: string): string | undefined => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== "address") return undefined
  const address = (body as { readonly address: unknown }).address
  return typeof address === "string" && isSolanaAddress(address) ? address : undefined
}

/** The envelope of a failure as HttpApi writes it (Http/Middleware.ts), or, late, as Http/Server.ts does (no CORS headers). */
const failedAnswer = (failure: Failure, requestId: string, cors: Record<string, string>): Response =>
  new Response(JSON.stringify(envelopeBodyOf(failure, requestId)), {
    status: failure.status,
    headers: {
      "content-type": "application/json",
      ...failure.headers,
      ...cors,
      "cache-control": "no-store",
      "x-request-id": requestId
    }
  })

const lateAnswer = (requestId: string, milliseconds: number): Response =>
  failedAnswer(Option.getOrThrow(failureOf(requestTimedOut(milliseconds))), requestId, {})

const isRoute = (url: string): boolean =>
  url.endsWith(PATH) && url.length - PATH.length === url.indexOf("/", url.indexOf("//") + 2)

export const makeTokenRiskFastPath = (settings: TokenRiskFastPathSettings): TokenRiskFastPath => {
  const { accounts, log, quota, scans } = settings

  // The answer HttpApi gives (its body from Packet.ts and Meta.ts metaFor, its headers from Metered.ts and Http/Middleware.ts).
  const answerOf = (request: Request, evidence: ScanEvidence, requestId: string, standing: Standing): Response => {
    const now = Date.now()
    const meta = metaFor(requestId, {
      scope: TOKEN_RISK_SCOPE,
      standing,
      cost: TOKEN_RISK_COST,
      now,
      contractVersion: TOKEN_CONTRACT_VERSION
    })
    const body = tokenRiskBodyOf(evidence, now, { ...meta, cacheMode: "latest_cached_scan" })
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...rateLimitHeadersOf(standing),
      ...corsHeadersOf(PATH, request.headers.get("origin") ?? undefined, settings.corsAllowedOrigins),
      "cache-control": "no-store",
      "x-request-id": requestId
    }
    if (lifecycle.draining) headers.connection = "close"
    return new Response(body, { status: 200, headers })
  }

  const serve = (
    request: Request,
    started: number,
    caller: Caller,
    delegate: (request: Request) => Promise<Response>
  ) =>
    new Promise<Response>((resolve, reject) => {
      const requestId = requestIdFrom(request.headers.get("x-request-id") ?? undefined)
      // Once answered (or handed on), nothing else answers; a charge made after the deadline is refunded.
      let done = false
      const finish = (response: Response | Promise<Response>) => {
        done = true
        clearTimeout(deadline)
        resolve(response)
      }
      const deadline = setTimeout(() => {
        done = true
        resolve(lateAnswer(requestId, settings.requestTimeoutMs))
        record(request, started, 503, requestId, caller.accountId, "service_unavailable")
      }, settings.requestTimeoutMs)
      const work = async () => {
        const text = await request.text()
        if (done) return
        // HttpApi answers anything unusual with its exact error: it gets the request again, body and all.
        const handOn = () =>
          finish(delegate(new Request(request.url, { method: request.method, headers: request.headers, body: text })))
        const address = addressIn(text)
        const scan = address === undefined ? undefined : scans.peek(address)
        if (scan === undefined || scan === null) return handOn()
        const charged = await settings.run(chargeRead(quota, caller, TOKEN_RISK_COST))
        if (done) {
          if (Exit.isSuccess(charged)) charged.value.settle(false)
          return
        }
        if (Exit.isFailure(charged)) {
          // A database that cannot answer is HttpApi's 503, given here: handing on would wait for it again.
          const unavailable = Option.flatMap(Cause.failureOption(charged.cause), failureOf)
          if (Option.isNone(unavailable)) return handOn()
          finish(
            failedAnswer(
              unavailable.value,
              requestId,
              corsHeadersOf(PATH, request.headers.get("origin") ?? undefined, settings.corsAllowedOrigins)
            )
          )
          record(request, started, unavailable.value.status, requestId, caller.accountId, unavailable.value.code)
          return
        }
        if (charged.value.outcome._tag === "Refused") return handOn()
        const charge = charged.value
        let response: Response
        try {
          response = answerOf(request, scan.evidence, requestId, charge.outcome.standing)
        } catch (error) {
          charge.settle(false)
          throw error
        }
        cacheHits.inc()
        finish(response)
        record(request, started, 200, requestId, caller.accountId, undefined)
        // The charge is confirmed once the answer is written (Bun writes it before the next turn of the loop).
        setImmediate(() => charge.settle(true))
      }
      work().catch((error: unknown) => {
        if (done) return
        done = true
        clearTimeout(deadline)
        reject(error)
      })
    })

  const record = (
    request: Request,
    started: number,
    status: number,
    requestId: string,
    accountId: string,
    errorCode: string | undefined
  ) => {
    const seconds = (performance.now() - started) / 1000
    countRisk(status, seconds)
    log?.({ method: request.method, path: PATH, route: PATH, status, seconds, requestId, accountId, errorCode })
  }

  return (request, delegate) => {
    if (request.method !== "POST" || !isRoute(request.url)) return undefined
    const contentType = request.headers.get("content-type")
    const declared = request.headers.get("content-length")
    const authorization = request.headers.get("authorization")
    if (
      contentType === null ||
      !isJsonMediaType(contentType) ||
      declared === null ||
      !(Number(declared) <= settings.maxBodyBytes) ||
      request.headers.has("transfer-encoding") ||
      authorization === null ||
      !authorization.startsWith(BEARER)
    )
      return undefined
    const caller = accounts.cachedCaller(authorization.slice(BEARER.length))
    if (caller === undefined || !caller.scopes.includes(TOKEN_RISK_SCOPE) || isKnownRefused(caller, TOKEN_RISK_COST))
      return undefined
    const done = requestInFlight()
    return serve(request, performance.now(), caller, delegate).finally(done)
  }
}
