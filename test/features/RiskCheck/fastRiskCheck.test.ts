import { describe, expect, test } from "bun:test"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { PublicTraffic } from "../../../src/features/Accounts/PublicTraffic.ts"
import { type CheckedScan, ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { ConfigProvider, Context, Effect, Exit, Logger, LogLevel, Scope } from "effect"
import type { AppServices } from "../../../src/platform/Http/App.ts"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { makeFastPath } from "../../../src/features/RiskCheck/FastPath.ts"
import { Lifecycle } from "../../../src/features/System/Lifecycle.ts"
import { type ApiHandler, type FastPath, makeEdge, type ServerFetch } from "../../../src/platform/Http/Edge.ts"
import { LatestScanCache, type LatestScans } from "../../../src/features/Scans/LatestScanCache.ts"
import type { Address } from "../../../src/domain/Address.ts"
import { ServiceUnavailable } from "../../../src/domain/Errors.ts"
import type { ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { sqlServices } from "../../support/layers.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// The risk-check fast path (served from memory straight from Bun) must be indistinguishable from the
// HttpApi handlers it fronts: same status, headers and body for every kind of answer, and whatever it
// does not handle must reach HttpApi untouched. Each case asks HttpApi first (which also warms the
// cache both paths share), then the server's fetch with the fast path on.

const PER_MINUTE = 5 // small, so the 429 case is reachable; every case uses its own client address
const { run, runtime } = runtimeFor(
  sqlServices({ perMinute: PER_MINUTE, cache: { size: 1_000, ttlSeconds: 60, notifications: false } })
)
const services: Context.Context<AppServices> = (await runtime.runtime()).context
const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const scope = Effect.runSync(Scope.make())
const served = await Effect.runPromise(Scope.extend(makeServerFetch(services, quiet), scope))
const viaHttpApi = await Effect.runPromise(Scope.extend(makeServerFetch(services, quiet, { fastPath: false }), scope))
const cache = Context.get(services, LatestScanCache)
const lifecycle = Context.get(services, Lifecycle)
const errors: Array<Record<string, unknown>> = []
// The edge with one fast path in front of a stand-in for HttpApi: `never` (the fast path must answer by
// itself: a hand-on is the edge's 500), or `handOn` (a 299 tells the request was handed on).
const never: ApiHandler = () => Promise.reject(new Error("the fast path handed this request on"))
const handOn: ApiHandler = async () => new Response(null, { status: 299 })
const edgeWith = (fast: FastPath, handler: ApiHandler = never, requestTimeoutMs = 2_000) =>
  makeEdge({
    handler,
    settings: { maxBodyBytes: 65_536, requestTimeoutMs, corsAllowedOrigins: [] },
    lifecycle,
    fastPaths: [fast],
    log: undefined,
    logError: (fields) => void errors.push(fields)
  })
const fastPath = (scans = cache) =>
  makeFastPath({
    scans,
    traffic: Context.get(services, PublicTraffic),
    maxBodyBytes: 65_536,
    logError: (fields) => void errors.push(fields)
  })
const fastOnly = edgeWith(fastPath())
const fastOrHandedOn = edgeWith(fastPath(), handOn)

let clients = 0
const newClient = () => `10.0.${Math.floor(++clients / 250)}.${clients % 250}`

const stored = async (scan: ScanEvidenceEncoded): Promise<string> => {
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://localhost${path}`, { headers: { "x-request-id": "same-id", ...headers } })
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  new Request(`http://localhost${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "x-request-id": "same-id",
      ...headers
    },
    body
  })

// Varies between two calls by nature: the response date, the time measured, the window's remaining count
// and the seconds to its end (compared apart: within a second of each other).
const VARYING = new Set([
  "date",
  "content-length",
  "ratelimit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "retry-after"
])
const expectSameSeconds = (fast: Response, slow: Response) => {
  for (const name of ["x-ratelimit-reset", "retry-after"]) {
    const [a, b] = [fast.headers.get(name), slow.headers.get(name)]
    expect(a === null).toBe(b === null)
    if (a !== null && b !== null) expect(Math.abs(Number(a) - Number(b))).toBeLessThanOrEqual(1)
  }
}
const headersOf = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => !VARYING.has(name)).sort(([a], [b]) => a.localeCompare(b))
  )

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
const normalised = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(normalised)
  if (value === null || typeof value !== "object") return value
  const entries = Object.entries(value as Record<string, Json>).map(([key, inner]): [string, Json] =>
    key === "latency_ms"
      ? [key, typeof inner === "number" && Number.isInteger(inner) && inner >= 0 ? "ms" : inner]
      : [key, normalised(inner)]
  )
  return Object.fromEntries(entries)
}

interface Paths {
  /** The fast path's side (the server with its fast paths by default). */
  readonly fast?: ServerFetch
  /** HttpApi's side (the same server without fast paths by default). */
  readonly slow?: ServerFetch
  /** Asks the fast path first: what it reads cold, HttpApi would otherwise have warmed. */
  readonly fastFirst?: boolean
}

/** Asks HttpApi, then the server with the fast path, with the same request from the same client. */
const both = async (request: () => Request, client = newClient(), paths: Paths = {}) => {
  const [viaFast, viaSlow] = [paths.fast ?? served, paths.slow ?? viaHttpApi]
  let slow: Response
  let fast: Response
  if (paths.fastFirst === true) {
    fast = await viaFast(request(), client)
    slow = await viaSlow(request(), client)
  } else {
    slow = await viaSlow(request(), client)
    fast = await viaFast(request(), client)
  }
  expectSameSeconds(fast, slow)
  return {
    slow: {
      status: slow.status,
      headers: headersOf(slow),
      body: normalised((await slow.json()) as Json),
      remaining: slow.headers.get("x-ratelimit-remaining")
    },
    fast: {
      status: fast.status,
      headers: headersOf(fast),
      body: normalised((await fast.json()) as Json),
      remaining: fast.headers.get("x-ratelimit-remaining")
    }
  }
}

/** The body with every age in seconds (`age_seconds`, `evidence_age_seconds`, `age`) left out. */
const withoutAges = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(withoutAges)
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(
    Object.entries(value as Record<string, Json>)
      .filter(([key]) => key !== "age" && !key.endsWith("age_seconds"))
      .map(([key, inner]): [string, Json] => [key, withoutAges(inner)])
  )
}

const expectSame = async (request: () => Request, paths: Paths = {}) => {
  let { fast, slow } = await both(request, newClient(), paths)
  // Ages are whole seconds since the scan: two answers made either side of a second's boundary differ by one
  // there and nowhere else. Asked again (at most twice), both fall within one second; anything else differing
  // fails below.
  for (let again = 0; again < 2; again++) {
    const differ = JSON.stringify(fast.body) !== JSON.stringify(slow.body)
    if (!differ || JSON.stringify(withoutAges(fast.body)) !== JSON.stringify(withoutAges(slow.body))) break
    ;({ fast, slow } = await both(request, newClient(), paths))
  }
  expect(fast.status).toBe(slow.status)
  expect(fast.headers).toEqual(slow.headers)
  expect(fast.body).toEqual(slow.body)
  // One window, counted once each.
  if (slow.remaining !== null)
    expect(Number(fast.remaining)).toBe(Number(slow.remaining) + (paths.fastFirst === true ? 1 : -1))
  return fast
}

/** The fast path answered by itself (it did not hand the request on). */
const answeredFast = async (request: Request, client = newClient()) => {
  const answer = await fastOnly(request, client)
  expect(answer.status).not.toBe(500)
  return answer
}

const okScan = (minutes = 1) => cleanScan(newAddress(), { scannedAt: minutesAgo(minutes) })
const warnScan = () =>
  cleanScan(newAddress(), {
    freezeAuthority: newAddress(),
    liquidity: { liquidityUsd: 2_500_000, lpLocked: false, lpLockPercentage: 0, lpLockExpiresAt: null, poolCount: 3 }
  })
const blockScan = () => cleanScan(newAddress(), { trading: { isHoneypot: true, buyTax: 0, sellTax: 100 } })

describe(`risk-check fast path = HttpApi, on ${databaseKind}`, () => {
  test.each([
    ["ok, fresh", () => okScan(1), "ok", "fresh"],
    ["warn", warnScan, "warn", "fresh"],
    ["block", blockScan, "block", "fresh"],
    ["stale", () => okScan(30), "ok", "stale"],
    ["cold", () => okScan(61), "ok", "cold"]
  ] as const)(
    "GET %s: same status, headers and body, answered from memory",
    async (_name, scan, verdict, freshness) => {
      const mint = await stored(scan())
      const fast = await expectSame(() => get(`/api/risk-check/${mint}`))
      expect(fast.status).toBe(200)
      expect(fast.body).toMatchObject({ address: mint, verdict, freshness })
      expect((await answeredFast(get(`/api/risk-check/${mint}`))).status).toBe(200)
    }
  )

  test("GET a never-scanned mint: the same unknown answer, and memory remembers it was never scanned", async () => {
    const mint = newAddress()
    const fast = await expectSame(() => get(`/api/risk-check/${mint}`))
    expect(fast.body).toMatchObject({ verdict: "unknown", freshness: "cold", score: null })
    expect(fast.headers["cache-control"]).toBe("no-cache")
    expect((await answeredFast(get(`/api/risk-check/${mint}`))).status).toBe(200)
  })

  test("a query string and the client's X-Request-Id are treated alike", async () => {
    const mint = await stored(okScan())
    const fast = await expectSame(() => get(`/api/risk-check/${mint}?source=bot&x=1`, { "x-request-id": "bot-42" }))
    expect(fast.headers["x-request-id"]).toBe("bot-42")
    const unsafe = await answeredFast(get(`/api/risk-check/${mint}`, { "x-request-id": "no spaces allowed" }))
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  test("a mint not in memory is read through the cache by the fast path itself", async () => {
    const mint = await stored(okScan())
    const before = lifecycle.inFlight()
    const fresh = fastOnly(get(`/api/risk-check/${mint}`), newClient())
    expect(fresh).toBeInstanceOf(Promise)
    expect(lifecycle.inFlight()).toBe(before + 1) // the shutdown drain waits for it
    const answer = await fresh
    expect(lifecycle.inFlight()).toBe(before)
    expect([answer.status, ((await answer.json()) as { verdict: string }).verdict]).toEqual([200, "ok"])
  })

  // A single check's cold read is the cache's shared batch read (loadMany), as a batch's cold mints are.
  const failingWith = (
    loadMany: () => Promise<Exit.Exit<ReadonlyMap<string, CheckedScan>, ServiceUnavailable>>,
    handler: ApiHandler = never
  ) => edgeWith(fastPath({ ...cache, peek: () => undefined, loadMany }), handler)

  test("when the database cannot answer, the fast path gives HttpApi's 503 envelope itself, counted once", async () => {
    const client = newClient()
    const failing = failingWith(() =>
      Promise.resolve(
        Exit.fail(new ServiceUnavailable({ message: "The evidence database is unreachable; retry shortly." }))
      )
    )
    const answer = await failing(get(`/api/risk-check/${newAddress()}`), client)
    expect([
      answer.status,
      answer.headers.get("retry-after"),
      answer.headers.get("cache-control"),
      answer.headers.get("x-request-id")
    ]).toEqual([503, "5", "no-store", "same-id"])
    expect(await answer.json()).toEqual({
      error: {
        code: "service_unavailable",
        message: "The evidence database is unreachable; retry shortly.",
        requestId: "same-id"
      }
    })
    const next = await served(get(`/api/risk-check/${newAddress()}`), client)
    expect(next.headers.get("x-ratelimit-remaining")).toBe(String(PER_MINUTE - 2))
  })

  test("a read through the cache that does not answer by REQUEST_TIMEOUT_MS is the 503 envelope", async () => {
    const hanging = edgeWith(
      fastPath({ ...cache, peek: () => undefined, loadMany: () => new Promise(() => {}) }),
      never,
      100
    )
    const answer = await hanging(get(`/api/risk-check/${newAddress()}`), newClient())
    expect([
      answer.status,
      answer.headers.get("retry-after"),
      ((await answer.json()) as { error: { code: string } }).error.code
    ]).toEqual([503, "5", "service_unavailable"])
  })

  test("an unexpected failure of the read is the 500 envelope, given by the fast path: the caller is admitted once", async () => {
    const client = newClient()
    const handedOn: Array<string> = []
    const failing = failingWith(
      () => Promise.resolve(Exit.die(new Error("bug"))),
      async (request) => {
        handedOn.push(request.url)
        return new Response(null, { status: 500 })
      }
    )
    errors.length = 0
    const answer = await failing(get(`/api/risk-check/${newAddress()}`), client)
    expect([
      answer.status,
      handedOn.length,
      answer.headers.get("x-request-id"),
      answer.headers.get("access-control-allow-origin")
    ]).toEqual([500, 0, "same-id", "*"])
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("internal_error")
    expect(errors.map((fields) => fields.requestId)).toEqual(["same-id"]) // the defect is logged with the client's id
    // Counted once, as the HttpApi path would count it: the client's next call is the second of its minute.
    const next = await served(get(`/api/risk-check/${newAddress()}`), client)
    expect(next.headers.get("x-ratelimit-remaining")).toBe(String(PER_MINUTE - 2))
  })

  test("a declared body over MAX_BODY_BYTES is the 413 envelope before anything reads it, on any route", async () => {
    for (const path of ["/api/risk-check/batch", "/api/v1/token/risk"]) {
      const request = new Request(`http://localhost${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "2000000", "x-request-id": "big-one" },
        body: "{}"
      })
      const answer = await served(request, newClient())
      expect([answer.status, answer.headers.get("x-request-id"), answer.headers.get("cache-control")]).toEqual([
        413,
        "big-one",
        "no-store"
      ])
      expect(await answer.json()).toEqual({
        error: {
          code: "payload_too_large",
          message: "The body is 2000000 bytes or more; the limit is 65536.",
          requestId: "big-one"
        }
      })
    }
  })

  test("a bad address is handed to HttpApi, whose answer is what the client gets", async () => {
    expect((await fastOrHandedOn(get("/api/risk-check/not-a-mint"), newClient())).status).toBe(299)
    const bad = await expectSame(() => get("/api/risk-check/0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl"))
    expect([bad.status, (bad.body as { error: { code: string } }).error.code]).toEqual([400, "invalid_address"])
    const batchGet = await expectSame(() => get("/api/risk-check/batch"))
    expect(batchGet.status).toBe(400)
  })

  test("over the per-client limit both answer the same 429 envelope with Retry-After", async () => {
    const mint = await stored(okScan())
    const client = newClient()
    for (let i = 0; i < PER_MINUTE; i++)
      expect((await viaHttpApi(get(`/api/risk-check/${mint}`), client)).status).toBe(200)
    const slow = await viaHttpApi(get(`/api/risk-check/${mint}`), client)
    const fast = await answeredFast(get(`/api/risk-check/${mint}`), client)
    expect([fast.status, slow.status]).toEqual([429, 429])
    expect(headersOf(fast)).toEqual(headersOf(slow))
    expectSameSeconds(fast, slow)
    expect(fast.headers.get("retry-after")).toMatch(/^\d+$/)
    expect(await fast.json()).toEqual(await slow.json())
  })

  test("a valid X-Api-Key is looked up by HttpApi once, then the fast path attributes it from memory", async () => {
    const mint = await stored(okScan())
    const key = await run(
      Effect.gen(function* () {
        const account = yield* Accounts.create("fast path", { plan: "free" })
        return (yield* Accounts.createKey(account.id, ["token:risk:read"], null)).key
      })
    )
    const request = () => get(`/api/risk-check/${mint}`, { "x-api-key": key })
    expect((await fastOrHandedOn(request(), newClient())).status).toBe(299) // not looked up yet
    await expectSame(request)
    const fast = await answeredFast(request())
    // Counted against the account's window, wherever it calls from: 5 allowed, three used so far.
    expect(fast.headers.get("x-ratelimit-remaining")).toBe(String(PER_MINUTE - 3))
  })

  describe("POST /api/risk-check/batch", () => {
    test("ok, warn, unknown, a duplicate and a bad address: the same answer, from memory once warm", async () => {
      const ok = await stored(okScan())
      const warn = await stored(warnScan())
      const unknown = newAddress()
      const body = JSON.stringify({ addresses: [ok, warn, unknown, ok, "nope", "__proto__"] })
      const fast = await expectSame(() => post("/api/risk-check/batch", body))
      expect(fast.status).toBe(200)
      expect((fast.body as { count: number }).count).toBe(4)
      expect(fast.headers["cache-control"]).toBe("no-store")
      expect((await answeredFast(post("/api/risk-check/batch", body))).status).toBe(200)
    })

    test("mints not in memory are read by the fast path itself in one shared read: the same answer as HttpApi", async () => {
      const [ok, block, stale] = [await stored(okScan()), await stored(blockScan()), await stored(okScan(30))]
      const cold = [ok, block, stale]
      const never = [newAddress(), newAddress()]
      const warm = await stored(warnScan())
      await run(cache.latest(warm as Address))
      await run(cache.latest(warm as Address))
      expect(cache.peek(warm)).not.toBeUndefined()
      for (const mint of [...cold, ...never]) expect(cache.peek(mint)).toBeUndefined()
      const order = [ok, warm, never[0]!, block, "nope", stale, never[1]!]
      const body = JSON.stringify({ addresses: [...order, ok] })
      // `fastOnly` fails any request it hands on: the fast path answers this batch by itself, first, cold.
      const fast = await expectSame(() => post("/api/risk-check/batch", body), { fast: fastOnly, fastFirst: true })
      expect(fast.status).toBe(200)
      const results = (fast.body as { results: Record<string, { verdict?: string }> }).results
      expect(Object.keys(results)).toEqual(order)
      expect(order.map((mint) => results[mint]?.verdict)).toEqual([
        "ok",
        "warn",
        "unknown",
        "block",
        undefined,
        "ok",
        "unknown"
      ])
      // The never-scanned mints are remembered as such: the next batch with them reads nothing.
      expect(never.map((mint) => cache.peek(mint))).toEqual([null, null])
    })

    test("the cold mints of a batch are read in one call of the cache's shared batch read; a refused caller reads nothing", async () => {
      const cold = [await stored(okScan()), newAddress()]
      const calls: Array<ReadonlyArray<string>> = []
      const counting = fastPath({
        ...cache,
        loadMany: (mints) => {
          calls.push(mints)
          return cache.loadMany(mints)
        }
      })
      const client = newClient()
      const body = JSON.stringify({ addresses: [...cold, "nope"] })
      const answer = await edgeWith(counting)(post("/api/risk-check/batch", body), client)
      expect(answer.status).toBe(200)
      expect(calls).toEqual([cold])
      for (let i = 1; i < PER_MINUTE; i++) await served(get(`/api/risk-check/${cold[0]}`), client)
      const fresh = JSON.stringify({ addresses: [newAddress()] })
      const refused = await edgeWith(counting)(post("/api/risk-check/batch", fresh), client)
      expect([refused.status, calls.length]).toEqual([429, 1])
    })

    test("over the per-client limit a batch of cold mints is the same 429 as HttpApi's", async () => {
      const client = newClient()
      const mint = await stored(okScan())
      for (let i = 0; i < PER_MINUTE; i++)
        expect((await viaHttpApi(get(`/api/risk-check/${mint}`), client)).status).toBe(200)
      const body = JSON.stringify({ addresses: [newAddress(), await stored(okScan())] })
      const fast = await fastOnly(post("/api/risk-check/batch", body), client)
      const slow = await viaHttpApi(post("/api/risk-check/batch", body), client)
      expect([fast.status, slow.status]).toEqual([429, 429])
      expect(headersOf(fast)).toEqual(headersOf(slow))
      expectSameSeconds(fast, slow)
      expect(await fast.json()).toEqual(await slow.json())
    })

    // The server, with and without its fast paths, over the app's services with a cache whose reads fail.
    const serversOver = async (scans: LatestScans, timeoutMs?: number) => {
      const failing = Context.add(services, LatestScanCache, LatestScanCache.make(scans))
      const config = ConfigProvider.fromMap(
        new Map(timeoutMs === undefined ? [] : [["REQUEST_TIMEOUT_MS", String(timeoutMs)]])
      ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
      const make = (fastPath: boolean) =>
        Effect.runPromise(
          Scope.extend(makeServerFetch(failing, quiet, { fastPath }), scope).pipe(Effect.withConfigProvider(config))
        )
      return { fast: await make(true), slow: await make(false) }
    }
    const unavailable = new ServiceUnavailable({ message: "The evidence database is unreachable; retry shortly." })

    test("when the database cannot answer, the fast path gives HttpApi's 503 envelope and headers, counted once", async () => {
      const reads = { httpApi: 0, fastPath: 0 }
      const paths = await serversOver({
        ...cache,
        peek: () => undefined,
        latestMany: () =>
          Effect.zipRight(
            Effect.sync(() => reads.httpApi++),
            Effect.fail(unavailable)
          ),
        loadMany: () => {
          reads.fastPath++
          return Promise.resolve(Exit.fail(unavailable))
        }
      })
      const body = JSON.stringify({ addresses: [newAddress(), "nope"] })
      const fast = await expectSame(() => post("/api/risk-check/batch", body), paths)
      expect(reads).toEqual({ httpApi: 1, fastPath: 1 }) // each path read once: the fast path handed nothing on
      expect([fast.status, fast.headers["cache-control"]]).toEqual([503, "no-store"]) // and Retry-After: expectSameSeconds
      expect(fast.body).toEqual({
        error: { code: "service_unavailable", message: unavailable.message, requestId: "same-id" }
      })
    })

    test("a shared read that does not answer by REQUEST_TIMEOUT_MS is HttpApi's answer: the 503 envelope", async () => {
      const reads = { httpApi: 0, fastPath: 0 }
      const paths = await serversOver(
        {
          ...cache,
          peek: () => undefined,
          latestMany: () =>
            Effect.zipRight(
              Effect.sync(() => reads.httpApi++),
              Effect.never
            ),
          loadMany: () => {
            reads.fastPath++
            return new Promise(() => {})
          }
        },
        100
      )
      const body = JSON.stringify({ addresses: [newAddress()] })
      const fast = await expectSame(() => post("/api/risk-check/batch", body), paths)
      expect(reads).toEqual({ httpApi: 1, fastPath: 1 })
      expect([fast.status, (fast.body as { error: { code: string } }).error.code]).toEqual([503, "service_unavailable"])
    })

    test.each([
      ["malformed JSON", '{"addresses": [', {}],
      ["an unknown field", JSON.stringify({ addresses: [newAddress()], extra: 1 }), {}],
      ["a wrong type", JSON.stringify({ addresses: "one" }), {}],
      ["a missing field", JSON.stringify({}), {}],
      ["an empty list", JSON.stringify({ addresses: [] }), {}],
      ["51 addresses", JSON.stringify({ addresses: Array.from({ length: 51 }, () => newAddress()) }), {}],
      ["an array body", JSON.stringify([newAddress()]), {}],
      ["a non-JSON content type", JSON.stringify({ addresses: [newAddress()] }), { "content-type": "text/plain" }]
    ] as const)("%s: the same error envelope and status", async (_name, body, headers) => {
      const fast = await expectSame(() => post("/api/risk-check/batch", body, headers))
      expect(fast.status).toBeGreaterThanOrEqual(400)
      expect(fast.body).toMatchObject({ error: { requestId: "same-id" } })
    })
  })

  test("peek answers only what the cache holds", async () => {
    const mint = await stored(okScan())
    expect(cache.peek(mint)).toBeUndefined()
    await run(cache.latest(mint as Address))
    expect(cache.peek(mint)).toBeUndefined() // kept from its second read on
    await run(cache.latest(mint as Address))
    expect(cache.peek(mint)?.evidence.mint).toBe(mint as Address)
    expect(cache.peek(newAddress())).toBeUndefined()
  })
})
