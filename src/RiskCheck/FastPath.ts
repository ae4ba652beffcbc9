import { Option } from "effect"
import { type Address, isSolanaAddress } from "../Domain/Address.ts"
import { batchAddressesOf, batchOf, cacheControlOf, MAX_BATCH, riskCheckOf } from "./Answer.ts"
import type { PublicTraffic } from "../Accounts/PublicTraffic.ts"
import type { StoredScan } from "../Scans/ScansRepo.ts"
import type { HotScans } from "../Scans/LatestScanCache.ts"
import { countRequest, type RequestRecord, standingHeadersOf } from "../Http/Middleware.ts"
import { clientAddressFrom, publicClientOf, publicRateLimited } from "../Accounts/AuthLive.ts"
import { lifecycle } from "../System/Lifecycle.ts"
import { inFlight, scanCacheEvents, scanLookups } from "../Observability/Metrics.ts"
import { requestIdFrom, type RequestContext } from "../Http/RequestContext.ts"

// The risk-check hot path, served straight from Bun: GET /api/risk-check/{address} for any valid address
// (from memory, or read through the cache) and POST /api/risk-check/batch with a well-formed body whose
// mints memory holds. It shares the cache, the verdict (riskCheckOf/batchOf), the rate limiter and the
// header logic with the HttpApi handlers, and hands everything else to them (a bad address, a body that
// is not exactly the contract's, a batch with a mint not in memory, a key to look up, a database that
// cannot answer), so validation, errors and /openapi.json stay HttpApi's alone.
// test/http/fastRiskCheck.test.ts holds both paths to the same status, headers and body.

export interface FastPathSettings {
  readonly hot: HotScans["Type"]
  readonly traffic: PublicTraffic["Type"]
  readonly trustProxy: boolean
  readonly maxBodyBytes: number
  /** Writes a request's log line; undefined when LOG_LEVEL leaves request lines out. */
  readonly log: ((record: RequestRecord, route: string) => void) | undefined
}

/** Answers from memory, or hands the request (or a replay of its body) to the HttpApi handler. */
export type FastPath = (
  request: Request,
  peer: string,
  delegate: (request: Request) => Promise<Response>
) => Response | Promise<Response> | undefined

