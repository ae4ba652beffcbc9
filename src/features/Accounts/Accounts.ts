import { SqlClient, type SqlError } from "@effect/sql"
import { Data, Deferred, Effect, FiberId, Layer, Option } from "effect"
import { displayPrefixOf, generateKey, hashKey, isWellFormedKey } from "./ApiKey.ts"
import type { Caller } from "./Caller.ts"
import { KEY_VERSION, KeyCacheSize, makeKeyCache } from "./KeyCache.ts"
import { limitsOf, type Limits, type PlanName } from "./Plan.ts"
import type { Scope } from "../../domain/Scope.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"

export interface Account {
  readonly id: string
  readonly name: string
  readonly plan: PlanName
  readonly limits: Limits
  readonly createdAt: Date
}

export interface KeyRecord {
  readonly id: string
  readonly accountId: string
  readonly displayPrefix: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: Date
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly lastUsedAt: Date | null
}

export type { Caller } from "./Caller.ts"

export interface PlanChange {
  readonly plan: PlanName
  readonly monthlyQuota?: number | undefined
  readonly requestsPerMinute?: number | undefined
}

class AccountNotFound extends Data.TaggedError("AccountNotFound")<{ readonly message: string }> {}
class KeyNotFound extends Data.TaggedError("KeyNotFound")<{ readonly message: string }> {}
export class InvalidPlan extends Data.TaggedError("InvalidPlan")<{ readonly message: string }> {}

const checkPlan = (change: PlanChange): Effect.Effect<PlanChange, InvalidPlan> => {
  const custom = change.monthlyQuota !== undefined || change.requestsPerMinute !== undefined
  if (change.plan === "enterprise" && (change.monthlyQuota === undefined || change.requestsPerMinute === undefined)) {
    return Effect.fail(
      new InvalidPlan({ message: "an enterprise plan needs --monthly-quota and --requests-per-minute" })
    )
  }
  if (change.plan !== "enterprise" && custom) {
    return Effect.fail(
      new InvalidPlan({ message: `the ${change.plan} plan has fixed limits; custom limits are for enterprise` })
    )
  }
  if ((change.monthlyQuota ?? 0) < 0 || (change.requestsPerMinute ?? 1) < 1) {
    return Effect.fail(new InvalidPlan({ message: "limits must be a quota >= 0 and >= 1 request per minute" }))
  }
  return Effect.succeed(change)
}

const isUsable = (key: { readonly revokedAt: Date | null; readonly expiresAt: Date | null }, now: number): boolean =>
  key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > now)

interface AccountRow {
  readonly id: string
  readonly name: string
  readonly plan: PlanName
  readonly monthly_quota: number | null
  readonly requests_per_minute: number | null
  readonly created_at: Date
}

interface KeyRow {
  readonly id: string
  readonly account_id: string
  readonly display_prefix: string
  readonly scopes: ReadonlyArray<Scope>
  readonly created_at: Date
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
  readonly last_used_at: Date | null
}

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  limits: limitsOf(row.plan, { monthlyQuota: row.monthly_quota, requestsPerMinute: row.requests_per_minute }),
  createdAt: new Date(row.created_at)
})

const toKey = (row: KeyRow): KeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  displayPrefix: row.display_prefix,
  scopes: row.scopes,
  createdAt: new Date(row.created_at),
  expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at)
})

const isUuid = (text: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)

/** The key lookup by hash (KEY_VERSION is what the key cache revalidates against). */
export const AUTHENTICATE = `
  select k.id as key_id, k.account_id, k.scopes, k.expires_at, k.revoked_at,
    a.plan, a.monthly_quota, a.requests_per_minute, ${KEY_VERSION} as version
  from api_keys k join accounts a on a.id = k.account_id
  where k.key_hash = $1`

