import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Exit, Layer, Runtime, Schedule } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { Caller } from "./Accounts.ts"
import { QuotaExceeded, RateLimited } from "./Errors.ts"
import {
  CHARGE,
  CHARGE_CALLS,
  CHARGE_CALLS_EACH,
  CONFIRM,
  CONFIRM_WRITE,
  REFUND_EXPIRED,
  REFUND_RESERVED,
  chargeCallsEachParameters,
  chargeCallsParameters,
  chargeParameters
} from "./QuotaSql.ts"
import type { Standing } from "./Standing.ts"

export type { Standing } from "./Standing.ts"

/** Cost units reserved for a call in progress; refunded if the call fails. */
export interface Reservation {
  readonly accountId: string
  readonly period: string
  readonly cost: number
}

/**
 * A keyed call's charge, made and committed at once as a reservation (`quota_reservations`), so no lock is
 * held while the answer is written: `commit` confirms it (the units stay charged), `rollback` refunds it.
 * `settle` does either without waiting, on the service's own fiber (for work deferred past the answer).
 * A write confirms with `confirmIn`, inside its own transaction, so its units stay charged exactly when it
 * commits. A reservation neither confirmed nor refunded (its process died) is refunded once its lease expires.
 */
export interface HeldCharge {
  readonly outcome: ChargeOutcome
  readonly commit: Effect.Effect<void>
  readonly rollback: Effect.Effect<void>
  readonly settle: (commit: boolean) => void
  /** Confirms inside the running transaction: false if the reservation is gone (lease ended, refunded). */
  readonly confirmIn: Effect.Effect<boolean, SqlError.SqlError>
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

/** How often each server process refunds expired reservations. */
const SWEEP_INTERVAL = "10 seconds"

interface ChargeCallsRow {
  readonly rate_admitted: number
  readonly admitted: number
  readonly rate_count: number
  readonly used: string
  readonly period: string
  readonly rate_reset: number
  readonly quota_reset: number
}

/** The outcome of each of `calls` reads charged together, in order: the first `admitted` charged. */
const outcomesOf = (caller: Caller, cost: number, calls: number, row: ChargeCallsRow): ReadonlyArray<ChargeOutcome> => {
  const { monthlyQuota, requestsPerMinute } = caller.limits
  const usedAfter = Number(row.used)
  const usedBefore = usedAfter - row.admitted * cost
  const countedBefore = row.rate_count - row.rate_admitted
  const standingOf = (counted: number, used: number): Standing => ({
    rate: {
      limit: requestsPerMinute,
      remaining: Math.max(0, requestsPerMinute - counted),
      resetSeconds: Math.max(1, row.rate_reset)
    },
    quota: {
      limit: monthlyQuota,
      used,
      remaining: Math.max(0, monthlyQuota - used),
      resetSeconds: Math.max(1, row.quota_reset)
    }
  })
  return Array.from({ length: calls }, (_, i): ChargeOutcome => {
    if (i < row.admitted) {
      return {
        _tag: "Charged",
        standing: standingOf(countedBefore + i + 1, usedBefore + (i + 1) * cost),
        reservation: { accountId: caller.accountId, period: row.period, cost }
      }
    }
    const rateAdmitted = i < row.rate_admitted
    const standing = standingOf(rateAdmitted ? countedBefore + i + 1 : row.rate_count, usedAfter)
    return { _tag: "Refused", standing, error: refusal(standing, rateAdmitted) }
  })
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
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Settlements run on the service's runtime: forking from a request's fiber would copy its fiber refs.
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const charge = (caller: Caller, cost: number) =>
      Effect.map(sql.unsafe<ChargeRow>(CHARGE, chargeParameters(caller, cost)), ([row]) =>
        outcomeOf(caller, cost, row!)
      )
    const warn = (what: string) => Effect.catchAllCause((cause) => Effect.logWarning(`quota ${what} failed`, cause))

    // Confirmations wait for one another: while one statement runs, the next ones gather into one. A read
    // whose process is killed before its confirmation ran is refunded at its lease's end: answered, free.
    let confirming: Array<{ readonly id: string; readonly units: number }> = []
    let flushing = false
    const flush: Effect.Effect<void> = Effect.suspend(() => {
      const settled = confirming
      confirming = []
      if (settled.length === 0) {
        flushing = false
        return Effect.void
      }
      return sql
        .unsafe(CONFIRM, [settled.map((s) => s.id), settled.map((s) => s.units)])
        .pipe(warn("confirmation"), Effect.zipRight(flush))
    })
    const confirmLater = (id: string, units: number) => {
      confirming.push({ id, units })
      if (flushing) return
      flushing = true
      runFork(flush)
    }

    // Refunds wait for one another too (a burst of refused writes refunds at once): the caller waits for its
    // statement, which gives back many calls' units in one.
    let refunding: Array<{ readonly id: string; readonly units: number; readonly done: () => void }> = []
    let refundsRunning = false
    const flushRefunds: Effect.Effect<void> = Effect.suspend(() => {
      const settled = refunding
      refunding = []
      if (settled.length === 0) {
        refundsRunning = false
        return Effect.void
      }
      return sql.unsafe(REFUND_RESERVED, [settled.map((s) => s.id), settled.map((s) => s.units)]).pipe(
        warn("refund"),
        Effect.ensuring(
          Effect.sync(() => {
            for (const s of settled) s.done()
          })
        ),
        Effect.zipRight(flushRefunds)
      )
    })
    const refundLater = (id: string, units: number): Effect.Effect<void> =>
      Effect.async<void>((resume) => {
        refunding.push({ id, units, done: () => resume(Effect.void) })
        if (refundsRunning) return
        refundsRunning = true
        runFork(flushRefunds)
      })

    // An account's concurrent reads are charged together: while its statement runs, the reads that arrive
    // wait in memory (not for a pooled connection) and are charged in the next one, so one busy account
    // costs one statement at a time per process, however many calls it has in flight, and holds its rows
    // only for that statement. The statement is never interrupted (a cancelled statement can hold its
    // connection while the driver waits for another to cancel it); a reservation left behind by a caller
    // interrupted while it waited expires and is refunded.
    type Waiting = { readonly resume: (exit: Exit.Exit<HeldCharge, SqlError.SqlError>) => void }
    const batches = new Map<string, Array<Waiting>>()
    const heldOf = (outcome: ChargeOutcome, id: string, cost: number): HeldCharge => {
      // Free calls (cost 0) only count toward the minute: nothing reserved, nothing to settle.
      if (outcome._tag === "Refused" || cost === 0)
        return {
          outcome,
          commit: Effect.void,
          rollback: Effect.void,
          settle: () => {},
          confirmIn: Effect.succeed(true)
        }
      const commit = sql.unsafe(CONFIRM, [[id], [cost]]).pipe(Effect.asVoid, warn("confirmation"))
      const rollback = refundLater(id, cost)
      return {
        outcome,
        commit,
        rollback,
        settle: (committed) => (committed ? confirmLater(id, cost) : void runFork(rollback)),
        confirmIn: Effect.map(sql.unsafe(CONFIRM_WRITE, [id, cost]), (rows) => rows.length === 1)
      }
    }
    // A write's batch reserves one row per call (`perCall`): each write confirms its own row in its own
    // transaction, so one write's confirmation never waits for another's COMMIT.
    const drain = (batch: string, caller: Caller, cost: number, perCall: boolean): Effect.Effect<void> =>
      Effect.suspend(() => {
        const waiting = batches.get(batch)!
        if (waiting.length === 0) {
          batches.delete(batch)
          return Effect.void
        }
        const calls = waiting.splice(0, 1_000)
        const ids = perCall ? calls.map(() => crypto.randomUUID()) : [crypto.randomUUID()]
        const statement = perCall
          ? sql.unsafe<ChargeCallsRow>(CHARGE_CALLS_EACH, chargeCallsEachParameters(caller, cost, ids))
          : sql.unsafe<ChargeCallsRow>(CHARGE_CALLS, chargeCallsParameters(caller, cost, calls.length, ids[0]!))
        return statement.pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            Effect.sync(() => {
              if (Exit.isFailure(exit)) {
                for (const call of calls) call.resume(Exit.failCause(exit.cause))
                return
              }
              const outcomes = outcomesOf(caller, cost, calls.length, exit.value[0]!)
              calls.forEach((call, i) => {
                call.resume(Exit.succeed(heldOf(outcomes[i]!, perCall ? ids[i]! : ids[0]!, cost)))
              })
            })
          ),
          Effect.zipRight(drain(batch, caller, cost, perCall))
        )
      })
    const charged =
      (perCall: boolean) =>
      (caller: Caller, cost: number): Effect.Effect<HeldCharge, SqlError.SqlError> =>
        Effect.async<HeldCharge, SqlError.SqlError>((resume) => {
          const batch = `${perCall ? "write" : "read"}/${caller.keyId}/${caller.limits.requestsPerMinute}/${caller.limits.monthlyQuota}/${cost}`
          const waiting = batches.get(batch)
          if (waiting !== undefined) return void waiting.push({ resume })
          batches.set(batch, [{ resume }])
          runFork(drain(batch, caller, cost, perCall))
        })
    const chargeHeld = charged(false)
    const chargeWrite = charged(true)
    const refundExpired = sql.unsafe(REFUND_EXPIRED).pipe(Effect.asVoid)
    // PL/pgSQL (charge_calls) loaded before the first call needs it: on the embedded database its first
    // use loads the language, which is slow enough to make a cold server's first burst miss its deadline.
    yield* sql.unsafe("do $$ begin perform 1; end $$").pipe(warn("warm-up"), Effect.forkScoped)
    // Every process refunds what dead processes left reserved, at start and then every SWEEP_INTERVAL.
    yield* refundExpired.pipe(
      warn("refund of expired reservations"),
      Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
      Effect.forkScoped
    )
    return repository({
      charge,
      chargeHeld,
      /** `chargeHeld` for a write: its own reservation, which it confirms in its transaction (`confirmIn`). */
      chargeWrite,
      /** Refunds the reservations past their lease (as every server process does every 10 s). */
      refundExpired,
      /** Cost units charged to the account in the current month (UTC): units still reserved by calls in progress not counted. */
      usedThisMonth: (accountId: string) =>
        sql<{ period: string; used: string | null; reserved: string | null }>`
          with clock as (select date_trunc('month', now() at time zone 'utc')::date as period)
          select to_char(clock.period, 'YYYY-MM-DD') as period,
                 (select used from quota_usage where account_id = ${accountId} and quota_usage.period = clock.period) as used,
                 (select sum(cost) from quota_reservations where account_id = ${accountId} and quota_reservations.period = clock.period) as reserved
          from clock`.pipe(
          Effect.map(([row]) => ({ period: row!.period, used: Number(row!.used ?? 0) - Number(row!.reserved ?? 0) }))
        ),
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
  const held = (caller: Caller, cost: number) =>
    Effect.map(charge(caller, cost), (outcome): HeldCharge => {
      const rollback = outcome._tag === "Charged" ? refund(outcome.reservation) : Effect.void
      return {
        outcome,
        commit: Effect.void,
        rollback,
        settle: (commit) => (commit ? undefined : Effect.runSync(rollback)),
        confirmIn: Effect.succeed(true)
      }
    })
  return Quota.make({
    charge,
    refundExpired: Effect.void,
    // Charged at once; a rollback gives the units back.
    chargeHeld: (caller, cost) => held(caller, cost),
    chargeWrite: (caller, cost) => held(caller, cost),
    usedThisMonth: (accountId) =>
      Effect.sync(() => {
        const { period } = monthWindow(Date.now())
        return { period, used: usage.get(`${accountId}/${period}`) ?? 0 }
      }),
    refund
  })
})
