import { describe, expect, test } from "bun:test"
import { sqlServices } from "../support/layers.ts"
import { Accounts, type PlanChange } from "../../src/Accounts/Accounts.ts"
import { Quota } from "../../src/Accounts/Quota.ts"
import { ScansRepo } from "../../src/Scans/ScansRepo.ts"
import { Effect, Layer } from "effect"
import type { Scope } from "../../src/Domain/Scope.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../support/fixtures.ts"
import { postJson, read, testApp } from "../support/http.ts"

// The keyed token risk route end to end: auth, scopes, metering and the packet, on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const newKey = async (change: PlanChange = { plan: "free" }, scopes: ReadonlyArray<Scope> = ["token:risk:read"], expiresAt: Date | null = null) =>
  run(Effect.gen(function*() {
    const account = yield* Accounts.create("test", change)
    const { key, record } = yield* Accounts.createKey(account.id, scopes, expiresAt)
    return { key, keyId: record.id, accountId: account.id }
  }))
const used = (accountId: string) => run(Effect.map(Quota.usedThisMonth(accountId), (usage) => usage.used))
const scanned = async () => {
  const scan = cleanScan(newAddress())
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const tokenRisk = async (key: string | undefined, body: unknown) =>
  read(await app("/api/v1/token/risk", postJson(body, key === undefined ? {} : { authorization: `Bearer ${key}` })))

describe(`POST /api/v1/token/risk on ${databaseKind}`, () => {
  test("answers the packet with meta, charging 1 unit, with rate-limit headers", async () => {
    const { accountId, key } = await newKey()
    const address = await scanned()
    const got = await tokenRisk(key, { address })
    expect(got.status).toBe(200)
    expect(Object.keys(got.body.data).sort()).toEqual([
      "address", "confidence", "evidence", "facets", "hardCaps", "market", "modelVersion", "name", "recommendedAction",
      "riskLevel", "riskScore", "risks", "safetyScore", "scoreBreakdown", "sources", "summary", "symbol"
    ])
    expect(got.body.data).toMatchObject({
      address, symbol: "CLEAN", safetyScore: 100, riskScore: 0, riskLevel: "low", recommendedAction: "proceed",
      hardCaps: [], sources: ["svc_token_scans", "svc_scoring_engine"], evidence: { isHoneypot: false, scanSource: "cached_scan" }
    })
    expect({ ...got.body.meta, requestId: "-", generatedAt: "-" }).toEqual({
      requestId: "-", scope: "token:risk:read", quota: { limit: 100, used: 1, remaining: 99 }, generatedAt: "-",
      contractVersion: "2026-11-01", costUnits: 1, cacheMode: "latest_cached_scan"
    })
    expect(got.body.meta.requestId).toBe(got.headers["x-request-id"])
    expect([got.headers["x-ratelimit-limit"], got.headers["x-ratelimit-remaining"], got.headers["x-quota-remaining"]])
      .toEqual(["10", "9", "99"])
    expect(got.headers["ratelimit-policy"]).toBe("\"minute\";q=10;w=60, \"month\";q=100")
    expect(got.headers["ratelimit"]).toMatch(/^"minute";r=9;t=\d+$/)
    expect(await used(accountId)).toBe(1)
  })

  test("meta.quota.used counts each successful call exactly", async () => {
    const { key } = await newKey()
    const address = await scanned()
    const seen = []
    for (let i = 0; i < 3; i++) seen.push((await tokenRisk(key, { address })).body.meta.quota.used)
    expect(seen).toEqual([1, 2, 3])
  })

  test("missing, malformed, unknown, revoked and expired keys all get the same 401", async () => {
    const address = await scanned()
    const revoked = await newKey()
    await run(Accounts.revokeKey(revoked.keyId))
    const expired = await newKey({ plan: "free" }, ["token:risk:read"], new Date(Date.now() - 1000))
    const unknown = (await newKey()).key.replace(/^rsk_./, "rsk_z") // breaks the checksum too
    const bodies = []
    for (const key of [undefined, "", "not-a-key", unknown, revoked.key, expired.key]) {
      const got = await tokenRisk(key, { address })
      expect([got.status, got.body.error.code]).toEqual([401, "unauthorized"])
      bodies.push(got.body.error.message)
    }
    expect(new Set(bodies).size).toBe(1)
    expect(await used(revoked.accountId)).toBe(0)
  })

  test("a key without the route's scope gets 403 naming the scope", async () => {
    const { accountId, key } = await newKey({ plan: "free" }, ["wallet:risk:read"])
    const got = await tokenRisk(key, { address: await scanned() })
    expect([got.status, got.body.error.code]).toEqual([403, "forbidden"])
    expect(got.body.error.message).toContain("token:risk:read")
    expect(await used(accountId)).toBe(0)
  })

  test("bad input is 400 and never charged", async () => {
    const { accountId, key } = await newKey()
    const cases: Array<[unknown, string]> = [
      [{ address: "xyz" }, "invalid_address"],
      [{}, "invalid_request"],
      [{ address: 42 }, "invalid_request"],
      [{ address: await scanned(), extra: true }, "invalid_request"],
      ["{\"address\":", "malformed_json"]
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
    const got = await tokenRisk(key, { address })
    expect([got.status, got.body.error.code]).toEqual([404, "not_scanned"])
    expect(got.body.error.message).toContain(`/api/risk-check/${address}/rescan`)
    expect(got.headers["x-quota-remaining"]).toBe("100")
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
    expect([(await tokenRisk(key, { address })).status, (await tokenRisk(key, { address })).status]).toEqual([200, 200])
    const over = await tokenRisk(key, { address })
    expect([over.status, over.body.error.code]).toEqual([429, "quota_exceeded"])
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0)
    expect(over.headers["x-quota-remaining"]).toBe("0")
    expect(await used(accountId)).toBe(2)
  })

  test("a plan change takes effect on the next request", async () => {
    const { accountId, key } = await newKey({ plan: "free" })
    const address = await scanned()
    await tokenRisk(key, { address })
    await run(Accounts.setPlan(accountId, { plan: "pro" }))
    const got = await tokenRisk(key, { address })
    expect(got.body.meta.quota).toEqual({ limit: 5_000, used: 2, remaining: 4_998 })
  })
})
