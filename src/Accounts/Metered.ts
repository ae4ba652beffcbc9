import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect, Exit } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { Scope } from "../Domain/Scope.ts"
import type { Caller } from "./Accounts.ts"
import { CurrentCaller } from "./Auth.ts"
import type { QuotaExceeded, RateLimited } from "./Errors.ts"
import { Transactions } from "../Sql/Transactions.ts"
import { type ChargeOutcome, Quota, type Reservation, type Standing } from "./Quota.ts"
import { type HeaderStanding, rateLimitHeadersOf } from "./RateLimitHeaders.ts"

/** What a metered handler is given: who pays, under which scope, and the account's standing after the charge. */
export interface Charge {
  readonly caller: Caller & { readonly scope: Scope }
  readonly standing: Standing
  readonly cost: number
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

// A failed or interrupted call is never charged: its reservation goes back, and the headers say so.
const settle = (quota: Quota, reservation: Reservation, standing: Standing) =>
(exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
  Exit.isSuccess(exit)
    ? announce(standing)
    : quota.refund(reservation).pipe(
      Effect.zipRight(announce(refunded(standing, reservation.cost))),
      Effect.catchAllCause((cause) => Effect.logError("quota refund failed", cause))
    )

// A 429: the limit that refused says when to retry.
const refuse = (outcome: Extract<ChargeOutcome, { readonly _tag: "Refused" }>) => {
  const refusedBy = outcome.error._tag === "RateLimited" ? outcome.standing.rate : outcome.standing.quota
  return Effect.zipRight(announce({ ...outcome.standing, retryAfterSeconds: refusedBy.resetSeconds }), Effect.fail(outcome.error))
}

/**
 * The metering policy of a keyed route, around the part of its handler that does the paid work: the
 * caller's per-minute limit and monthly quota are checked and reserved in one atomic step (429 when
 * either refuses), and the call's typed outcome decides the charge: a success keeps it, any failure or
 * interruption gives it back. The caller was authenticated, with its scope, by the group's middleware.
 */
export const metered = (cost: number) =>
<A, E, R>(
  handler: (charge: Charge) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | RateLimited | QuotaExceeded | ServiceUnavailable, R | Quota | CurrentCaller> =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const quota = yield* Quota
    const outcome = yield* quota.charge(caller, cost)
    if (outcome._tag === "Refused") return yield* refuse(outcome)
    return yield* Effect.onExit(
      handler({ caller, standing: outcome.standing, cost }),
      settle(quota, outcome.reservation, outcome.standing)
    )
  })

// The standing as it is after a charge that was rolled back: neither the call nor its cost counts.
const rolledBack = (standing: Standing, cost: number): Standing => ({
  ...refunded(standing, cost),
  rate: { ...standing.rate, remaining: Math.min(standing.rate.limit, standing.rate.remaining + 1) }
})

/**
 * `metered` for a route whose work is a write: the charge and the write commit in one transaction, so a call
 * is charged exactly when its work is stored. A refusal, a failure, an interruption or a killed process
 * commits neither the charge nor the call's count in the minute window.
 */
export const meteredWrite = (cost: number) =>
<A, E, R>(
  handler: (charge: Charge) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | RateLimited | QuotaExceeded | ServiceUnavailable, R | Quota | CurrentCaller | Transactions> =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const quota = yield* Quota
    const transactions = yield* Transactions
    return yield* transactions.run(Effect.gen(function*() {
      const outcome = yield* quota.charge(caller, cost)
      if (outcome._tag === "Refused") return yield* refuse(outcome)
      return yield* Effect.onExit(
        handler({ caller, standing: outcome.standing, cost }),
        (exit) => announce(Exit.isSuccess(exit) ? outcome.standing : rolledBack(outcome.standing, cost))
      )
    }))
  })
