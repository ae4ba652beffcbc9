import { describe, expect, test } from "bun:test"
import { sqlServices } from "../../support/layers.ts"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { PublicTraffic, makeWindows } from "../../../src/features/Accounts/PublicTraffic.ts"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { newAddress } from "../../support/fixtures.ts"
import { read, testApp } from "../../support/http.ts"

// The open routes: a per-client limit kept in memory, and X-Api-Key attribution that never fails a call.
const LIMIT = 3
const services = sqlServices({ perMinute: LIMIT })
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const check = async (headers: Record<string, string> = {}) =>
  read(await app(`/api/risk-check/${newAddress()}`, { headers }))

describe("per-client windows", () => {
  test("admit up to the limit in a minute, then refuse until the minute turns", () => {
    const admit = makeWindows(2)
    const start = Date.parse("2026-11-22T10:00:10Z")
    const decisions = [0, 1, 2].map((i) => admit("a", start + i).admitted)
    expect([...decisions, admit("b", start).admitted, admit("a", start + 50_000).admitted]).toEqual([
      true,
      true,
      false,
      true,
      true
    ])
  })

  test("0 turns the limit off", () => {
    const admit = makeWindows(0)
    expect(Array.from({ length: 100 }, () => admit("a", 0).admitted).every(Boolean)).toBe(true)
  })
})

describe(`public route traffic on ${databaseKind}`, () => {
  test("a missing or bad X-Api-Key never fails the call (the first requests of this file: the window is fresh)", async () => {
    for (const key of ["", "garbage", `rsk_${"1".repeat(38)}`]) {
      const got = await read(
        await app(`/api/risk-check/${newAddress()}`, { headers: { "x-api-key": key, "x-forwarded-for": key } })
      )
      expect([got.status, got.body.verdict]).toEqual([200, "unknown"])
    }
  })

  test("a client over the per-minute limit gets 429 rate_limited with Retry-After and rate headers", async () => {
    const headers = { "x-forwarded-for": "ignored-unless-TRUST_PROXY" }
    const statuses: Array<number> = []
    let last = await check(headers)
    statuses.push(last.status)
    for (let i = 0; i < LIMIT; i++) {
      last = await check(headers)
      statuses.push(last.status)
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1)
    const refused = statuses.at(-1) === 429 ? last : await check(headers)
    expect([refused.status, refused.body.error.code, refused.headers["x-ratelimit-limit"]]).toEqual([
      429,
      "rate_limited",
      "3"
    ])
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
  })

  test("a valid X-Api-Key gets its account's own window and is counted, never charged", async () => {
    const { accountId, key } = await run(
      Effect.gen(function* () {
        const account = yield* Accounts.create("attributed", { plan: "free" })
        return { accountId: account.id, key: (yield* Accounts.createKey(account.id, ["token:risk:read"], null)).key }
      })
    )
    const got = await check({ "x-api-key": key })
    expect([got.status, got.headers["x-ratelimit-remaining"]]).toEqual([200, "2"])
    const counted = await run(
      Effect.gen(function* () {
        yield* Effect.flatMap(PublicTraffic, (traffic) => traffic.flush)
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ requests: string }>`select requests from public_usage where account_id = ${accountId}`
      })
    )
    expect(counted.map((row) => Number(row.requests))).toEqual([1])
  })
})
