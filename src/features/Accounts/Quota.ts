import { SqlClient, type SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Effect, Exit, Layer, Runtime, Scope } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { Caller } from "./Accounts.ts"
import { QuotaExceeded, RateLimited } from "./Errors.ts"
import type { Standing } from "./Standing.ts"

export type { Standing } from "./Standing.ts"

/** Cost units reserved for a call in progress; refunded if the call fails. */
export interface Reservation {
  readonly accountId: string
  readonly period: string
  readonly cost: number
}

/**
 * A charge made inside an open transaction: it counts once `commit` runs, and not at all after `rollback`.
 * `settle` does either without waiting, on the service's own fiber (for work deferred past the answer).
 */
export interface HeldCharge {
  readonly outcome: ChargeOutcome
  readonly commit: Effect.Effect<void>
  readonly rollback: Effect.Effect<void>
  readonly settle: (commit: boolean) => void
}

export type ChargeOutcome =
  | { readonly _tag: "Charged"; readonly standing: Standing; readonly reservation: Reservation }
  | { readonly _tag: "Refused"; readonly standing: Standing; readonly error: RateLimited | QuotaExceeded }

/** The 429 a standing calls for: the minute limit if it refused, else the monthly quota. */
export const refusal = (standing: Standing, rateAdmitted: boolean): RateLimited | QuotaExceeded =>
  rateAdmitted
    ? new QuotaExceeded({
        message: `Monthly quota of ${standing.quota.limit} cost units is used up (${standing.quota.used} used); it resets in ${standing.quota.resetSeconds} s.`
      })
    : new RateLimited({
        message: `More than ${standing.rate.limit} requests this minute; retry in ${standing.rate.resetSeconds} s.`
      })

interface ChargeRow {
  readonly rate_count: number | null
  readonly rate_current: number | null
  readonly used: string | null
  readonly used_current: string | null
  readonly period: string
  readonly rate_reset: number
  readonly quota_reset: number
}

// Per-minute limit (fixed one-minute windows, UTC) and monthly quota (calendar month, UTC). Both are
// checked and raised in one atomic statement, so any number of processes on one database agree.
// A call admitted by the minute limit counts toward it even if it then fails; quota is charged only
// for calls that succeed (the caller refunds the reservation otherwise).
// $1 account, $2 key, $3 requests per minute, $4 monthly quota, $5 cost.
export const CHARGE = `
  with clock as (
    select date_trunc('minute', now()) as minute,
           date_trunc('month', now() at time zone 'utc') as month_start
  ),
  rate as (
    insert into rate_windows as r (account_id, window_start, count)
    select $1::uuid, minute, 1 from clock
    on conflict (account_id) do update
      set window_start = excluded.window_start,
          count = case when r.window_start = excluded.window_start then r.count + 1 else 1 end
      where r.window_start <> excluded.window_start or r.count < $3::int
    returning count
  ),
  quota as (
    insert into quota_usage as u (account_id, period, used)
    select $1::uuid, month_start::date, $5::bigint from clock, rate
    where $5::bigint <= $4::bigint
    on conflict (account_id, period) do update set used = u.used + excluded.used
      where u.used + excluded.used <= $4::bigint
    returning used
  ),
  touched as (
    update api_keys set last_used_at = now()
    where id = $2::uuid and (last_used_at is null or last_used_at < now() - interval '10 seconds')
  )
  select
    (select count from rate) as rate_count,
    (select count from rate_windows, clock where account_id = $1::uuid and window_start = minute) as rate_current,
    (select used from quota) as used,
    (select used from quota_usage, clock where account_id = $1::uuid and period = month_start::date) as used_current,
    (select to_char(month_start, 'YYYY-MM-DD') from clock) as period,
    (select ceil(extract(epoch from minute + interval '1 minute' - now()))::int from clock) as rate_reset,
    (select ceil(extract(epoch from (month_start + interval '1 month') at time zone 'utc' - now()))::int from clock) as quota_reset`

