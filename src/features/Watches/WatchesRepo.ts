import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { WatchRule } from "../../engines/DecisionRules/index.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import { WatchNotFound } from "./Errors.ts"

export interface Watch {
  readonly id: string
  readonly accountId: string
  readonly mint: string
  readonly label: string | null
  readonly rules: ReadonlyArray<WatchRule>
  readonly pollSeconds: number
  readonly createdAt: string
  readonly expiresAt: string
  /** Webhook alerts: every endpoint of the account (true), one endpoint (its id) or none (false). */
  readonly notify: boolean | string
}

interface NewWatch {
  readonly mint: string
  readonly label: string | null
  readonly rules: ReadonlyArray<WatchRule>
  readonly pollSeconds: number
  readonly ttlSeconds: number
  readonly notify: boolean | string
}

interface Row {
  readonly id: string
  readonly account_id: string
  readonly mint: string
  readonly label: string | null
  readonly rules: ReadonlyArray<WatchRule>
  readonly poll_seconds: number
  readonly created_at: Date
  readonly expires_at: Date
  readonly notify: boolean
  readonly notify_endpoint_id: string | null
}

const toWatch = (row: Row): Watch => ({
  id: row.id,
  accountId: row.account_id,
  mint: row.mint,
  label: row.label,
  rules: row.rules,
  pollSeconds: Number(row.poll_seconds),
  createdAt: new Date(row.created_at).toISOString(),
  expiresAt: new Date(row.expires_at).toISOString(),
  notify: row.notify ? (row.notify_endpoint_id ?? true) : false
})

const isUuid = (text: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)

// Watch contracts, owned by an account: another account's watch does not exist for the caller.
export class WatchesRepo extends Effect.Service<WatchesRepo>()("WatchesRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return repository({
      /**
       * Stores a watch unless the account already has `limit` unexpired ones (none then). The count and the
       * insert run under a lock of the account's watches, so concurrent calls on any process cannot pass it.
       */
      create: (accountId: string, watch: NewWatch, limit: number) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`select pg_advisory_xact_lock(hashtextextended(${`watches:${accountId}`}, 0))`
            const [active] = yield* sql<{ count: string }>`
            select count(*) from watches where account_id = ${accountId} and expires_at > now()`
            if (Number(active?.count ?? 0) >= limit) return Option.none<Watch>()
            const rows = yield* sql<Row>`
            insert into watches (id, account_id, mint, label, rules, poll_seconds, expires_at, notify, notify_endpoint_id)
            values (${crypto.randomUUID()}, ${accountId}, ${watch.mint}, ${watch.label}, ${JSON.stringify(watch.rules)}::jsonb,
              ${watch.pollSeconds}, now() + make_interval(secs => ${watch.ttlSeconds}), ${watch.notify !== false},
              ${typeof watch.notify === "string" ? watch.notify : null}::uuid)
            returning *`
            return Option.some(toWatch(rows[0]!))
          })
        ),
      find: (accountId: string, id: string): Effect.Effect<Option.Option<Watch>, SqlError.SqlError> =>
        isUuid(id)
          ? sql<Row>`select * from watches where id = ${id} and account_id = ${accountId}`.pipe(
              Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toWatch))
            )
          : Effect.succeedNone,
      /** Unexpired watches, newest first. */
      list: (accountId: string) =>
        sql<Row>`
          select * from watches where account_id = ${accountId} and expires_at > now()
          order by created_at desc, id limit 1000`.pipe(Effect.map((rows) => rows.map(toWatch))),
      remove: (accountId: string, id: string): Effect.Effect<boolean, SqlError.SqlError> =>
        isUuid(id)
          ? sql`delete from watches where id = ${id} and account_id = ${accountId} returning id`.pipe(
              Effect.map((rows) => rows.length > 0)
            )
          : Effect.succeed(false)
    })
  })
}) {}

/** In-memory double with the same rules, for tests of code above the repository. */
export const WatchesMemory = Layer.sync(WatchesRepo, () => {
  const watches = new Map<string, Watch>()
  const owned = (accountId: string, id: string) => {
    const watch = watches.get(id)
    return watch !== undefined && watch.accountId === accountId ? watch : undefined
  }
  const active = (accountId: string) =>
    [...watches.values()]
      .filter((watch) => watch.accountId === accountId && Date.parse(watch.expiresAt) > Date.now())
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  return WatchesRepo.make({
    create: (accountId, watch, limit) =>
      Effect.sync(() => {
        if (active(accountId).length >= limit) return Option.none()
        const now = Date.now()
        const created: Watch = {
          id: crypto.randomUUID(),
          accountId,
          mint: watch.mint,
          label: watch.label,
          rules: watch.rules,
          pollSeconds: watch.pollSeconds,
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + watch.ttlSeconds * 1000).toISOString(),
          notify: watch.notify
        }
        watches.set(created.id, created)
        return Option.some(created)
      }),
    find: (accountId, id) => Effect.sync(() => Option.fromNullable(owned(accountId, id))),
    list: (accountId) => Effect.sync(() => active(accountId)),
    remove: (accountId, id) => Effect.sync(() => owned(accountId, id) !== undefined && watches.delete(id))
  })
})

/** A watch of the calling account, or 404 watch_not_found (another account's watch does not exist for it). */
export const ownedWatch = (watches: WatchesRepo, accountId: string, id: string) =>
  Effect.flatMap(watches.find(accountId, id), (found) =>
    Option.isSome(found)
      ? Effect.succeed(found.value)
      : Effect.fail(new WatchNotFound({ message: `No watch ${id} for this account.` }))
  )

// Statements on `watches` that other features embed in their own statements (the scan queue, the watch-alert
// evaluator): Watches owns the table, so its SQL is written here.

/** A relation (mint, poll_seconds): each mint with a live watch and its shortest poll interval. */
export const watchPollsStatement = (sql: SqlClient.SqlClient) =>
  sql`
    select w.mint, min(w.poll_seconds) as poll_seconds from watches w
    where w.expires_at > now() group by w.mint`

/** A relation (id, account_id, mint, label, rules, notify_endpoint_id, created_at): the live watches that notify. */
export const notifyingWatchesStatement = (sql: SqlClient.SqlClient) =>
  sql`
    select w.id, w.account_id, w.mint, w.label, w.rules, w.notify_endpoint_id, w.created_at from watches w
    where w.notify and w.expires_at > now()`

/** A relation (mint): each mint with a live watch (the stream tracks them for state events). */
export const watchedMintsStatement = (sql: SqlClient.SqlClient) =>
  sql`select w.mint from watches w where w.expires_at > now()`
