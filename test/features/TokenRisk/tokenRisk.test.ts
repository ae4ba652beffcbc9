import { describe, expect, test } from "bun:test"
import { sqlServices } from "../../support/layers.ts"
import { Accounts, type PlanChange } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { Effect } from "effect"
import type { Scope } from "../../../src/domain/Scope.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { postJson, read, testApp, testClient } from "../../support/http.ts"

// The keyed token risk route end to end: auth, scopes, metering and the packet, on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const newKey = async (
  change: PlanChange = { plan: "free" },
  scopes: ReadonlyArray<Scope> = ["token:risk:read"],
  expiresAt: Date | null = null
) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("test", change)
      const { key, record } = yield* Accounts.createKey(account.id, scopes, expiresAt)
      return { key, keyId: record.id, accountId: account.id }
    })
  )
const used = (accountId: string) => run(Effect.map(Quota.usedThisMonth(accountId), (usage) => usage.used))
const scanned = async () => {
  const scan = cleanScan(newAddress())
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const bearer = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { authorization: `Bearer ${key}` }

// Through the typed client, as a caller's code sees the route: a body decodes only from a 200, and an error
// class only from its own status and code. `withResponse` adds the response, for its status and headers.
const risk = (key: string | undefined, address: string) =>
  Effect.runPromise(testClient(app, bearer(key)).token.risk({ payload: { address } }))
const riskWithResponse = (key: string | undefined, address: string) =>
  Effect.runPromise(testClient(app, bearer(key)).token.risk({ payload: { address }, withResponse: true }))
const riskFailure = (key: string | undefined, address: string) =>
  Effect.runPromise(Effect.flip(testClient(app, bearer(key)).token.risk({ payload: { address } })))
// Raw, for the headers of a refusal and for bodies the typed client refuses to encode.
const tokenRisk = async (key: string | undefined, body: unknown) =>
  read(await app("/api/v1/token/risk", postJson(body, bearer(key))))

describe(`POST /api/v1/token/risk on ${databaseKind}`, () => {
  test("answers the packet with meta, charging 1 unit, with rate-limit headers", async () => {
    const { accountId, key } = await newKey()
    const address = await scanned()
    const [body, response] = await riskWithResponse(key, address)
    expect(response.status).toBe(200)
    expect(Object.keys(body.data).sort()).toEqual([
      "address",
      "confidence",
      "evidence",
      "facets",
      "hardCaps",
      "market",
      "modelVersion",
      "name",
      "recommendedAction",
      "riskLevel",
      "riskScore",
      "risks",
      "safetyScore",
      "scoreBreakdown",
      "sources",
      "summary",
      "symbol"
    ])
    expect(body.data).toMatchObject({
      address,
      symbol: "CLEAN",
      safetyScore: 100,
      riskScore: 0,
      riskLevel: "low",
      recommendedAction: "proceed",
      hardCaps: [],
      sources: ["svc_token_scans", "svc_scoring_engine"],
      evidence: { isHoneypot: false, scanSource: "cached_scan" }
    })
    expect({ ...body.meta, requestId: "-", generatedAt: "-" }).toEqual({
      requestId: "-",
      scope: "token:risk:read",
      quota: { limit: 100, used: 1, remaining: 99 },
      generatedAt: "-",
      contractVersion: "2026-11-01",
      costUnits: 1,
      cacheMode: "latest_cached_scan"
    })
    expect(response.headers["x-request-id"]).toBe(body.meta.requestId)
    const { headers } = response
    expect([headers["x-ratelimit-limit"], headers["x-ratelimit-remaining"], headers["x-quota-remaining"]]).toEqual([
      "10",
      "9",
      "99"
    ])
    expect(headers["ratelimit-policy"]).toBe('"minute";q=10;w=60, "month";q=100')
    expect(headers.ratelimit).toMatch(/^"minute";r=9;t=\d+$/)
    expect(await used(accountId)).toBe(1)
  })

  test("meta.quota.used counts each successful call exactly", async () => {
    const { key } = await newKey()
    const address = await scanned()
    const seen = []
    for (let i = 0; i < 3; i++) seen.push((await risk(key, address)).meta.quota.used)
    expect(seen).toEqual([1, 2, 3])
  })

  test("missing, malformed, unknown, revoked and expired keys all get the same 401", async () => {
    const address = await scanned()
    const revoked = await newKey()
    await run(Accounts.revokeKey(revoked.keyId))
    const expired = await newKey({ plan: "free" }, ["token:risk:read"], new Date(Date.now() - 1000))
    const unknown = (await newKey()).key.replace(/^rsk_./, "rsk_z") // breaks the checksum too
    const messages = []
    for (const key of [undefined, "", "not-a-key", unknown, revoked.key, expired.key]) {
      const failure = await riskFailure(key, address)
      expect(failure._tag).toBe("Unauthorized")
      messages.push(failure.message)
    }
    expect(new Set(messages)).toEqual(new Set(["A valid API key is required: send `Authorization: Bearer <key>`."]))
    expect(await used(revoked.accountId)).toBe(0)
  })

  test("a key without the route's scope gets 403 naming the scope", async () => {
    const { accountId, key } = await newKey({ plan: "free" }, ["wallet:risk:read"])
    const failure = await riskFailure(key, await scanned())
    expect([failure._tag, failure.message]).toEqual([
      "Forbidden",
      "This key lacks the scope this route needs: token:risk:read."
    ])
    expect(await used(accountId)).toBe(0)
  })

  test("bad input is 400 and never charged", async () => {
    const { accountId, key } = await newKey()
    const invalid = await riskFailure(key, "xyz")
    expect([invalid._tag, invalid.message]).toEqual([
      "InvalidAddress",
      '"xyz" is not a Solana address (base58 of 32 bytes).'
    ])
    // Raw: the typed client refuses to encode these bodies, and cannot send text that is not JSON.
    const cases: Array<[unknown, string]> = [
      [{}, "invalid_request"],
      [{ address: 42 }, "invalid_request"],
      [{ address: await scanned(), extra: true }, "invalid_request"],
      ['{"address":', "malformed_json"]
    ]
    for (const [body, code] of cases) {
      const got = await tokenRisk(key, body)
      expect([got.status, got.body.error.code]).toEqual([400, code])
    }
    expect(await used(accountId)).toBe(0)
  })

  test("a mint never scanned is 404 not_scanned with the rescan URL, not charged, and the headers say so", async () => {
    const { accountId, key } = await newKey()
    const address = newAddress()
    const failure = await riskFailure(key, address)
    expect([failure._tag, failure.message]).toEqual([
      "NotScanned",
      `${address} has never been scanned; POST /api/risk-check/${address}/rescan to queue a scan.`
    ])
    // Raw: a typed failure carries no headers.
    const got = await tokenRisk(key, { address })
    expect([got.status, got.body.error.code, got.headers["x-quota-remaining"]]).toEqual([404, "not_scanned", "100"])
    expect(await used(accountId)).toBe(0)
  })

  test("past the per-minute limit: 429 rate_limited with Retry-After and the headers, not charged", async () => {
    const { accountId, key } = await newKey({ plan: "enterprise", monthlyQuota: 1_000, requestsPerMinute: 3 })
    const address = await scanned()
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await tokenRisk(key, { address })).status)
    const limited = await tokenRisk(key, { address })
    // A minute boundary inside the loop would reopen the window; then one more call must be limited.
    const refused = limited.status === 429 ? limited : await tokenRisk(key, { address })
    expect(statuses).toEqual([200, 200, 200])
    expect([refused.status, refused.body.error.code]).toEqual([429, "rate_limited"])
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60)
    expect(refused.headers["x-ratelimit-remaining"]).toBe("0")
    expect(await used(accountId)).toBe(limited.status === 429 ? 3 : 4)
  })

  test("past the monthly quota: 429 quota_exceeded, distinct from rate_limited, with Retry-After to the month's end", async () => {
    const { accountId, key } = await newKey({ plan: "enterprise", monthlyQuota: 2, requestsPerMinute: 100 })
    const address = await scanned()
    expect([(await risk(key, address)).meta.quota.used, (await risk(key, address)).meta.quota.used]).toEqual([1, 2])
    const over = await riskFailure(key, address)
    expect(over._tag).toBe("QuotaExceeded")
    expect(over.message).toStartWith("Monthly quota of 2 cost units is used up (2 used)")
    // Raw: a typed failure carries no headers.
    const refused = await tokenRisk(key, { address })
    expect([refused.status, refused.body.error.code]).toEqual([429, "quota_exceeded"])
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
    expect(refused.headers["x-quota-remaining"]).toBe("0")
    expect(await used(accountId)).toBe(2)
  })

  test("a plan change takes effect on the next request", async () => {
    const { accountId, key } = await newKey({ plan: "free" })
    const address = await scanned()
    await risk(key, address)
    await run(Accounts.setPlan(accountId, { plan: "pro" }))
    const got = await risk(key, address)
    expect(got.meta.quota).toEqual({ limit: 5_000, used: 2, remaining: 4_998 })
  })
})