const CHECK_PREFIX = "/api/risk-check/"
const CHECK_ROUTE = "/api/risk-check/:address"
const BATCH_PATH = "/api/risk-check/batch"

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
  const { hot, log, traffic, trustProxy } = settings

  // Who is calling and whether the minute window admits it: the same steps as PublicAccess in Auth.ts.
  // undefined: the X-Api-Key must be looked up in the database first, so HttpApi answers.
  const admit = (request: Request, peer: string) => {
    const apiKey = request.headers.get("x-api-key")
    const account = apiKey === null ? Option.none() : traffic.attributeNow(apiKey)
    if (account === undefined) return undefined
    const forwardedFor = trustProxy ? request.headers.get("x-forwarded-for") ?? undefined : undefined
    const client = publicClientOf(account, clientAddressFrom(forwardedFor, peer, trustProxy))
    const decision = traffic.admitNow(client)
    const context: Pick<RequestContext, "standing" | "retryAfterSeconds" | "refusal" | "accountId"> = {
      standing: decision.limit === 0
        ? undefined
        : { rate: { limit: decision.limit, remaining: decision.remaining, resetSeconds: decision.resetSeconds } },
      retryAfterSeconds: decision.admitted ? undefined : decision.resetSeconds,
      refusal: decision.admitted ? undefined : "rate_limited",
      accountId: Option.getOrUndefined(account)
    }
    return { decision, context, client }
  }

  const respond = (
    request: Request,
    path: string,
    route: string,
    started: number,
    caller: NonNullable<ReturnType<typeof admit>>,
    answer: () => { readonly body: unknown; readonly cacheControl: string }
  ): Response => {
    const requestId = requestIdFrom(request.headers.get("x-request-id") ?? undefined)
    let status = 200
    let body: unknown
    let cacheControl: string
    if (caller.decision.admitted) {
      const answered = answer()
      body = answered.body
      cacheControl = answered.cacheControl
    } else {
      status = 429
      body = { error: { code: "rate_limited", message: publicRateLimited(caller.decision).message, requestId } }
      cacheControl = "no-store"
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "cache-control": cacheControl,
      ...standingHeadersOf(caller.context),
      "x-request-id": requestId
    }
    if (lifecycle.draining) headers.connection = "close"
    const record: RequestRecord = {
      method: request.method,
      path,
      status,
      seconds: (performance.now() - started) / 1000,
      requestId,
      accountId: caller.context.accountId,
      refusal: caller.context.refusal
    }
    countRequest(record, route)
    log?.(record, route)
    return new Response(JSON.stringify(body), { status, headers })
  }

  const verdict = (address: string, scan: StoredScan | null, started: number) => {
    scanLookups.inc({ result: scan === null ? "miss" : "hit" })
    const result = riskCheckOf(address, scan ?? undefined, Date.now(), Math.round(performance.now() - started))
    return { body: result, cacheControl: cacheControlOf(result) }
  }

  const check = (
    request: Request,
    path: string,
    started: number,
    peer: string,
    delegate: (request: Request) => Promise<Response>
  ): Response | Promise<Response> | undefined => {
    // Only addresses that passed validation are ever cached, so a hit needs no base58 decode.
    const address = path.slice(CHECK_PREFIX.length)
    const scan = hot.peek(address)
    if (scan === undefined && !isSolanaAddress(address)) return undefined
    const caller = admit(request, peer)
    if (caller === undefined) return undefined
    if (scan !== undefined) {
      return respond(request, path, CHECK_ROUTE, started, caller, () => {
        scanCacheEvents.inc({ result: "hit" })
        return verdict(address, scan, started)
      })
    }
    // Not in memory: a refused caller is answered without a read; otherwise one read through the cache.
    // If the database cannot answer, the call goes to HttpApi (admitted there again, so given back here),
    // whose error envelope is the one the contract documents.
    if (!caller.decision.admitted) return respond(request, path, CHECK_ROUTE, started, caller, () => verdict(address, null, started))
    return hot.load(address as Address).then(
      (loaded) => respond(request, path, CHECK_ROUTE, started, caller, () => verdict(address, loaded, started)),
      () => {
        traffic.releaseNow(caller.client, caller.context.accountId)
        return delegate(request)
      }
    )
  }

  const batch = async (
    request: Request,
    path: string,
    started: number,
    peer: string,
    delegate: (request: Request) => Promise<Response>
  ): Promise<Response> => {
    const contentType = request.headers.get("content-type")
    const declared = request.headers.get("content-length")
    if (
      contentType === null || !contentType.toLowerCase().includes("application/json") ||
      declared === null || !(Number(declared) <= settings.maxBodyBytes) || request.headers.has("transfer-encoding")
    ) return delegate(request)
    const text = await request.text()
    const replay = () => delegate(new Request(request.url, { method: request.method, headers: request.headers, body: text }))
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return replay()
    }
    const addresses = batchAddressesIn(parsed)
    if (addresses === undefined) return replay()
    const distinct = batchAddressesOf(addresses)
    const scans = new Map<string, StoredScan | null>()
    for (const address of distinct) {
      const scan = hot.peek(address) // a hit is a valid address: only those are cached
      if (scan !== undefined) scans.set(address, scan)
      else if (isSolanaAddress(address)) return replay()
    }
    const caller = admit(request, peer)
    if (caller === undefined) return replay()
    return respond(request, path, BATCH_PATH, started, caller, () => {
      let found = 0
      for (const scan of scans.values()) if (scan !== null) found++
      scanCacheEvents.inc({ result: "hit" }, scans.size)
      scanLookups.inc({ result: "hit" }, found)
      scanLookups.inc({ result: "miss" }, scans.size - found)
      const answer = batchOf(distinct, (address) => scans.get(address), Date.now(), Math.round(performance.now() - started))
      return { body: answer, cacheControl: "no-store" }
    })
  }

  return (request, peer, delegate) => {
    const path = pathOf(request.url)
    if (!path.startsWith(CHECK_PREFIX)) return undefined
    const started = performance.now()
    if (request.method === "GET") return inFlightWhileAsync(check(request, path, started, peer, delegate))
    if (request.method === "POST" && path === BATCH_PATH) return inFlightWhileAsync(batch(request, path, started, peer, delegate))
    return undefined
  }
}

// An answer that waits (a read, a body) is in flight like any HttpApi request: the shutdown drain waits
// for it and the gauge shows it. One given synchronously is done before anything else runs.
const inFlightWhileAsync = (answer: Response | Promise<Response> | undefined) => {
  if (!(answer instanceof Promise)) return answer
  inFlight.inc()
  lifecycle.inFlight++
  return answer.finally(() => {
    inFlight.dec()
    lifecycle.inFlight--
  })
}
