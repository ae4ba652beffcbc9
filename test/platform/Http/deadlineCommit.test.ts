import { afterAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, type Context, Effect, Logger, LogLevel, Scope } from "effect"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import type { AppServices } from "../../../src/platform/Http/App.ts"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { newAddress } from "../../support/fixtures.ts"
import { sqlServices } from "../../support/layers.ts"

// A keyed write and REQUEST_TIMEOUT_MS, decided one way or the other, never both: either the deadline
// answered 503 and nothing was stored or charged, or the write committed and its own answer (201) went
// out, however late. Triggers make the database slow at a chosen moment: before the COMMIT (a row trigger)
// or during it (a deferred constraint trigger, which runs at COMMIT).

const { run, runtime } = runtimeFor(sqlServices())
const services: Context.Context<AppServices> = (await runtime.runtime()).context
const scope = Effect.runSync(Scope.make())
const served = await Effect.runPromise(
  Scope.extend(makeServerFetch(services, Logger.minimumLogLevel(LogLevel.Warning)), scope).pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["REQUEST_TIMEOUT_MS", "150"]])))
  )
)
afterAll(() => Effect.runPromise(Scope.close(scope, Effect.void as never)))

const writer = () =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("deadline", {
        plan: "enterprise",
        monthlyQuota: 1_000,
        requestsPerMinute: 10_000
      })
      const { key } = yield* Accounts.createKey(account.id, ["watch:write"], null)
      return { key, accountId: account.id }
    })
  )

// With a declared length, or without one (read and measured first, as a chunked body is).
const BODIES = ["declared", "chunked"] as const
const setWatch = (key: string, body: (typeof BODIES)[number]) => {
  const text = JSON.stringify({
    mint: newAddress(),
    rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1 }]
  })
  const length: Record<string, string> =
    body === "declared" ? { "content-length": String(Buffer.byteLength(text)) } : {}
  return served(
    new Request("http://localhost/api/v1/decision/set-watch", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...length },
      body: text
    }),
    "10.0.0.1"
  )
}

const storedAndCharged = (accountId: string) =>
  run(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ count: string }>`select count(*) as count from watches where account_id = ${accountId}`
      const usage = yield* Quota.usedThisMonth(accountId)
      return { stored: Number(row!.count), charged: usage.used }
    })
  )

/** Sleeps `seconds` for this account's watch inserts, before the COMMIT (`row`) or in it (`commit`). */
const withSlowWatches = async (
  accountId: string,
  when: "row" | "commit",
  seconds: number,
  use: () => Promise<void>
) => {
  await run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.zipRight(
        sql.unsafe(`create or replace function slow_watch() returns trigger language plpgsql as $$
        begin
          if new.account_id = '${accountId}' then perform pg_sleep(${seconds}); end if;
          return new;
        end $$`),
        sql.unsafe(
          when === "row"
            ? "create trigger slow_watch before insert on watches for each row execute function slow_watch()"
            : "create constraint trigger slow_watch after insert on watches deferrable initially deferred for each row execute function slow_watch()"
        )
      )
    )
  )
  try {
    await use()
  } finally {
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe("drop trigger slow_watch on watches")))
  }
}

describe(`a keyed write and the request deadline, on ${databaseKind}`, () => {
  test.each(BODIES)(
    "slow before its COMMIT (%s body): the 503 envelope, and nothing stored or charged",
    async (body) => {
      const { accountId, key } = await writer()
      await withSlowWatches(accountId, "row", 0.5, async () => {
        const response = await setWatch(key, body)
        expect(response.status).toBe(503)
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("service_unavailable")
        await Bun.sleep(700) // the write ends behind the 503 and rolls back
      })
      expect(await storedAndCharged(accountId)).toEqual({ stored: 0, charged: 0 })
    }
  )

  test.each(BODIES)(
    "the deadline passing during its COMMIT (%s body): the write's own 201, stored and charged once",
    async (body) => {
      const { accountId, key } = await writer()
      await withSlowWatches(accountId, "commit", 0.5, async () => {
        const started = performance.now()
        const response = await setWatch(key, body)
        expect(response.status).toBe(201)
        expect(performance.now() - started).toBeGreaterThan(400) // answered after the COMMIT, past the deadline
      })
      expect(await storedAndCharged(accountId)).toEqual({ stored: 1, charged: 1 })
    }
  )
})
