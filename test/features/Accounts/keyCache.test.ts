import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer, Option } from "effect"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { FRESH_MS } from "../../../src/features/Accounts/KeyCache.ts"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"

// Two service instances on one database, as two server processes have: each caches the keys it has seen,
// and a change made through the other one, or by plain SQL, reaches it within FRESH_MS (1 s).
const { it } = runtimeFor(TestDatabase)

const instance = Effect.map(Layer.build(Layer.fresh(Accounts.Default)), (context) => Context.get(context, Accounts))

const newKey = (accounts: Accounts) =>
  Effect.gen(function* () {
    const account = yield* accounts.create("cache", { plan: "free" })
    const { key, record } = yield* accounts.createKey(account.id, ["token:risk:read"], null)
    return { key, keyId: record.id, accountId: account.id }
  })

/** Answered from memory: an authenticate that needs the database cannot run synchronously. */
const fromMemory = (accounts: Accounts, key: string) => Exit.isSuccess(Effect.runSyncExit(accounts.authenticate(key)))

/**
 * Asks `accounts` every 20 ms, up to 3 s, until `changed` holds of its answer. Every answer to a call that
 * started FRESH_MS or more after `since` must already show the change; returns when the first one did.
 */
const untilChanged = (
  accounts: Accounts,
  key: string,
  since: number,
  changed: (caller: Option.Option<{ readonly limits: { readonly monthlyQuota: number } }>) => boolean
) =>
  Effect.gen(function* () {
    const stale: Array<number> = []
    while (Date.now() - since < 3_000) {
      const startedAt = Date.now()
      const answer = yield* accounts.authenticate(key)
      if (changed(answer)) return { seenAfterMs: startedAt - since, staleAfterFreshness: stale }
      if (startedAt - since >= FRESH_MS) stale.push(startedAt - since)
      yield* Effect.sleep(20)
    }
    return { seenAfterMs: undefined as number | undefined, staleAfterFreshness: stale }
  })

describe(`key cache across two service instances on ${databaseKind}`, () => {
  it("a key used once is answered from memory after that", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const accounts = yield* instance
        const { key } = yield* newKey(accounts)
        expect(fromMemory(accounts, key)).toBe(false)
        expect(Option.isSome(yield* accounts.authenticate(key))).toBe(true)
        expect(fromMemory(accounts, key)).toBe(true)
      })
    ))

  it(
    "a key revoked through the other instance is refused within 1 s",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const [one, two] = [yield* instance, yield* instance]
          const { key, keyId } = yield* newKey(one)
          expect(Option.isSome(yield* two.authenticate(key))).toBe(true)
          yield* one.revokeKey(keyId)
          const revokedAt = Date.now()
          expect(Option.isNone(yield* one.authenticate(key))).toBe(true) // the instance that revoked: at once
          const seen = yield* untilChanged(two, key, revokedAt, Option.isNone)
          console.log(`revocation seen by the other instance after ${seen.seenAfterMs} ms`)
          expect(seen).toEqual({ seenAfterMs: expect.any(Number), staleAfterFreshness: [] })
        })
      ),
    10_000
  )

  it(
    "a plan changed by plain SQL reaches both instances within 1 s",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const [one, two] = [yield* instance, yield* instance]
          const { key, accountId } = yield* newKey(one)
          expect(Option.isSome(yield* one.authenticate(key))).toBe(true)
          expect(Option.isSome(yield* two.authenticate(key))).toBe(true)
          const sql = yield* SqlClient.SqlClient
          yield* sql`update accounts set plan = 'pro' where id = ${accountId}`
          const changedAt = Date.now()
          const isPro = (caller: Option.Option<{ readonly limits: { readonly monthlyQuota: number } }>) =>
            Option.isSome(caller) && caller.value.limits.monthlyQuota === 5_000
          for (const accounts of [one, two]) {
            const seen = yield* untilChanged(accounts, key, changedAt, isPro)
            expect(seen).toEqual({ seenAfterMs: expect.any(Number), staleAfterFreshness: [] })
          }
        })
      ),
    10_000
  )

  it(
    "a key in use stays in memory past FRESH_MS: revalidation confirms it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const accounts = yield* instance
          const { key } = yield* newKey(accounts)
          yield* accounts.authenticate(key)
          const cachedAt = Date.now()
          // Hits only (a miss would start a lookup that caches the key again): every 100 ms, then once past FRESH_MS.
          const hits: Array<boolean> = []
          while (Date.now() - cachedAt < FRESH_MS + 100) {
            yield* Effect.sleep(100)
            hits.push(fromMemory(accounts, key))
          }
          expect(hits.every(Boolean) ? "all from memory" : hits.join(",")).toBe("all from memory")
        })
      ),
    10_000
  )
})
