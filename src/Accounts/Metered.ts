import { Effect, FiberRef } from "effect"
import type { QuotaExceeded, RateLimited, ServiceUnavailable } from "../Domain/Errors.ts"
import type { Caller } from "./Accounts.ts"
import { Quota, type Standing } from "./Quota.ts"
import { CurrentRequest } from "../Http/RequestContext.ts"

/**
 * Charge the caller `cost` units for this request, or fail with 429. The standing goes to the
 * response headers, and the reservation is refunded by the API middleware if the call fails after all.
 */
export const charge = (caller: Caller, cost: number): Effect.Effect<Standing, RateLimited | QuotaExceeded | ServiceUnavailable, Quota> =>
  Effect.gen(function*() {
    const quota = yield* Quota
    const context = yield* FiberRef.get(CurrentRequest)
    const outcome = yield* quota.charge(caller, cost)
    context.standing = outcome.standing
    if (outcome._tag === "Refused") {
      context.refusal = outcome.error._tag === "RateLimited" ? "rate_limited" : "quota_exceeded"
      context.retryAfterSeconds = outcome.error._tag === "RateLimited"
        ? outcome.standing.rate.resetSeconds
        : outcome.standing.quota.resetSeconds
      return yield* Effect.fail(outcome.error)
    }
    context.refund = { cost, run: quota.refund(outcome.reservation).pipe(Effect.orDie) }
    return outcome.standing
  })
