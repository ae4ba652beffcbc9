import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { afterAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel, Runtime, Scope } from "effect"
import { Accounts, type PlanChange } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { AppLive, type AppServices } from "../../../src/platform/Http/App.ts"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { LatestScanCache } from "../../../src/features/Scans/LatestScanCache.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { Lifecycle } from "../../../src/features/System/Lifecycle.ts"
import { type ApiHandler, makeEdge } from "../../../src/platform/Http/Edge.ts"
import { makeTokenRiskFastPath } from "../../../src/features/TokenRisk/FastPath.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { sqlServices } from "../../support/layers.ts"
import { settledAt } from "../../support/poll.ts"

// Keyed token risk served straight from Bun (TokenRisk/FastPath.ts) must be indistinguishable from HttpApi:
// the same status, headers and body, the same charge (once, after the answer; never for a late or failed
// call), and whatever it does not answer itself reaches HttpApi untouched.

const ORIGIN = "https://app.example.org"
const { run, runtime } = runtimeFor(sqlServices({ cache: { size: 1_000, ttlSeconds: 60, notifications: false } }))
const services: Context.Context<AppServices> = (await runtime.runtime()).context
const quiet = Logger.minimumLogLevel(LogLevel.Warning)
const scope = Effect.runSync(Scope.make())
// The request deadline counts from arrival, whichever paths answer: 60 calls queued on one embedded
// connection (charge, refusal, HttpApi's own charge) may need more than the default 2 s on a busy machine.
const served = await Effect.runPromise(
  Scope.extend(makeServerFetch(services, quiet), scope).pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["REQUEST_TIMEOUT_MS", "9000"]])))
  )
)
// HttpApi alone, with CORS_ALLOWED_ORIGINS set (as test/platform/Http/cors.test.ts builds it).
const httpApi = HttpApiBuilder.toWebHandler(
  Layer.mergeAll(AppLive.pipe(Layer.provide(Layer.succeedContext(services))), HttpServer.layerContext, quiet).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["CORS_ALLOWED_ORIGINS", ORIGIN]]))))
  )
)
afterAll(() => httpApi.dispose())
const viaHttpApi = (request: Request) => httpApi.handler(request)
const lifecycle = Context.get(services, Lifecycle)
// The edge with the fast path in front of a stand-in for HttpApi: `never` (the fast path must answer by
// itself: a hand-on is the edge's 500) unless a test gives one.
const never: ApiHandler = () => Promise.reject(new Error("the fast path handed this request on"))
const fastPathWith =
  (requestTimeoutMs: number) =>
  (request: Request, handler: ApiHandler = never) =>
    makeEdge({
      handler,
      settings: { maxBodyBytes: 65_536, requestTimeoutMs, corsAllowedOrigins: [ORIGIN] },
      lifecycle,
      fastPaths: [
        makeTokenRiskFastPath({
          accounts: Context.get(services, Accounts),
          quota: Context.get(services, Quota),
          scans: Context.get(services, LatestScanCache),
          maxBodyBytes: 65_536,
          corsAllowedOrigins: [ORIGIN],
          run: Runtime.runPromiseExit(Runtime.defaultRuntime)
        })
      ],
      log: undefined,
      logError: () => {}
    })(request, "10.0.0.9")
const fastOnly = fastPathWith(2_000)

const newKey = (
  change: PlanChange = { plan: "free" },
  scopes: ReadonlyArray<"token:risk:read" | "wallet:risk:read"> = ["token:risk:read"]
) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("fast", change)
      const { key } = yield* Accounts.createKey(account.id, scopes, null)
      return { key, accountId: account.id }
    })
  )
const used = (accountId: string) => run(Effect.map(Quota.usedThisMonth(accountId), (usage) => usage.used))
const scanned = async () => {
  const scan = cleanScan(newAddress())
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const risk = (key: string, body: string, headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/v1/token/risk", {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "x-request-id": "same-id",
      ...headers
    },
    body
  })
const address = (mint: string) => JSON.stringify({ address: mint })

/** Through HttpApi twice: the key is then in the key cache and the mint in the scan cache (kept from its second read). */
const warmed = async (key: string, mint: string) => {
  for (let i = 0; i < 2; i++) expect((await viaHttpApi(risk(key, address(mint)))).status).toBe(200)
}

/** `used` once the commits deferred behind the answers have run (polled, 3 s at most). */
const usedOnceSettled = (accountId: string, expected: number) => settledAt(() => used(accountId), expected)

// Varies between two calls by nature: the date, and what the charge counts (compared apart).
const VARYING = new Set([
  "date",
  "content-length",
  "ratelimit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-quota-remaining"
])
const headersOf = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => !VARYING.has(name)).sort(([a], [b]) => a.localeCompare(b))
  )
const bodyOf = async (response: Response) => {
  const body = (await response.json()) as { meta?: Record<string, unknown> }
  return body.meta === undefined ? body : { ...body, meta: { ...body.meta, generatedAt: "-", quota: "-" } }
}