// Accounts, plans and API keys. Keys are returned in clear only by createKey, once. Usable keys are
// cached (KeyCache.ts): a keyed call does not look its key up again while the cache holds it.
export class Accounts extends Effect.Service<Accounts>()("Accounts", {
  accessors: true,
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keys = yield* makeKeyCache(yield* Effect.orDie(KeyCacheSize))
    const lookups = new Map<string, Deferred.Deferred<Option.Option<Caller>, SqlError.SqlError>>()
    const notFound = (id: string) => new AccountNotFound({ message: `no account ${id}` })

    const find = (id: string): Effect.Effect<Account, AccountNotFound | SqlError.SqlError> => {
      if (!isUuid(id)) return Effect.fail(notFound(id))
      return sql<AccountRow>`select * from accounts where id = ${id}`.pipe(
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.fail(notFound(id)) : Effect.succeed(toAccount(rows[0]))
        )
      )
    }

    return repository({
      find,
      create: (name: string, change: PlanChange) =>
        checkPlan(change).pipe(
          Effect.flatMap(
            () =>
              sql<AccountRow>`
              insert into accounts (id, name, plan, monthly_quota, requests_per_minute)
              values (${crypto.randomUUID()}, ${name}, ${change.plan}, ${change.monthlyQuota ?? null}, ${change.requestsPerMinute ?? null})
              returning *`
          ),
          Effect.map((rows) => toAccount(rows[0]!))
        ),
      setPlan: (id: string, change: PlanChange) =>
        checkPlan(change).pipe(
          Effect.zipRight(find(id)),
          Effect.flatMap(
            () =>
              sql<AccountRow>`
              update accounts set plan = ${change.plan}, monthly_quota = ${change.monthlyQuota ?? null},
                requests_per_minute = ${change.requestsPerMinute ?? null}
              where id = ${id} returning *`
          ),
          Effect.map((rows) => toAccount(rows[0]!)),
          Effect.ensuring(Effect.sync(() => keys.forgetAccount(id)))
        ),
      createKey: (accountId: string, scopes: ReadonlyArray<Scope>, expiresAt: Date | null) =>
        Effect.gen(function* () {
          yield* find(accountId)
          const key = generateKey()
          const rows = yield* sql<KeyRow>`
            insert into api_keys (id, account_id, key_hash, display_prefix, scopes, expires_at)
            values (${crypto.randomUUID()}, ${accountId}, ${hashKey(key)}, ${displayPrefixOf(key)}, ${scopes}::text[], ${expiresAt})
            returning id, account_id, display_prefix, scopes, created_at, expires_at, revoked_at, last_used_at`
          return { key, record: toKey(rows[0]!) }
        }),
      listKeys: (accountId: string) =>
        find(accountId).pipe(
          Effect.zipRight(
            sql<KeyRow>`
              select id, account_id, display_prefix, scopes, created_at, expires_at, revoked_at, last_used_at
              from api_keys where account_id = ${accountId} order by created_at, id`
          ),
          Effect.map((rows) => rows.map(toKey))
        ),
      revokeKey: (keyIdOrPrefix: string) =>
        sql<KeyRow>`
          update api_keys set revoked_at = coalesce(revoked_at, now())
          where ${isUuid(keyIdOrPrefix) ? sql`id = ${keyIdOrPrefix}` : sql`display_prefix = ${keyIdOrPrefix}`}
          returning id, account_id, display_prefix, scopes, created_at, expires_at, revoked_at, last_used_at`.pipe(
          Effect.tap((rows) =>
            Effect.sync(() => {
              for (const row of rows) keys.forgetKey(row.id)
            })
          ),
          Effect.flatMap((rows) =>
            rows.length === 1
              ? Effect.succeed(toKey(rows[0]!))
              : Effect.fail(
                  new KeyNotFound({
                    message:
                      rows.length === 0
                        ? `no key ${keyIdOrPrefix}`
                        : `${keyIdOrPrefix} names several keys; use the key id`
                  })
                )
          )
        ),
      /** The caller of a key the cache holds (fresh, unexpired), without waiting; undefined: `authenticate` it. */
      cachedCaller: (key: string): Caller | undefined =>
        isWellFormedKey(key) ? keys.get(hashKey(key), Date.now()) : undefined,
      authenticate: (key: string): Effect.Effect<Option.Option<Caller>, SqlError.SqlError> => {
        if (!isWellFormedKey(key)) return Effect.succeed(Option.none())
        const hash = hashKey(key)
        const startedAt = Date.now()
        const cached = keys.get(hash, startedAt)
        if (cached !== undefined) return Effect.succeed(Option.some(cached))
        // Concurrent calls with one key not yet cached share one lookup (a busy client's first burst is one
        // statement, not one per call).
        const pending = lookups.get(hash)
        if (pending !== undefined) return Deferred.await(pending)
        const shared = Deferred.unsafeMake<Option.Option<Caller>, SqlError.SqlError>(FiberId.none)
        lookups.set(hash, shared)
        const generation = keys.generation()
        return sql
          .unsafe<KeyRow & AccountRow & { readonly key_id: string; readonly version: string }>(AUTHENTICATE, [hash])
          .pipe(
            Effect.map((rows) => {
              const row = rows[0]
              if (row === undefined) return Option.none()
              const expiresAt = row.expires_at === null ? null : new Date(row.expires_at)
              const revokedAt = row.revoked_at === null ? null : new Date(row.revoked_at)
              if (!isUsable({ expiresAt, revokedAt }, Date.now())) return Option.none()
              const caller: Caller = {
                keyId: row.key_id,
                accountId: row.account_id,
                scopes: row.scopes,
                limits: limitsOf(row.plan, {
                  monthlyQuota: row.monthly_quota,
                  requestsPerMinute: row.requests_per_minute
                })
              }
              keys.keep(
                hash,
                { caller, expiresAt: expiresAt?.getTime() ?? null, version: row.version },
                { startedAt, generation }
              )
              return Option.some(caller)
            }),
            Effect.onExit((exit) => {
              lookups.delete(hash)
              return Deferred.done(shared, exit)
            })
          )
      }
    })
  })
}) {}

