import { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Runtime, Schedule, type Scope } from "effect"
import type { Caller } from "./Caller.ts"

/**
 * A digest of everything that decides what a key may do: its scopes, expiry and revocation, and its
 * account's plan and limits. The lookup reads it with the key; the revalidation compares it.
 */
export const KEY_VERSION =
  "md5(row(k.scopes, k.expires_at, k.revoked_at, a.plan, a.monthly_quota, a.requests_per_minute)::text)"

/** The cached keys ($1, with the versions $2 they were cached at) that changed since: revoked, re-planned, gone. */
export const REVALIDATE_KEYS = `
  select c.id::text as key_id
  from unnest($1::uuid[], $2::text[]) as c(id, version)
  left join api_keys k on k.id = c.id
  left join accounts a on a.id = k.account_id
  where ${KEY_VERSION} is distinct from c.version`

/** A cached answer is trusted this long after the read that confirmed it started: revocation reaches every process within it. */
export const FRESH_MS = 1_000
/** How often the cached keys are revalidated, in one statement; half of FRESH_MS, so a busy key never goes stale. */
export const REVALIDATE_MS = 500

interface CachedKey {
  readonly caller: Caller
  readonly expiresAt: number | null
  readonly version: string
}

interface Entry extends CachedKey {
  /** When the newest read that confirmed this entry started (a lookup, or a revalidation). */
  checkedAt: number
}

export const KeyCacheSize = Config.integer("KEY_CACHE_SIZE").pipe(
  Config.validate({ message: "KEY_CACHE_SIZE must be >= 0 (0 turns the key cache off)", validation: (n) => n >= 0 }),
  Config.withDefault(10_000)
)

/**
 * The usable keys this process has seen, by key hash, so a keyed call needs no key lookup. Every
 * process revalidates its entries every REVALIDATE_MS in one statement and forgets the keys that changed,
 * and an entry not confirmed by a read started in the last FRESH_MS is not used: a key revoked, expired
 * or re-planned anywhere (another server, the CLI, plain SQL) is seen by every process within FRESH_MS,
 * even when a revalidation fails or is late. This process's own changes (Accounts.revokeKey, setPlan)
 * apply at once. A poll rather than LISTEN/NOTIFY: the bound then holds through a lost listener (sql-pg
 * 0.53 drops its listen connection's errors silently) and a change made by plain SQL, and the embedded
 * database, whose socket carries no notifications, works the same.
 */
export const makeKeyCache = (size: number): Effect.Effect<KeyCache, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const entries = new Map<string, Entry>()
    // Counts this process's own changes: a lookup that started before one is not kept.
    let generation = 0
    let revalidating = false
    let lastRevalidation = 0

    const revalidate = Effect.suspend(() => {
      const startedAt = Date.now()
      lastRevalidation = startedAt
      const held = [...entries]
      if (held.length === 0) return Effect.void
      return sql
        .unsafe<{ readonly key_id: string }>(REVALIDATE_KEYS, [
          held.map(([, entry]) => entry.caller.keyId),
          held.map(([, entry]) => entry.version)
        ])
        .pipe(
          // biome-ignore lint/suspicious/useIterableCallbackReturn: Effect.map, not Array#map; revalidation yields void
          Effect.map((rows) => {
            const changed = new Set(rows.map((row) => row.key_id))
            for (const [hash, entry] of held) {
              if (entries.get(hash) !== entry) continue
              if (changed.has(entry.caller.keyId)) entries.delete(hash)
              else entry.checkedAt = Math.max(entry.checkedAt, startedAt)
            }
          })
        )
    })

    // Started by a timer and, since timers can starve under a saturating request stream, by requests.
    const revalidateSoon = (now: number) => {
      if (revalidating || now - lastRevalidation < REVALIDATE_MS || entries.size === 0) return
      revalidating = true
      runFork(
        revalidate.pipe(
          Effect.catchAllCause((cause) =>
            Effect.logDebug("could not revalidate cached keys; they are looked up again after 1 s", cause)
          ),
          Effect.ensuring(
            Effect.sync(() => {
              revalidating = false
            })
          )
        )
      )
    }
    if (size > 0) {
      yield* Effect.forkScoped(
        Effect.repeat(
          Effect.sync(() => revalidateSoon(Date.now())),
          Schedule.spaced(Duration.millis(REVALIDATE_MS))
        )
      )
    }

    const forget = (matches: (entry: Entry) => boolean) => {
      generation++
      for (const [hash, entry] of entries) if (matches(entry)) entries.delete(hash)
    }

    return {
      get: (hash, now) => {
        revalidateSoon(now)
        const entry = entries.get(hash)
        if (entry === undefined) return undefined
        if (now - entry.checkedAt >= FRESH_MS || (entry.expiresAt !== null && entry.expiresAt <= now)) {
          entries.delete(hash)
          return undefined
        }
        return entry.caller
      },
      generation: () => generation,
      keep: (hash, key, lookup) => {
        if (size === 0 || lookup.generation !== generation) return
        entries.delete(hash)
        if (entries.size >= size) entries.delete(entries.keys().next().value!)
        entries.set(hash, { ...key, checkedAt: lookup.startedAt })
      },
      forgetKey: (keyId) => forget((entry) => entry.caller.keyId === keyId),
      forgetAccount: (accountId) => forget((entry) => entry.caller.accountId === accountId)
    }
  })

export interface KeyCache {
  /** The caller of a cached, fresh and unexpired key; undefined when it must be looked up. */
  readonly get: (hash: string, now: number) => Caller | undefined
  /** To be read before a lookup starts and given to `keep` with its result. */
  readonly generation: () => number
  /** Keeps a usable key read by a lookup that started at `startedAt`, unless this process changed keys meanwhile. */
  readonly keep: (
    hash: string,
    key: CachedKey,
    lookup: { readonly startedAt: number; readonly generation: number }
  ) => void
  readonly forgetKey: (keyId: string) => void
  readonly forgetAccount: (accountId: string) => void
}
