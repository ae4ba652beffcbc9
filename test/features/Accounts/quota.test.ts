import { describe, expect } from "bun:test"
import { Accounts, AccountsMemory, type Caller } from "../../../src/features/Accounts/Accounts.ts"
import { Quota, QuotaMemory } from "../../../src/features/Accounts/Quota.ts"
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