/** In-memory double with the same behaviour, for tests of code above the repository. */
export const AccountsMemory = Layer.sync(Accounts, () => {
  const accounts = new Map<string, Account>()
  const keys = new Map<string, KeyRecord & { readonly hash: string }>()
  const find = (id: string) =>
    Effect.suspend(() => {
      const account = accounts.get(id)
      return account === undefined
        ? Effect.fail(new AccountNotFound({ message: `no account ${id}` }))
        : Effect.succeed(account)
    })
  const withoutHash = ({ hash: _hash, ...record }: KeyRecord & { readonly hash: string }): KeyRecord => record
  const stored = (change: PlanChange) =>
    limitsOf(change.plan, {
      monthlyQuota: change.monthlyQuota ?? null,
      requestsPerMinute: change.requestsPerMinute ?? null
    })
  return Accounts.make({
    find,
    create: (name, change) =>
      Effect.map(checkPlan(change), () => {
        const account = {
          id: crypto.randomUUID(),
          name,
          plan: change.plan,
          limits: stored(change),
          createdAt: new Date()
        }
        accounts.set(account.id, account)
        return account
      }),
    setPlan: (id, change) =>
      checkPlan(change).pipe(
        Effect.zipRight(find(id)),
        Effect.map((account) => {
          const next = { ...account, plan: change.plan, limits: stored(change) }
          accounts.set(id, next)
          return next
        })
      ),
    createKey: (accountId, scopes, expiresAt) =>
      Effect.map(find(accountId), () => {
        const key = generateKey()
        const record = {
          id: crypto.randomUUID(),
          accountId,
          displayPrefix: displayPrefixOf(key),
          scopes,
          createdAt: new Date(),
          expiresAt,
          revokedAt: null,
          lastUsedAt: null,
          hash: hashKey(key)
        }
        keys.set(record.id, record)
        return { key, record: withoutHash(record) }
      }),
    listKeys: (accountId) =>
      Effect.map(find(accountId), () =>
        [...keys.values()].filter((key) => key.accountId === accountId).map(withoutHash)
      ),
    cachedCaller: () => undefined,
    revokeKey: (keyIdOrPrefix) =>
      Effect.suspend(() => {
        const matches = [...keys.values()].filter(
          (key) => key.id === keyIdOrPrefix || key.displayPrefix === keyIdOrPrefix
        )
        const match = matches[0]
        if (match === undefined || matches.length > 1) {
          return Effect.fail(
            new KeyNotFound({
              message:
                matches.length === 0 ? `no key ${keyIdOrPrefix}` : `${keyIdOrPrefix} names several keys; use the key id`
            })
          )
        }
        const revoked = { ...match, revokedAt: match.revokedAt ?? new Date() }
        keys.set(match.id, revoked)
        return Effect.succeed(withoutHash(revoked))
      }),
    authenticate: (key) =>
      Effect.sync(() => {
        if (!isWellFormedKey(key)) return Option.none()
        const hash = hashKey(key)
        const record = [...keys.values()].find((candidate) => candidate.hash === hash)
        const account = record === undefined ? undefined : accounts.get(record.accountId)
        if (record === undefined || account === undefined || !isUsable(record, Date.now())) return Option.none()
        return Option.some({
          keyId: record.id,
          accountId: record.accountId,
          scopes: record.scopes,
          limits: account.limits
        })
      })
  })
})