export const chargeParameters = (caller: Caller, cost: number) =>
  [caller.accountId, caller.keyId, caller.limits.requestsPerMinute, caller.limits.monthlyQuota, cost] as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const literalOf = (value: string | number): string => {
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value)
  if (typeof value === "string" && UUID.test(value)) return `'${value}'`
  throw new TypeError(`not a charge parameter: ${String(value)}`)
}
const CHARGE_PARTS = CHARGE.split(/\$(\d)/)

/**
 * BEGIN and the charge as one simple-protocol query, so they cost one round trip: its parameters are
 * written in as literals (ids checked to be UUIDs, limits and cost to be integers).
 */
export const beginAndCharge = (caller: Caller, cost: number): string => {
  const parameters = chargeParameters(caller, cost)
  return `begin;${CHARGE_PARTS.map((part, i) => (i % 2 === 0 ? part : literalOf(parameters[Number(part) - 1]!))).join("")}`
}

const outcomeOf = (caller: Caller, cost: number, row: ChargeRow): ChargeOutcome => {
  const { monthlyQuota, requestsPerMinute } = caller.limits
  const rateCount = row.rate_count ?? row.rate_current ?? requestsPerMinute
  const used = Number(row.used ?? row.used_current ?? 0)
  const standing: Standing = {
    rate: {
      limit: requestsPerMinute,
      remaining: Math.max(0, requestsPerMinute - rateCount),
      resetSeconds: Math.max(1, row.rate_reset)
    },
    quota: {
      limit: monthlyQuota,
      used,
      remaining: Math.max(0, monthlyQuota - used),
      resetSeconds: Math.max(1, row.quota_reset)
    }
  }
  return row.used === null
    ? { _tag: "Refused", standing, error: refusal(standing, row.rate_count !== null) }
    : { _tag: "Charged", standing, reservation: { accountId: caller.accountId, period: row.period, cost } }
}

export class Quota extends Effect.Service<Quota>()("Quota", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Settlements run on the service's runtime: forking from a request's fiber would copy its fiber refs.
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const charge = (caller: Caller, cost: number) =>
      Effect.map(sql.unsafe<ChargeRow>(CHARGE, chargeParameters(caller, cost)), ([row]) =>
        outcomeOf(caller, cost, row!)
      )
    // The charge in a transaction left open on a connection of its own until the caller settles it: BEGIN
    // and the charge in one round trip, COMMIT or ROLLBACK in another. Refusals and failures roll back at
    // once, without the caller waiting. The connection goes back to the pool when the transaction ends,
    // whatever happens (interruption included), never inside it.
    const chargeHeld = (caller: Caller, cost: number): Effect.Effect<HeldCharge, SqlError.SqlError> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const scope = yield* Scope.make()
          const end = (statement: string) => (connection: Connection) =>
            connection.executeUnprepared(statement, [], undefined).pipe(
              Effect.asVoid,
              Effect.catchAllCause((cause) => Effect.logWarning(`quota ${statement.toLowerCase()} failed`, cause)),
              Effect.ensuring(Scope.close(scope, Exit.void))
            )
          const reserved = yield* Effect.exit(restore(Scope.extend(sql.reserve, scope)))
          if (Exit.isFailure(reserved)) {
            yield* Scope.close(scope, Exit.void)
            return yield* Effect.failCause(reserved.cause)
          }
          const connection = reserved.value
          const charged = yield* Effect.exit(
            restore(connection.executeUnprepared(beginAndCharge(caller, cost), [], undefined))
          )
          if (Exit.isFailure(charged)) {
            runFork(end("ROLLBACK")(connection))
            return yield* Effect.failCause(charged.cause)
          }
          // One result per statement: BEGIN's (no rows), then the charge's.
          const rows = charged.value[1] as ReadonlyArray<ChargeRow>
          const outcome = outcomeOf(caller, cost, rows[0]!)
          if (outcome._tag === "Refused") {
            runFork(end("ROLLBACK")(connection))
            return { outcome, commit: Effect.void, rollback: Effect.void, settle: () => {} }
          }
          const commit = end("COMMIT")(connection)
          const rollback = end("ROLLBACK")(connection)
          return { outcome, commit, rollback, settle: (committed) => void runFork(committed ? commit : rollback) }
        })
      )
    return repository({
      charge,
      chargeHeld,
      /** Cost units used by the account in the current month (UTC). */
      usedThisMonth: (accountId: string) =>
        sql<{ period: string; used: string | null }>`
          with clock as (select date_trunc('month', now() at time zone 'utc')::date as period)
          select to_char(clock.period, 'YYYY-MM-DD') as period,
                 (select used from quota_usage where account_id = ${accountId} and quota_usage.period = clock.period) as used
          from clock`.pipe(Effect.map(([row]) => ({ period: row!.period, used: Number(row!.used ?? 0) }))),
      refund: (reservation: Reservation) =>
        sql`update quota_usage set used = used - ${reservation.cost}
            where account_id = ${reservation.accountId} and period = ${reservation.period}::date`.pipe(Effect.asVoid)
    })
  })
}) {}

