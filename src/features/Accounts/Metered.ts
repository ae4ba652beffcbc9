import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Exit, Option } from "effect"
import { RequestLifecycle } from "../../platform/Request/Request.ts"
import { ServiceUnavailable } from "../../domain/Errors.ts"
import type { Scope } from "../../domain/Scope.ts"
import type { Caller } from "./Accounts.ts"
import { CurrentCaller } from "./Auth.ts"
import type { QuotaExceeded, RateLimited } from "./Errors.ts"
import { Transactions } from "../../platform/Sql/Transactions.ts"
import { sqlFailure } from "../../platform/Sql/Unavailable.ts"
import { type ChargeOutcome, type HeldCharge, Quota, refusal, type Standing } from "./Quota.ts"
import { type Meta, metaOf } from "./Meta.ts"
import { type HeaderStanding, rateLimitHeadersOf } from "./RateLimitHeaders.ts"

/**
 * What a metered write is given: who pays, under which scope, the account's standing after the charge, and
 * `commit`, which runs the write in a transaction that confirms the charge as it commits.
 */
interface Charge {
  readonly caller: Caller & { readonly scope: Scope }
  readonly standing: Standing
  readonly cost: number
  readonly commit: Commit
}

/** Runs a write so that it commits with the call's charge (for a read, the write runs as it is). */
type Commit = <A, E, R>(write: Effect.Effect<A, E, R>) => Effect.Effect<A, E | ServiceUnavailable, R>

/**
 * What a metered read is given: who pays, under which scope, and `pay`, which charges the call and gives
 * the account's standing after it. A read pays when its answer is ready (the handler yields `pay` as it
 * builds its `meta`; one that does not is charged as it returns), so a call that fails, times out or
 * dies with the process before then is never charged.
 */
interface ReadCharge {
  readonly caller: Caller & { readonly scope: Scope }
  readonly cost: number
  readonly pay: Effect.Effect<Standing, RateLimited | QuotaExceeded | ServiceUnavailable>
}

/** The rate-limit headers of this response, whatever it turns out to be (success or envelope). */
export const announce = (standing: HeaderStanding) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, rateLimitHeadersOf(standing)))
  )

const refunded = (standing: Standing, cost: number): Standing => {
  const used = Math.max(0, standing.quota.used - cost)
  return { ...standing, quota: { ...standing.quota, used, remaining: Math.max(0, standing.quota.limit - used) } }
}

// A 429: the limit that refused says when to retry.
const refuse = (outcome: Extract<ChargeOutcome, { readonly _tag: "Refused" }>) => {
  const refusedBy = outcome.error._tag === "RateLimited" ? outcome.standing.rate : outcome.standing.quota
  return Effect.zipRight(
    announce({ ...outcome.standing, retryAfterSeconds: refusedBy.resetSeconds }),
    Effect.fail(outcome.error)
  )
}

// Accounts this process saw refused, until the refusing window ends: a call that could only be refused
// again is refused before it does any work (and without a database round trip). Keyed by the limits too,
// so a plan change takes effect on the next request.
const exhausted = new Map<string, { readonly limits: string; readonly at: number; readonly standing: Standing }>()
const limitsOf = (caller: Caller) => `${caller.limits.monthlyQuota}/${caller.limits.requestsPerMinute}`

const remember = (caller: Caller, standing: Standing, now: number) => {
  if (exhausted.size >= 10_000) {
    for (const [id, entry] of exhausted) if (now - entry.at > 60_000) exhausted.delete(id)
    if (exhausted.size >= 10_000) exhausted.clear()
  }
  exhausted.set(caller.accountId, { limits: limitsOf(caller), at: now, standing })
}

const knownRefusal = (
  caller: Caller,
  cost: number,
  now: number
): Extract<ChargeOutcome, { readonly _tag: "Refused" }> | undefined => {
  const entry = exhausted.get(caller.accountId)
  if (entry === undefined || entry.limits !== limitsOf(caller)) return undefined
  const elapsed = Math.floor((now - entry.at) / 1000)
  const rateReset = entry.standing.rate.resetSeconds - elapsed
  const quotaReset = entry.standing.quota.resetSeconds - elapsed
  const standing: Standing = {
    rate: { ...entry.standing.rate, resetSeconds: Math.max(1, rateReset) },
    quota: { ...entry.standing.quota, resetSeconds: Math.max(1, quotaReset) }
  }
  if (entry.standing.rate.remaining === 0 && rateReset > 0)
    return { _tag: "Refused", standing, error: refusal(standing, false) }
  if (entry.standing.quota.remaining < cost && quotaReset > 0)
    return { _tag: "Refused", standing, error: refusal(standing, true) }
  exhausted.delete(caller.accountId)
  return undefined
}

/** Whether this process saw the caller refused in a window still running: only `metered` answers those. */
export const isKnownRefused = (caller: Caller, cost: number): boolean =>
  knownRefusal(caller, cost, Date.now()) !== undefined

