import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { Accounts, type Caller } from "../../../src/features/Accounts/Accounts.ts"
import { CurrentCaller } from "../../../src/features/Accounts/Auth.ts"
import { type Call, meteredAnswer } from "../../../src/features/Accounts/Metered.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { WatchesRepo } from "../../../src/features/Watches/WatchesRepo.ts"
import { Transactions } from "../../../src/platform/Sql/Transactions.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { newAddress } from "../../support/fixtures.ts"

// A metered write (Accounts/Metered.ts meteredWrite): its units are reserved in a short statement of their
// own, then confirmed by the write's transaction as it commits. Stored and charged together, or neither.
const { it } = runtimeFor(
  Layer.mergeAll(Accounts.Default, Quota.Default, Transactions.Default, WatchesRepo.Default).pipe(
    Layer.provideMerge(TestDatabase)
  )
)

const callerWith = (monthlyQuota: number) =>
  Effect.gen(function* () {
    const account = yield* Accounts.create("writer", { plan: "enterprise", monthlyQuota, requestsPerMinute: 10_000 })
    const { record } = yield* Accounts.createKey(account.id, ["watch:write"], null)
    return {
      keyId: record.id,
      accountId: account.id,
      scopes: record.scopes,
      limits: account.limits,
      scope: "watch:write" as const
    } satisfies Caller & { readonly scope: "watch:write" }
  })

class Refused extends Error {}

// The set-watch protocol (Watches/Http.ts): a place under the cap, then the watch stored in it as the write
// commits with its charge; `then` runs in that transaction after the insert.
const setWatch = (accountId: string, call: Call, limit = 100, then: Effect.Effect<void, Refused> = Effect.void) =>
  Effect.gen(function* () {
    const watches = yield* WatchesRepo
    const slot = yield* watches.reserve(accountId, limit)
    if (Option.isNone(slot)) return yield* Effect.fail(new Refused("cap"))
    const watch = {
      mint: newAddress(),
      label: null,
      rules: [{ metric: "liquidity_usd" as const, comparison: "lt" as const, threshold: 1 }],
      pollSeconds: 60,
      ttlSeconds: 3_600,
      notify: false
    }
    return yield* call
      .commit(Effect.zipLeft(Effect.flatMap(watches.store(slot.value, accountId, watch), Effect.orDie), then))
      .pipe(Effect.onError(() => watches.release(slot.value).pipe(Effect.ignore)))
  })

const write = meteredAnswer({ cost: 1, contractVersion: "test", write: "staged" })

/** Watches stored, units charged (confirmed), units still reserved. */
const ledger = (accountId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [stored] = yield* sql<{ count: string }>`select count(*) from watches where account_id = ${accountId}`
    const [reserved] = yield* sql<{ sum: string | null }>`
      select sum(cost) from quota_reservations where account_id = ${accountId}`
    const [slots] = yield* sql<{ count: string }>`select count(*) from watch_slots where account_id = ${accountId}`
    return {
      stored: Number(stored!.count),
      charged: (yield* Quota.usedThisMonth(accountId)).used,
      reserved: Number(reserved!.sum ?? 0),
      slots: Number(slots!.count)
    }
  })

describe(`a metered write on ${databaseKind}`, () => {
  it("a stored write is charged as it commits, with nothing left reserved", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(10)
      const answer = yield* write((call) => setWatch(caller.accountId, call)).pipe(
        Effect.provideService(CurrentCaller, caller)
      )
      expect(answer.meta.quota.used).toBe(1)
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 1, charged: 1, reserved: 0, slots: 0 })
    }))

  it("a write whose work fails after storing rolls back and is refunded", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(10)
      const exit = yield* write((call) =>
        setWatch(caller.accountId, call, 100, Effect.fail(new Refused("refused after the insert")))
      ).pipe(Effect.provideService(CurrentCaller, caller), Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 0, charged: 0, reserved: 0, slots: 0 })
      // The units came back: the whole quota can still be used.
      for (let i = 0; i < 10; i++)
        yield* write((call) => setWatch(caller.accountId, call)).pipe(Effect.provideService(CurrentCaller, caller))
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 10, charged: 10, reserved: 0, slots: 0 })
    }))

  it("a write whose COMMIT fails is refunded", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(10)
      const sql = yield* SqlClient.SqlClient
      // A deferred constraint trigger runs at COMMIT: it fails this account's watch inserts there.
      yield* sql.unsafe(`create or replace function failing_watch() returns trigger language plpgsql as $$
        begin
          if new.account_id = '${caller.accountId}' then raise exception 'refused at commit'; end if;
          return new;
        end $$`)
      yield* sql.unsafe(
        "create constraint trigger failing_watch after insert on watches deferrable initially deferred for each row execute function failing_watch()"
      )
      const exit = yield* write((call) => setWatch(caller.accountId, call)).pipe(
        Effect.provideService(CurrentCaller, caller),
        Effect.exit
      )
      yield* sql.unsafe("drop trigger failing_watch on watches")
      expect(Exit.isFailure(exit)).toBe(true)
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 0, charged: 0, reserved: 0, slots: 0 })
    }))

  it("the watch cap refuses once reached, and the refused calls are free", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(100)
      const outcomes = yield* Effect.all(
        Array.from({ length: 12 }, () =>
          write((call) => setWatch(caller.accountId, call, 5)).pipe(
            Effect.provideService(CurrentCaller, caller),
            Effect.exit
          )
        ),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter(Exit.isSuccess).length).toBe(5)
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 5, charged: 5, reserved: 0, slots: 0 })
    }))

  // A reservation that lapsed before its write could confirm it (its lease ended and a process's sweep refunded
  // it): the write must not commit uncharged.
  it("a write whose reservation lapsed before it could confirm it rolls back: a 503, neither stored nor charged", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(10)
      const quota = yield* Quota
      const sql = yield* SqlClient.SqlClient
      const lapse = Effect.zipRight(
        sql`update quota_reservations set expires_at = now() - interval '1 second' where account_id = ${caller.accountId}`,
        quota.refundExpired
      ).pipe(Effect.orDie)
      const lapsing = Quota.make({
        ...quota,
        chargeWrite: (who, cost) => Effect.tap(quota.chargeWrite(who, cost), () => lapse)
      })
      const exit = yield* write((call) => setWatch(caller.accountId, call)).pipe(
        Effect.provideService(CurrentCaller, caller),
        Effect.provideService(Quota, lapsing),
        Effect.exit
      )
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "stored").toContain("lapsed")
      expect(yield* ledger(caller.accountId)).toEqual({ stored: 0, charged: 0, reserved: 0, slots: 0 })
    }))
})
