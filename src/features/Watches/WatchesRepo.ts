import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Exit, Layer, Option, Runtime } from "effect"
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

/** How long a reserved slot holds its place under the cap: far past the longest a write can take. */
const SLOT_LEASE_SECONDS = 60

// Watch contracts, owned by an account: another account's watch does not exist for the caller.
export class WatchesRepo extends Effect.Service<WatchesRepo>()("WatchesRepo", {
  accessors: true,
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // An account's concurrent reservations are made together: while its statement runs, the calls that
    // arrive wait in memory and go into the next one (as the quota's charges do, Accounts/Quota.ts).
    type Waiting = (exit: Exit.Exit<Option.Option<string>, SqlError.SqlError>) => void
    const batches = new Map<string, Array<Waiting>>()
    const drain = (batch: string, accountId: string, limit: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const waiting = batches.get(batch)!
        if (waiting.length === 0) {
          batches.delete(batch)
          return Effect.void
        }
        const calls = waiting.splice(0, 1_000)
        const ids = calls.map(() => crypto.randomUUID())
        return sql<{ granted: number }>`
          select reserve_watch_slots(${accountId}::uuid, ${limit}::integer, ${ids}::uuid[], ${SLOT_LEASE_SECONDS}::integer) as granted`.pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            Effect.sync(() => {
              if (Exit.isFailure(exit)) {
                for (const resume of calls) resume(Exit.failCause(exit.cause))
                return
              }
              const granted = Number(exit.value[0]!.granted)
              calls.forEach((resume, i) => {
                resume(Exit.succeed(i < granted ? Option.some(ids[i]!) : Option.none()))
              })
            })
          ),
          Effect.zipRight(drain(batch, accountId, limit))
        )
      })
    return repository({
      /**
       * Reserves a place under the cap for a watch about to be stored: its slot (sql/0017 `watch_slots`), or
       * none when the account's unexpired watches and reserved slots reach `limit`. Made in a short statement
       * that commits at once, so concurrent calls on any process cannot pass the limit and no lock is held
       * while a watch is written. The slot is taken back by `store` or given back by `release`; one left
       * behind (its process died) expires with its lease.
       */
      reserve: (accountId: string, limit: number): Effect.Effect<Option.Option<string>, SqlError.SqlError> =>
        Effect.async<Option.Option<string>, SqlError.SqlError>((resume) => {
          const batch = `${accountId}/${limit}`
          const waiting = batches.get(batch)
          if (waiting !== undefined) return void waiting.push(resume)
          batches.set(batch, [resume])
          runFork(drain(batch, accountId, limit))
        }),
      /**
       * Stores a watch in the place of its slot, in one statement (for the caller's transaction): none if the
       * slot is gone (its lease ended), and then nothing is stored.
       */
      store: (
        slot: string,
        accountId: string,
        watch: NewWatch
      ): Effect.Effect<Option.Option<Watch>, SqlError.SqlError> =>
        sql<Row>`
          with slot as (
            delete from watch_slots where id = ${slot}::uuid and account_id = ${accountId}::uuid
              and expires_at > clock_timestamp()
            returning account_id
          )
          insert into watches (id, account_id, mint, label, rules, poll_seconds, expires_at, notify, notify_endpoint_id)
          select ${crypto.randomUUID()}, slot.account_id, ${watch.mint}, ${watch.label}, ${JSON.stringify(watch.rules)}::jsonb,
            ${watch.pollSeconds}, now() + make_interval(secs => ${watch.ttlSeconds}), ${watch.notify !== false},
            ${typeof watch.notify === "string" ? watch.notify : null}::uuid
          from slot
          returning *`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toWatch))),
      /** Gives a slot back (its call failed or was refused): its place under the cap is free at once. */
      release: (slot: string) => sql`delete from watch_slots where id = ${slot}::uuid`.pipe(Effect.asVoid),
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
  const slots = new Map<string, string>()
  const owned = (accountId: string, id: string) => {
    const watch = watches.get(id)
    return watch !== undefined && watch.accountId === accountId ? watch : undefined
  }
  const active = (accountId: string) =>
    [...watches.values()]
      .filter((watch) => watch.accountId === accountId && Date.parse(watch.expiresAt) > Date.now())
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
  return WatchesRepo.make({
    reserve: (accountId, limit) =>
      Effect.sync(() => {
        const held = [...slots.values()].filter((owner) => owner === accountId).length
        if (active(accountId).length + held >= limit) return Option.none()
        const slot = crypto.randomUUID()
        slots.set(slot, accountId)
        return Option.some(slot)
      }),
    store: (slot, accountId, watch) =>
      Effect.sync(() => {
        if (slots.get(slot) !== accountId) return Option.none()
        slots.delete(slot)
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
    release: (slot) => Effect.sync(() => void slots.delete(slot)),
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