/**
 * The charge protocol of a keyed read, for `metered` and the token-risk fast path (TokenRisk/FastPath.ts)
 * alike. A caller this process saw refused is refused again without a round trip; otherwise one statement
 * checks and raises the minute count and the monthly quota and, when it charges, records the units as a
 * reservation, committed at once (Quota.chargeHeld): the account's rows are locked only while the
 * statement runs, so one account's calls do not wait for one another's answers. The caller then settles
 * the charge: confirmed once its answer has been written, refunded if the call failed or the deadline
 * answered instead; a reservation its process never settled (killed) is refunded at its lease's end.
 * A refusal is remembered until its window ends.
 */
export const chargeRead = (quota: Quota, caller: Caller, cost: number): Effect.Effect<HeldCharge, ServiceUnavailable> =>
  chargeHeld(quota, caller, cost, false)

// `chargeRead`, or for a write (`write`) `Quota.chargeWrite`: a reservation of its own, confirmed in its transaction.
const chargeHeld = (
  quota: Quota,
  caller: Caller,
  cost: number,
  write: boolean
): Effect.Effect<HeldCharge, ServiceUnavailable> =>
  Effect.suspend(() => {
    const known = knownRefusal(caller, cost, Date.now())
    if (known !== undefined)
      return Effect.succeed({
        outcome: known,
        commit: Effect.void,
        rollback: Effect.void,
        settle: () => {},
        confirmIn: Effect.succeed(true)
      })
    return Effect.tap((write ? quota.chargeWrite : quota.chargeHeld)(caller, cost), (charge) => {
      if (charge.outcome._tag === "Refused") remember(caller, charge.outcome.standing, Date.now())
    })
  })

/**
 * The metering policy of a keyed read, around the part of its handler that does the paid work. The work
 * runs first; `pay` then charges it (`chargeRead`; 429 when the minute limit or the quota refuses, and the
 * answer is dropped). A call that fails or is interrupted before paying is never charged: it only counts
 * toward the minute limit, so its envelope still carries the rate-limit headers; one that fails after
 * paying is refunded. Behind the Bun server the charge is confirmed once the answer has been written
 * (RequestLifecycle), so a read killed before its answer went out is never charged; elsewhere (tests,
 * in-process callers) it is confirmed as the call succeeds. The caller was authenticated, with its scope,
 * by the group's middleware.
 */