const MINUTE_MS = 60_000

const monthWindow = (now: number) => {
  const date = new Date(now)
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  const next = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
  return {
    period: new Date(start).toISOString().slice(0, 10),
    resetSeconds: Math.max(1, Math.ceil((next - now) / 1000))
  }
}

/** In-memory double with the same rules, for tests of code above the repository. */
export const QuotaMemory = Layer.sync(Quota, () => {
  const windows = new Map<string, { start: number; count: number }>()
  const usage = new Map<string, number>()
  const charge = (caller: Caller, cost: number) =>
    Effect.sync((): ChargeOutcome => {
      const now = Date.now()
      const { monthlyQuota, requestsPerMinute } = caller.limits
      const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS
      const window = windows.get(caller.accountId)
      const count = window !== undefined && window.start === minute ? window.count : 0
      const month = monthWindow(now)
      const usageKey = `${caller.accountId}/${month.period}`
      const used = usage.get(usageKey) ?? 0
      const rateAdmitted = count < requestsPerMinute
      const quotaAdmitted = rateAdmitted && used + cost <= monthlyQuota
      const rateCount = rateAdmitted ? count + 1 : count
      const usedAfter = quotaAdmitted ? used + cost : used
      if (rateAdmitted) windows.set(caller.accountId, { start: minute, count: rateCount })
      if (quotaAdmitted) usage.set(usageKey, usedAfter)
      const standing: Standing = {
        rate: {
          limit: requestsPerMinute,
          remaining: Math.max(0, requestsPerMinute - rateCount),
          resetSeconds: Math.max(1, Math.ceil((minute + MINUTE_MS - now) / 1000))
        },
        quota: {
          limit: monthlyQuota,
          used: usedAfter,
          remaining: Math.max(0, monthlyQuota - usedAfter),
          resetSeconds: month.resetSeconds
        }
      }
      return quotaAdmitted
        ? { _tag: "Charged", standing, reservation: { accountId: caller.accountId, period: month.period, cost } }
        : { _tag: "Refused", standing, error: refusal(standing, rateAdmitted) }
    })
  const refund = (reservation: Reservation) =>
    Effect.sync(() => {
      const key = `${reservation.accountId}/${reservation.period}`
      usage.set(key, Math.max(0, (usage.get(key) ?? 0) - reservation.cost))
    })
  return Quota.make({
    charge,
    // Charged at once; a rollback gives the units back.
    chargeHeld: (caller, cost) =>
      Effect.map(charge(caller, cost), (outcome) => {
        const rollback = outcome._tag === "Charged" ? refund(outcome.reservation) : Effect.void
        return {
          outcome,
          commit: Effect.void,
          rollback,
          settle: (commit) => (commit ? undefined : Effect.runSync(rollback))
        }
      }),
    usedThisMonth: (accountId) =>
      Effect.sync(() => {
        const { period } = monthWindow(Date.now())
        return { period, used: usage.get(`${accountId}/${period}`) ?? 0 }
      }),
    refund
  })
})
