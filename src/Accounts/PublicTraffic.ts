import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Option, Schedule } from "effect"
import { PublicTrafficConfig } from "../Http/Config.ts"
import { hashKey, isWellFormedKey } from "./ApiKey.ts"
import { Accounts } from "./Accounts.ts"

export interface RateDecision {
  readonly admitted: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

// The open risk-check routes: a per-client limit per minute and attribution of traffic to the account
// of an optional X-Api-Key. Both stay off the database on the hot path: windows live in this process,
// key lookups are cached for a minute, and attributed counts are flushed in the background.
export class PublicTraffic extends Effect.Tag("PublicTraffic")<PublicTraffic, {
  readonly admit: (client: string) => Effect.Effect<RateDecision>
  /** The account of a valid key (its traffic is counted, never charged); none for anything else. */
  readonly attribute: (apiKey: string) => Effect.Effect<Option.Option<string>>
  /** `admit`, at once: for the risk-check fast path. */
  readonly admitNow: (client: string) => RateDecision
  /** `attribute` when it needs no database read; undefined when the key must be looked up first. */
  readonly attributeNow: (apiKey: string) => Option.Option<string> | undefined
  /** Takes back one `admitNow` (and its attribution) for a call handed on to the path that admits it again. */
  readonly releaseNow: (client: string, accountId: string | undefined) => void
  /** Write the attributed counts now (also done every 5 s and at shutdown). */
  readonly flush: Effect.Effect<void>
}>() {}

const MINUTE_MS = 60_000
const KEY_CACHE_MS = 60_000
const MAX_CACHED_KEYS = 10_000

/** Fixed one-minute windows per client, forgotten when the minute turns (memory stays bounded). */
export const makeWindows = (limit: number) => {
  let minute = 0
  let counts = new Map<string, number>()
  /** Gives back an admission of this minute (a call handed to another path, which admits it again). */
  const release = (client: string, now: number) => {
    const used = counts.get(client)
    if (Math.floor(now / MINUTE_MS) * MINUTE_MS === minute && used !== undefined && used > 0) counts.set(client, used - 1)
  }
  return Object.assign((client: string, now: number): RateDecision => {
    const current = Math.floor(now / MINUTE_MS) * MINUTE_MS
    if (current !== minute) {
      minute = current
      counts = new Map()
    }
    const used = counts.get(client) ?? 0
    const admitted = limit === 0 || used < limit
    if (admitted) counts.set(client, used + 1)
    return {
      admitted,
      limit,
      remaining: limit === 0 ? 0 : Math.max(0, limit - used - (admitted ? 1 : 0)),
      resetSeconds: Math.max(1, Math.ceil((current + MINUTE_MS - now) / 1000))
    }
  }, { release })
}

export const makePublicTraffic = (config: { readonly perMinute: number }) =>
  Layer.scoped(
    PublicTraffic,
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const sql = yield* SqlClient.SqlClient
      const windows = makeWindows(config.perMinute)
      const keyCache = new Map<string, { readonly accountId: string | null; readonly until: number }>()
      let pending = new Map<string, number>()

      const flush = Effect.suspend(() => {
        if (pending.size === 0) return Effect.void
        const batch = pending
        pending = new Map()
        return sql`
          insert into public_usage as p (account_id, period, requests)
          select account_id, date_trunc('month', now() at time zone 'utc')::date, requests
          from unnest(${[...batch.keys()]}::uuid[], ${[...batch.values()]}::bigint[]) as t(account_id, requests)
          on conflict (account_id, period) do update set requests = p.requests + excluded.requests`.pipe(
          Effect.asVoid,
          Effect.catchAllCause((cause) =>
            Effect.zipRight(
              Effect.sync(() => {
                for (const [account, count] of batch) pending.set(account, (pending.get(account) ?? 0) + count)
              }),
              Effect.logWarning("public usage flush failed; will retry", cause)
            )
          )
        )
      })
      yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.seconds(5))))
      yield* Effect.addFinalizer(() => flush)

      const accountOf = (apiKey: string, now: number) => {
        const hash = hashKey(apiKey)
        const cached = keyCache.get(hash)
        if (cached !== undefined && cached.until > now) return Effect.succeed(cached.accountId)
        return accounts.authenticate(apiKey).pipe(
          Effect.map((caller) => Option.getOrNull(Option.map(caller, (found) => found.accountId))),
          Effect.tap((accountId) =>
            Effect.sync(() => {
              if (keyCache.size >= MAX_CACHED_KEYS) keyCache.clear()
              keyCache.set(hash, { accountId, until: now + KEY_CACHE_MS })
            })
          ),
          Effect.orElseSucceed(() => null) // an optional key never fails the call
        )
      }

      const count = (accountId: string | null) => {
        if (accountId !== null) pending.set(accountId, (pending.get(accountId) ?? 0) + 1)
        return Option.fromNullable(accountId)
      }

      return {
        flush,
        admit: (client) => Effect.sync(() => windows(client, Date.now())),
        admitNow: (client) => windows(client, Date.now()),
        releaseNow: (client, accountId) => {
          windows.release(client, Date.now())
          const attributed = accountId === undefined ? undefined : pending.get(accountId)
          if (accountId !== undefined && attributed !== undefined) {
            if (attributed > 1) pending.set(accountId, attributed - 1)
            else pending.delete(accountId)
          }
        },
        attributeNow: (apiKey) => {
          if (!isWellFormedKey(apiKey)) return Option.none()
          const cached = keyCache.get(hashKey(apiKey))
          return cached === undefined || cached.until <= Date.now() ? undefined : count(cached.accountId)
        },
        attribute: (apiKey) =>
          isWellFormedKey(apiKey)
            ? Effect.flatMap(accountOf(apiKey, Date.now()), (accountId) => Effect.sync(() => count(accountId)))
            : Effect.succeedNone
      }
    })
  )

export const PublicTrafficLive = Layer.unwrapEffect(Effect.map(PublicTrafficConfig, makePublicTraffic))

/** Admits everything and attributes nothing: for tests of routes that are not about traffic. */
export const PublicTrafficUnlimited = Layer.succeed(PublicTraffic, {
  admit: () => Effect.succeed({ admitted: true, limit: 0, remaining: 0, resetSeconds: 60 }),
  attribute: () => Effect.succeedNone,
  admitNow: () => ({ admitted: true, limit: 0, remaining: 0, resetSeconds: 60 }),
  releaseNow: () => {},
  attributeNow: () => Option.none(),
  flush: Effect.void
})
