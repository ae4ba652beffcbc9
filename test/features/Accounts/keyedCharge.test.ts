import { describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Logger, LogLevel, Scope } from "effect"
import { Accounts, type PlanChange } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { postJson, read } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { settledAt } from "../../support/poll.ts"

// Keyed token risk behind the Bun server's fetch (Http/Server.ts), where a read's charge is a reservation,
// confirmed only once the answer is out (units still reserved do not count as charged).
const { run, runtime } = runtimeFor(sqlServices())
const serve = await Effect.runPromise(
  Scope.extend(
    makeServerFetch((await runtime.runtime()).context, Logger.minimumLogLevel(LogLevel.Warning)),
    Effect.runSync(Scope.make())
  ).pipe(
    // The deadline counts from arrival: 60 calls queued on one embedded connection may need more than 2 s.
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["REQUEST_TIMEOUT_MS", "9000"]])))
  )
)

const newKey = (change: PlanChange) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("held", change)
      const { key } = yield* Accounts.createKey(account.id, ["token:risk:read"], null)
      return { key, accountId: account.id }
    })
  )
const used = (accountId: string) => run(Effect.map(Quota.usedThisMonth(accountId), (usage) => usage.used))
const mint = newAddress()
await run(ScansRepo.record([decodeScan(cleanScan(mint))]))

const tokenRisk = async (key: string) =>
  read(
    await serve(
      new Request(
        "http://localhost/api/v1/token/risk",
        postJson({ address: mint }, { authorization: `Bearer ${key}` })
      ),
      "127.0.0.1"
    )
  )

/** `used` once the commits deferred behind the answers have run (polled, 3 s at most). */
const usedOnceSettled = (accountId: string, expected: number) => settledAt(() => used(accountId), expected)

describe(`keyed token risk behind the server on ${databaseKind}`, () => {
  test("a 200 is charged once, after its answer", async () => {
    const { key, accountId } = await newKey({ plan: "free" })
    const got = await tokenRisk(key)
    expect([got.status, got.body.meta?.quota]).toEqual([200, { limit: 100, used: 1, remaining: 99 }])
    expect(await usedOnceSettled(accountId, 1)).toBe(1)
    const again = await tokenRisk(key)
    expect([again.status, again.body.meta?.quota.used]).toEqual([200, 2])
    expect(await usedOnceSettled(accountId, 2)).toBe(2)
  })

  test("60 concurrent calls against a quota of 20: exactly 20 answered, each `used` once, 20 charged", async () => {
    const { key, accountId } = await newKey({ plan: "enterprise", monthlyQuota: 20, requestsPerMinute: 10_000 })
    const results = await Promise.all(Array.from({ length: 60 }, () => tokenRisk(key)))
    const answered = results.filter((result) => result.status === 200)
    const codes = new Set(
      results.filter((result) => result.status !== 200).map((result) => `${result.status} ${result.body.error.code}`)
    )
    expect({ answered: answered.length, refusals: [...codes] }).toEqual({
      answered: 20,
      refusals: ["429 quota_exceeded"]
    })
    expect(answered.map((result) => result.body.meta.quota.used).sort((a: number, b: number) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1)
    )
    expect(await usedOnceSettled(accountId, 20)).toBe(20)
  }, 30_000)

  test("the database failing during the charge is a 503 envelope, charges nothing, and the next call is served", async () => {
    const doomed = await newKey({ plan: "free" })
    const other = await newKey({ plan: "free" })
    // The charge's write fails as a connection lost mid-statement does (SQLSTATE 57P01), for one account.
    await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.zipRight(
          sql.unsafe(`create or replace function fail_charge() returns trigger language plpgsql as $$
          begin
            if new.account_id = '${doomed.accountId}' then raise exception 'terminating connection' using errcode = 'admin_shutdown'; end if;
            return new;
          end $$`),
          sql.unsafe(
            "create trigger fail_charge before insert or update on quota_usage for each row execute function fail_charge()"
          )
        )
      )
    )
    try {
      const failed = await tokenRisk(doomed.key)
      expect([failed.status, failed.body.error?.code, failed.headers["retry-after"]]).toEqual([
        503,
        "service_unavailable",
        "5"
      ])
      expect(failed.body.error.requestId).toBe(failed.headers["x-request-id"])
      expect(await used(doomed.accountId)).toBe(0)
      // The failed charge statement committed nothing, and its connection went back to the pool.
      const served = await tokenRisk(other.key)
      expect([served.status, served.body.meta?.quota.used]).toEqual([200, 1])
      expect(await usedOnceSettled(other.accountId, 1)).toBe(1)
    } finally {
      await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("drop trigger fail_charge on quota_usage")))
    }
    expect(await used(doomed.accountId)).toBe(0)
  })
})