describe(`keyed token risk fast path = HttpApi, on ${databaseKind}`, () => {
  test.each([
    ["no Origin", {}],
    ["an allowed Origin", { origin: ORIGIN }],
    ["another Origin", { origin: "https://elsewhere.example" }]
  ] as const)("%s: the same status, headers and body, answered by the fast path itself", async (_name, extra) => {
    const { accountId, key } = await newKey()
    const mint = await scanned()
    await warmed(key, mint)
    const fast = await fastOnly(risk(key, address(mint), extra))
    const slow = await viaHttpApi(risk(key, address(mint), extra))
    expect([fast.status, slow.status]).toEqual([200, 200])
    expect(headersOf(fast)).toEqual(headersOf(slow))
    expect(await bodyOf(fast)).toEqual(await bodyOf(slow))
    expect([fast.headers.get("x-quota-remaining"), slow.headers.get("x-quota-remaining")]).toEqual(["97", "96"])
    expect(await usedOnceSettled(accountId, 4)).toBe(4)
  })

  test("each answer is charged once, after it is written; meta.quota.used counts them", async () => {
    const { accountId, key } = await newKey()
    const mint = await scanned()
    await warmed(key, mint)
    const seen = []
    for (let i = 0; i < 3; i++) {
      const answer = await fastOnly(risk(key, address(mint)))
      seen.push(((await answer.json()) as { meta: { quota: { used: number } } }).meta.quota.used)
    }
    expect(seen).toEqual([3, 4, 5])
    expect(await usedOnceSettled(accountId, 5)).toBe(5)
  })

  test("60 concurrent calls against a quota of 20: exactly 20 answered and charged, the rest quota_exceeded", async () => {
    const { accountId, key } = await newKey({ plan: "enterprise", monthlyQuota: 22, requestsPerMinute: 10_000 })
    const mint = await scanned()
    await warmed(key, mint) // 2 of the 22
    const answers = await Promise.all(Array.from({ length: 60 }, () => served(risk(key, address(mint)), "10.0.0.2")))
    const statuses = answers.map((answer) => answer.status)
    expect({ ok: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 429).length }).toEqual(
      { ok: 20, refused: 40 }
    )
    expect(await usedOnceSettled(accountId, 22)).toBe(22)
  }, 30_000)

  test("what it does not answer from memory reaches HttpApi, body and all", async () => {
    const { key } = await newKey()
    const mint = await scanned()
    const handedOn: Array<string> = []
    const delegate: ApiHandler = async (request) => {
      handedOn.push(await request.text())
      return new Response("handed on")
    }
    const handed = async (request: Request) => (await fastOnly(request, delegate)).text()
    expect(await handed(risk(key, address(mint)))).toBe("handed on") // a key not in the key cache yet
    await warmed(key, mint)
    const wrongScope = await newKey({ plan: "free" }, ["wallet:risk:read"])
    await viaHttpApi(risk(wrongScope.key, address(mint)))
    expect(await handed(risk(wrongScope.key, address(mint)))).toBe("handed on")
    const bodies = [
      address(newAddress()),
      '{"address":',
      JSON.stringify({ address: mint, extra: 1 }),
      JSON.stringify({ address: "xyz" })
    ]
    for (const body of bodies) expect(await handed(risk(key, body))).toBe("handed on")
    expect(await handed(risk(key, address(mint), { "content-type": "text/plain" }))).toBe("handed on")
    expect(handedOn).toEqual([address(mint), address(mint), ...bodies, address(mint)])
  })

  test("an answer waited for counts as in flight, so the shutdown drain waits for it", async () => {
    const { key } = await newKey()
    const mint = await scanned()
    await warmed(key, mint)
    const before = lifecycle.inFlight()
    const answer = fastOnly(risk(key, address(mint)))
    expect(lifecycle.inFlight()).toBe(before + 1)
    expect((await answer).status).toBe(200)
    expect(lifecycle.inFlight()).toBe(before)
  })

  // A trigger delays or fails the charge's write for one account only.
  const withTrigger = async (accountId: string, body: string, use: () => Promise<void>) => {
    await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.zipRight(
          sql.unsafe(`create or replace function slow_charge() returns trigger language plpgsql as $$
          begin
            if new.account_id = '${accountId}' then ${body} end if;
            return new;
          end $$`),
          sql.unsafe(
            "create trigger slow_charge before insert or update on quota_usage for each row execute function slow_charge()"
          )
        )
      )
    )
    try {
      await use()
    } finally {
      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("drop trigger slow_charge on quota_usage")))
    }
  }

  test("a charge that outlasts REQUEST_TIMEOUT_MS: the 503 envelope, and the charge rolls back", async () => {
    const { accountId, key } = await newKey()
    const mint = await scanned()
    await warmed(key, mint)
    const impatient = fastPathWith(200)
    await withTrigger(accountId, "perform pg_sleep(0.6);", async () => {
      const late = await impatient(risk(key, address(mint)))
      expect([late.status, late.headers.get("retry-after"), await late.json()]).toEqual([
        503,
        "5",
        {
          error: {
            code: "service_unavailable",
            message: "The request took longer than 200 ms; retry shortly.",
            requestId: "same-id"
          }
        }
      ])
      await Bun.sleep(800) // the charge ends behind the 503 and is rolled back
    })
    expect(await usedOnceSettled(accountId, 2)).toBe(2)
    expect((await served(risk(key, address(mint)), "10.0.0.3")).status).toBe(200)
    expect(await usedOnceSettled(accountId, 3)).toBe(3)
  })

  test("the database failing during the charge: HttpApi's 503 envelope, given by the fast path itself, nothing charged", async () => {
    const { accountId, key } = await newKey()
    const mint = await scanned()
    await warmed(key, mint)
    await withTrigger(
      accountId,
      "raise exception 'terminating connection' using errcode = 'admin_shutdown';",
      async () => {
        const fast = await fastOnly(risk(key, address(mint), { origin: ORIGIN }))
        const slow = await viaHttpApi(risk(key, address(mint), { origin: ORIGIN }))
        expect([fast.status, slow.status]).toEqual([503, 503])
        expect(headersOf(fast)).toEqual(headersOf(slow))
        expect(await fast.json()).toEqual(await slow.json())
      }
    )
    expect(await used(accountId)).toBe(2)
    expect((await served(risk(key, address(mint)), "10.0.0.4")).status).toBe(200) // its connection went back clean
  })
})