const metered =
  (cost: number) =>
  <A, E, R>(
    handler: (charge: ReadCharge) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | RateLimited | QuotaExceeded | ServiceUnavailable, R | Quota | CurrentCaller> =>
    Effect.gen(function* () {
      const caller = yield* CurrentCaller
      const quota = yield* Quota
      const settlement = Option.getOrUndefined(yield* Effect.serviceOption(RequestLifecycle))
      let held: { readonly charge: HeldCharge; readonly standing: Standing } | undefined
      let refused = false
      const pay: ReadCharge["pay"] = Effect.suspend(() => {
        if (held !== undefined) return Effect.succeed(held.standing)
        return Effect.flatMap(chargeRead(quota, caller, cost), (charge) => {
          if (charge.outcome._tag === "Refused") {
            refused = true
            return refuse(charge.outcome)
          }
          held = { charge, standing: charge.outcome.standing }
          return Effect.succeed(charge.outcome.standing)
        })
      })
      // A caller this process already saw refused is refused before any work.
      if (isKnownRefused(caller, cost)) yield* pay
      return yield* handler({ caller, cost, pay }).pipe(
        Effect.tap(() => pay),
        Effect.onExit((exit) => {
          if (Exit.isSuccess(exit)) {
            const { charge, standing } = held!
            if (settlement === undefined) return Effect.zipRight(charge.commit, announce(standing))
            settlement.defer(charge.settle)
            return announce(standing)
          }
          if (refused) return Effect.void
          // Failed after paying (it built its answer, then something else failed): the charge goes back.
          if (held !== undefined) {
            const { charge, standing } = held
            return Effect.zipRight(charge.rollback, announce(refunded(standing, cost)))
          }
          // Failed before paying: nothing to charge; the call counts toward the minute limit.
          return quota.chargeHeld(caller, 0).pipe(
            Effect.flatMap((charge) => announce(charge.outcome.standing)),
            Effect.catchAllCause((cause) => Effect.logDebug("rate window not counted for a failed call", cause))
          )
        })
      )
    })

// A write whose reservation lapsed before it could commit (its lease ended and it was refunded): it must not
// commit uncharged, so it rolls back and the caller retries.
const lapsed = () =>
  new ServiceUnavailable({ message: "The call's charge lapsed before its write could commit; retry." })

/**
 * `metered` for a route whose work is a write. The charge is made as a read's is (`chargeRead`'s protocol: a
 * short statement that commits at once, 429 when refused, before any work), with a reservation of the
 * call's own. The write then runs in its own transaction, whose first statement confirms that reservation:
 * the write and its charge commit together, and the account's quota rows are never locked while the write
 * runs. By default the whole work is that transaction; a `staged` work runs outside one and commits its
 * write through `commit` (so it can first take short reservations of its own, as set-watch does under the
 * watch cap), and one that never commits is confirmed as it succeeds. A refusal by the work, a failure, the
 * deadline or an interruption rolls the write back and refunds the reservation; a killed process leaves it
 * unconfirmed, refunded when its lease ends. A reservation that lapsed before the write could confirm it
 * (refunded by the sweep) fails the write with a 503. Like a read, the call counts toward the minute limit
 * once admitted, whatever its outcome.
 */
const meteredWrite =
  (cost: number, staged: boolean) =>
  <A, E, R>(
    handler: (charge: Charge) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | RateLimited | QuotaExceeded | ServiceUnavailable, R | Quota | CurrentCaller | Transactions> =>
    Effect.gen(function* () {
      const caller = yield* CurrentCaller
      const quota = yield* Quota
      const transactions = yield* Transactions
      const charge = yield* chargeHeld(quota, caller, cost, true)
      if (charge.outcome._tag === "Refused") return yield* refuse(charge.outcome)
      const { standing } = charge.outcome
      const confirmed = charge.confirmIn.pipe(
        Effect.catchTag("SqlError", sqlFailure),
        Effect.flatMap((held) => (held ? Effect.void : Effect.fail(lapsed())))
      )
      let committed = false
      const commit: Commit = (write) =>
        committed
          ? Effect.die(new Error("a metered write commits once"))
          : Effect.tap(transactions.run(Effect.zipRight(confirmed, write)), () => {
              committed = true
            })
      const work = staged
        ? Effect.tap(handler({ caller, standing, cost, commit }), () => (committed ? Effect.void : commit(Effect.void)))
        : transactions.run(Effect.zipRight(confirmed, handler({ caller, standing, cost, commit: (write) => write })))
      return yield* work.pipe(
        Effect.onExit((exit) =>
          Exit.isSuccess(exit)
            ? announce(standing)
            : Effect.zipRight(charge.rollback, announce(refunded(standing, cost)))
        )
      )
    })

/**
 * What a keyed answer's work is given: who asks, under which scope, the time the answer is built at, and
 * `commit` (a write's, for a `staged` one: Metering.write).
 */
export interface Call {
  readonly caller: Caller & { readonly scope: Scope }
  readonly now: number
  readonly commit: Commit
}

/** A keyed route's metering: its cost, its contract version, and whether its work is a write. */
export interface Metering {
  readonly cost: number
  readonly contractVersion: string
  /**
   * The work is a write, its charge confirmed as it commits (`meteredWrite`): the whole work in one
   * transaction (true), or (`"staged"`) outside one, committing its write through `commit`. Otherwise a read.
   */
  readonly write?: true | "staged"
}

type Answer<A> = { readonly data: A; readonly meta: Meta }

/**
 * A keyed route's answer, `{data, meta}`: `work` builds the data under the route's metering (`metered`,
 * or `meteredWrite` for a write) and `meta` says who asked, under which scope, and the quota after this
 * call, which is paid for as the answer is made. `finish` shapes the answer (its bytes, or more `meta`)
 * while still inside the metering, so a failure there is a failed call, refunded. A route that costs
 * nothing (cost 0) cannot be refused by the quota.
 */
export function meteredAnswer(
  metering: Metering & { readonly cost: 0 }
): <A, E, R, B = Answer<A>>(
  work: (call: Call) => Effect.Effect<A, E, R>,
  finish?: (answer: Answer<A>) => B
) => Effect.Effect<B, E | RateLimited | ServiceUnavailable, R | Quota | CurrentCaller | Transactions>
export function meteredAnswer(
  metering: Metering
): <A, E, R, B = Answer<A>>(
  work: (call: Call) => Effect.Effect<A, E, R>,
  finish?: (answer: Answer<A>) => B
) => Effect.Effect<B, E | RateLimited | QuotaExceeded | ServiceUnavailable, R | Quota | CurrentCaller | Transactions>
export function meteredAnswer(metering: Metering) {
  return <A, E, R, B>(work: (call: Call) => Effect.Effect<A, E, R>, finish?: (answer: Answer<A>) => B) => {
    const answer = (charge: Charge | ReadCharge) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const data = yield* work({
          caller: charge.caller,
          now,
          commit: "commit" in charge ? charge.commit : (write) => write
        })
        const standing = "pay" in charge ? yield* charge.pay : charge.standing
        const meta = yield* metaOf({
          scope: charge.caller.scope,
          standing,
          cost: charge.cost,
          now,
          contractVersion: metering.contractVersion
        })
        return finish === undefined ? { data, meta } : finish({ data, meta })
      })
    const metered_ =
      metering.write === undefined
        ? metered(metering.cost)(answer)
        : meteredWrite(metering.cost, metering.write === "staged")(answer)
    return metering.cost === 0 ? metered_.pipe(Effect.catchTag("QuotaExceeded", Effect.die)) : metered_
  }
}
