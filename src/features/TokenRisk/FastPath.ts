import { Cause, type Effect, Exit, Option } from "effect"
import type { Accounts, Caller } from "../Accounts/Accounts.ts"
import { metaFor } from "../Accounts/Meta.ts"
import { chargeRead, isKnownRefused } from "../Accounts/Metered.ts"
import type { Quota, Standing } from "../Accounts/Quota.ts"
import { rateLimitHeadersOf } from "../Accounts/RateLimitHeaders.ts"
import { isSolanaAddress } from "../../domain/Address.ts"
import { corsHeadersOf } from "../../platform/Request/Cors.ts"
import { envelopeBodyOf, type Failure, failureOf } from "../../domain/Errors.ts"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { type Answered, type EdgeRequest, type FastPath, isJsonMediaType } from "../../platform/Request/Request.ts"
import { bound, scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import type { LatestScans } from "../Scans/LatestScanCache.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST, TOKEN_RISK_SCOPE } from "./Api.ts"
import { tokenRiskBodyOf } from "./Packet.ts"

// POST /api/v1/token/risk served straight from Bun when everything it needs is in memory: a key the key
// cache holds with the route's scope, a body that is exactly the contract's, a mint the scan cache holds.
// It charges with `metered`'s own protocol (Accounts/Metered.ts chargeRead: the charge and its reservation
// in one statement, confirmed once the answer is written, refunded if the edge's deadline answered instead) and writes the
// bytes HttpApi writes (Packet.ts); a database that cannot answer the charge is HttpApi's 503. Everything
// else goes to HttpApi: an unknown key, a refusal (429), a mint never scanned, a body to diagnose, a bug.
// test/features/TokenRisk/fastTokenRisk.test.ts holds both paths to the same status, headers and body.

export interface TokenRiskFastPathSettings {
  readonly accounts: Accounts
  readonly quota: Quota
  readonly scans: LatestScans
  readonly maxBodyBytes: number
  readonly corsAllowedOrigins: ReadonlyArray<string>
  /** Runs the charge on the server's runtime (its logger). */
  readonly run: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
}

const PATH = "/api/v1/token/risk"
const BEARER = "Bearer "
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

/** The envelope of a failure as HttpApi writes it (Http/Middleware.ts). */
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

const isRoute = (url: string): boolean =>
  url.endsWith(PATH) && url.length - PATH.length === url.indexOf("/", url.indexOf("//") + 2)

export const makeTokenRiskFastPath = (settings: TokenRiskFastPathSettings): FastPath => {
  const { accounts, quota, scans } = settings

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
    return new Response(body, { status: 200, headers })
  }

  // The edge (platform/Http/Edge.ts) keeps the deadline, the draining header, the metrics and the log line;
  // the charge settles through the edge's deferred work: confirmed once the answer is written, refunded if
  // the deadline answered first or the answer failed.
  const serve = async (edge: EdgeRequest, caller: Caller): Promise<Answered> => {
    const { delegate, request, requestId } = edge
    const text = await request.text()
    // HttpApi answers anything unusual with its exact error: it gets the request again, body and all.
    const handOn = () =>
      delegate(new Request(request.url, { method: request.method, headers: request.headers, body: text }))
    const address = addressIn(text)
    const scan = address === undefined ? undefined : scans.peek(address)
    if (scan === undefined || scan === null) return handOn()
    const charged = await settings.run(chargeRead(quota, caller, TOKEN_RISK_COST))
    if (Exit.isFailure(charged)) {
      // A database that cannot answer is HttpApi's 503, given here: handing on would wait for it again.
      const unavailable = Option.flatMap(Cause.failureOption(charged.cause), failureOf)
      if (Option.isNone(unavailable)) return handOn()
      const response = failedAnswer(
        unavailable.value,
        requestId,
        corsHeadersOf(PATH, request.headers.get("origin") ?? undefined, settings.corsAllowedOrigins)
      )
      return { response, route: PATH, accountId: caller.accountId, errorCode: unavailable.value.code }
    }
    if (charged.value.outcome._tag === "Refused") return handOn()
    const charge = charged.value
    edge.lifecycle.defer((answered) => charge.settle(answered))
    const response = answerOf(request, scan.evidence, requestId, charge.outcome.standing)
    cacheHits.inc()
    return { response, route: PATH, accountId: caller.accountId }
  }

  return {
    name: "keyed token risk",
    serve: (edge) => {
      const { request } = edge
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
      return serve(edge, caller)
    }
  }
}
