import { Cause, Exit, Option } from "effect"
import { type Address, isSolanaAddress } from "../../domain/Address.ts"
import { PUBLIC_CORS_HEADERS } from "../../platform/Request/Cors.ts"
import { envelopeBodyOf, type Failure, failureOf, InternalError } from "../../domain/Errors.ts"
import { type Answered, type EdgeRequest, type FastPath, isJsonMediaType } from "../../platform/Request/Request.ts"
import { rateLimitHeadersOf } from "../Accounts/RateLimitHeaders.ts"
import {
  admitPublic,
  type PublicCaller,
  type PublicTraffic,
  publicRateLimited,
  publicStandingOf
} from "../Accounts/PublicTraffic.ts"
import { bound, scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import type { LatestScans } from "../Scans/LatestScanCache.ts"
import type { CheckedScan } from "../Scans/ScansRepo.ts"
import { checkAnswer, type WireAnswer } from "./Answer.ts"
import { keptBatchAnswer, makeKeptBatches } from "./KeptBatch.ts"

// The risk-check hot path, served straight from Bun: GET /api/risk-check/{address} for any valid address
// (from memory, or read through the cache) and POST /api/risk-check/batch with a well-formed body (the
// mints memory holds answered from it, the others read in one shared statement through the cache). It
// calls what the HttpApi path calls (the cache's lookups, admitPublic, the answer functions, the envelope
// body) and hands everything else to HttpApi (a bad address on GET, a body that is not exactly the
// contract's, a key to look up), so validation, errors and /openapi.json stay HttpApi's alone. The edge
// (Http/Edge.ts) keeps its deadline, its draining header, its metrics and its log line.
// test/features/RiskCheck/fastRiskCheck.test.ts holds both paths to the same status, headers and body.

export interface FastPathSettings {
  readonly scans: LatestScans
  readonly traffic: PublicTraffic
  readonly maxBodyBytes: number
  /** Writes an error line: a read through the cache that failed with a defect. */
  readonly logError: (fields: Record<string, unknown>) => void
}

const CHECK_PREFIX = "/api/risk-check/"
const CHECK_ROUTE = "/api/risk-check/:address"
const BATCH_PATH = "/api/risk-check/batch"

const cacheHits = bound(scanCacheEvents, { result: "hit" })

const internal = Option.getOrThrow(
  failureOf(new InternalError({ message: "An unexpected error occurred; quote the requestId to support." }))
)

// The headers every admitted answer of one Cache-Control carries, built once; each answer's Response copies
// them and adds its own (rate-limit standing, request id).
const answerHeaders = new Map<string, Headers>()
const answerHeadersOf = (cacheControl: string): Headers => {
  let headers = answerHeaders.get(cacheControl)
  if (headers === undefined) {
    headers = new Headers({
      "content-type": "application/json",
      "cache-control": cacheControl,
      ...PUBLIC_CORS_HEADERS
    })
    answerHeaders.set(cacheControl, headers)
  }
  return headers
}

export const makeFastPath = (settings: FastPathSettings): FastPath => {
  const { scans, traffic } = settings
  const batches = makeKeptBatches()

  // The caller and its admission, as PublicAccess admits it; undefined when its X-Api-Key must first be
  // looked up in the database, which HttpApi does.
  const admit = ({ peer, request }: EdgeRequest): PublicCaller | undefined => {
    const apiKey = request.headers.get("x-api-key")
    const account = apiKey === null ? Option.none() : traffic.cachedAccountOf(apiKey)
    if (account === undefined) return undefined
    return admitPublic(traffic, account, request.headers.get("x-forwarded-for") ?? undefined, peer)
  }

  const respond = (
    edge: EdgeRequest,
    route: string,
    caller: PublicCaller,
    answer: () => WireAnswer,
    failed?: Failure
  ): Answered => {
    const requestId = edge.requestId
    const refusal = caller.decision.admitted ? failed : Option.getOrThrow(failureOf(publicRateLimited(caller.decision)))
    const wire =
      refusal === undefined
        ? answer()
        : { body: JSON.stringify(envelopeBodyOf(refusal, requestId)), cacheControl: "no-store" }
    const standing = publicStandingOf(caller.decision)
    let response: Response
    if (refusal === undefined) {
      // The Response copies the shared headers once; its own copy then gets this answer's.
      response = new Response(wire.body, { status: 200, headers: answerHeadersOf(wire.cacheControl) })
      const headers = response.headers
      if (standing !== undefined) {
        const rate = rateLimitHeadersOf(standing)
        for (const name in rate) headers.set(name, rate[name]!)
      }
      headers.set("x-request-id", requestId)
    } else {
      response = new Response(wire.body, {
        status: refusal.status,
        headers: {
          "content-type": "application/json",
          "cache-control": wire.cacheControl,
          ...(standing === undefined ? {} : rateLimitHeadersOf(standing)),
          ...refusal.headers,
          ...PUBLIC_CORS_HEADERS,
          "x-request-id": requestId
        }
      })
    }
    return { response, route, accountId: caller.accountId, errorCode: refusal?.code }
  }

  // A read through the cache that failed: the database that cannot answer is the 503 envelope HttpApi
  // gives; anything else is a defect, logged with the request id and answered the 500 envelope.
  const failed = (edge: EdgeRequest, route: string, caller: PublicCaller, cause: Cause.Cause<unknown>): Answered => {
    const failure = Option.getOrUndefined(Option.flatMap(Cause.failureOption(cause), failureOf))
    if (failure === undefined) settings.logError({ requestId: edge.requestId, error: Cause.pretty(cause) })
    return respond(edge, route, caller, () => ({ body: "", cacheControl: "no-store" }), failure ?? internal)
  }

  const check = (edge: EdgeRequest): Answered | Promise<Answered> | undefined => {
    const { path, started } = edge
    // Only addresses that passed validation are ever cached, so a hit needs no base58 decode.
    const address = path.slice(CHECK_PREFIX.length)
    const held = scans.peek(address)
    if (held === undefined && !isSolanaAddress(address)) return undefined
    const caller = admit(edge)
    if (caller === undefined) return undefined
    if (held !== undefined) {
      return respond(edge, CHECK_ROUTE, caller, () => {
        cacheHits.inc()
        return checkAnswer(address, held, started)
      })
    }
    // Not in memory: a refused caller is answered without a read; otherwise the cache's own lookup reads
    // through (the edge's deadline bounds the wait; the read goes on for the requests that share it). A
    // database that cannot answer is the same 503 envelope HttpApi gives; a defect is the 500 envelope,
    // answered here: the caller was admitted once, and handing on would admit it again.
    if (!caller.decision.admitted) return respond(edge, CHECK_ROUTE, caller, () => checkAnswer(address, null, started))
    // Read as a batch's cold mints are (loadMany): a mint memory will not keep yet (its first read) comes back
    // as its stored verdict alone, a few hundred bytes, not the whole scan, whose parse is a miss-heavy load's
    // garbage; from its second read on, whole and kept.
    return scans
      .loadMany([address as Address])
      .then((loaded) =>
        Exit.isSuccess(loaded)
          ? respond(edge, CHECK_ROUTE, caller, () => checkAnswer(address, loaded.value.get(address) ?? null, started))
          : failed(edge, CHECK_ROUTE, caller, loaded.cause)
      )
  }

  const batch = async (edge: EdgeRequest): Promise<Answered> => {
    const { delegate, request, started } = edge
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
    const kept = batches.of(text)
    if (kept === undefined) return replay()
    const { distinct } = kept
    // Each distinct address's scan (null: never scanned; undefined: not an address), as HttpApi's handler
    // finds them: from memory, the others read below.
    const found = new Array<CheckedScan | null | undefined>(distinct.length)
    const missing: Array<Address> = []
    const missingAt: Array<number> = []
    let hits = 0
    for (let i = 0; i < distinct.length; i++) {
      const address = distinct[i]!
      const scan = scans.peek(address) // a hit is a valid address: only those are cached
      if (scan !== undefined) {
        found[i] = scan
        hits++
      } else if (isSolanaAddress(address)) {
        missing.push(address as Address)
        missingAt.push(i)
      }
    }
    const caller = admit(edge)
    if (caller === undefined) return replay()
    const answer = () => {
      if (hits > 0) cacheHits.inc(hits)
      return keptBatchAnswer(kept, found, started)
    }
    // The mints memory does not hold: read by the cache's shared batch read (one statement for all of them,
    // joined with the reads in flight; a never-scanned mint is remembered as such), as HttpApi's handler
    // reads them; a refused caller is answered without a read. A failure is answered as for one mint (check).
    if (missing.length === 0 || !caller.decision.admitted) return respond(edge, BATCH_PATH, caller, answer)
    const loaded = await scans.loadMany(missing)
    if (Exit.isSuccess(loaded)) {
      for (let j = 0; j < missing.length; j++) found[missingAt[j]!] = loaded.value.get(missing[j]!) ?? null
      return respond(edge, BATCH_PATH, caller, answer)
    }
    return failed(edge, BATCH_PATH, caller, loaded.cause)
  }

  return {
    name: "public risk check",
    serve: (edge) => {
      const { path, request } = edge
      if (!path.startsWith(CHECK_PREFIX)) return undefined
      if (request.method === "GET") return check(edge)
      if (request.method === "POST" && path === BATCH_PATH) return batch(edge)
      return undefined
    }
  }
}
