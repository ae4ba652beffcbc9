import { describe, expect } from "bun:test"
import { Accounts, AccountsMemory, type Caller } from "../../../src/features/Accounts/Accounts.ts"
import { Quota, QuotaMemory } from "../../../src/features/Accounts/Quota.ts"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"

// The SQL quota and its in-memory double must agree, at the boundaries especially.
const suite = (name: string, layer: Layer.Layer<Accounts | Quota>) =>
  describe(name, () => {
    const { it } = runtimeFor(layer)

    const callerWith = (monthlyQuota: number, requestsPerMinute: number) =>
      Effect.gen(function* () {
        const account = yield* Accounts.create("quota", { plan: "enterprise", monthlyQuota, requestsPerMinute })
        const { record } = yield* Accounts.createKey(account.id, ["token:risk:read"], null)
        return {
          keyId: record.id,
          accountId: account.id,
          scopes: record.scopes,
          limits: account.limits
        } satisfies Caller
      })

    const outcomeOf = (caller: Caller, cost: number) =>
      Effect.map(Quota.charge(caller, cost), (outcome) =>
        outcome._tag === "Charged" ? `charged:${outcome.standing.quota.used}` : `refused:${outcome.error._tag}`
      )

    it("charges by cost up to the quota exactly, whatever the digits of cost and quota", () =>
      Effect.gen(function* () {
        const big = yield* callerWith(25_000, 100)
        expect(yield* outcomeOf(big, 3)).toBe("charged:3") // 3 <= 25000 (compared as numbers, not text)
        const small = yield* callerWith(5, 100)
        const outcomes = [
          yield* outcomeOf(small, 3),
          yield* outcomeOf(small, 3),
          yield* outcomeOf(small, 2),
          yield* outcomeOf(small, 1)
        ]
        expect(outcomes).toEqual(["charged:3", "refused:QuotaExceeded", "charged:5", "refused:QuotaExceeded"])
      }))

    it("a refund gives the units back", () =>
      Effect.gen(function* () {
        const caller = yield* callerWith(10, 100)
        const charged = yield* Quota.charge(caller, 4)
        if (charged._tag !== "Charged") throw new Error(`expected a charge, got ${charged._tag}`)
        yield* Quota.refund(charged.reservation)
        expect((yield* Quota.usedThisMonth(caller.accountId)).used).toBe(0)
      }))

    it("the minute limit refuses the call after the limit, without charging it", () =>
      Effect.gen(function* () {
        const caller = yield* callerWith(1_000, 2)
        const outcomes = [yield* outcomeOf(caller, 1), yield* outcomeOf(caller, 1), yield* outcomeOf(caller, 1)]
        // A minute boundary between the calls reopens the window; then all three pass.
        if (outcomes[2] !== "charged:3") expect(outcomes).toEqual(["charged:1", "charged:2", "refused:RateLimited"])
        expect((yield* Quota.usedThisMonth(caller.accountId)).used).toBe(outcomes[2] === "charged:3" ? 3 : 2)
      }))

    it("a free call (cost 0) counts toward the minute limit and is never refused by the quota", () =>
      Effect.gen(function* () {
        const caller = yield* callerWith(0, 100)
        expect([yield* outcomeOf(caller, 0), yield* outcomeOf(caller, 1)]).toEqual([
          "charged:0",
          "refused:QuotaExceeded"
        ])
      }))
  })

suite("in-memory quota", Layer.mergeAll(AccountsMemory, QuotaMemory))
suite(
  `SQL quota on ${databaseKind}`,
  Layer.mergeAll(Accounts.Default, Quota.Default).pipe(Layer.provideMerge(TestDatabase))
)

// What only the SQL quota does: a read's charge is a reservation (sql/0011_quota_reservations.sql).
describe(`reserved reads on ${databaseKind}`, () => {
  const { it } = runtimeFor(Layer.mergeAll(Accounts.Default, Quota.Default).pipe(Layer.provideMerge(TestDatabase)))
  const callerWith = (monthlyQuota: number) =>
    Effect.gen(function* () {
      const account = yield* Accounts.create("reserved", {
        plan: "enterprise",
        monthlyQuota,
        requestsPerMinute: 10_000
      })
      const { record } = yield* Accounts.createKey(account.id, ["token:risk:read"], null)
      return { keyId: record.id, accountId: account.id, scopes: record.scopes, limits: account.limits } satisfies Caller
    })
  const used = (caller: Caller) => Effect.map(Quota.usedThisMonth(caller.accountId), (usage) => usage.used)

  it("concurrent reads of one account: exactly the quota charged, each its own `used`, counted once confirmed", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(10)
      const quota = yield* Quota
      const charges = yield* Effect.all(
        Array.from({ length: 30 }, () => quota.chargeHeld(caller, 1)),
        { concurrency: "unbounded" }
      )
      const charged = charges.filter((charge) => charge.outcome._tag === "Charged")
      expect(charged.map((charge) => charge.outcome.standing.quota.used).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 10 }, (_, i) => i + 1)
      )
      expect(
        new Set(
          charges
            .filter((charge) => charge.outcome._tag === "Refused")
            .map((charge) => charge.outcome._tag === "Refused" && charge.outcome.error._tag)
        )
      ).toEqual(new Set(["QuotaExceeded"]))
      expect(yield* used(caller)).toBe(0) // reserved, not yet charged
      yield* Effect.forEach(charged.slice(0, 7), (charge) => charge.commit)
      yield* Effect.forEach(charged.slice(7), (charge) => charge.rollback)
      yield* Effect.forEach(charged.slice(7), (charge) => charge.rollback) // a second refund changes nothing
      expect(yield* used(caller)).toBe(7)
      const again = yield* quota.chargeHeld(caller, 3)
      expect(again.outcome._tag === "Charged" && again.outcome.standing.quota.used).toBe(10)
    }))

  it("a reservation left unsettled (its process killed) is not charged, and is refunded once its lease ends", () =>
    Effect.gen(function* () {
      const caller = yield* callerWith(2)
      const quota = yield* Quota
      const first = yield* quota.chargeHeld(caller, 2)
      expect(first.outcome._tag).toBe("Charged")
      expect((yield* quota.chargeHeld(caller, 1)).outcome._tag).toBe("Refused") // the units are held
      yield* quota.refundExpired // not expired yet: nothing refunded
      expect((yield* quota.chargeHeld(caller, 1)).outcome._tag).toBe("Refused")
      const sql = yield* SqlClient.SqlClient
      yield* sql`update quota_reservations set expires_at = now() - interval '1 second' where account_id = ${caller.accountId}`
      yield* quota.refundExpired
      expect(yield* used(caller)).toBe(0)
      const after = yield* quota.chargeHeld(caller, 2)
      expect(after.outcome._tag === "Charged" && after.outcome.standing.quota.used).toBe(2)
      yield* first.commit // too late: its units were refunded with its lease, so nothing more is charged
      yield* after.commit
      expect(yield* used(caller)).toBe(2)
    }))
})
