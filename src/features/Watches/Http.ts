import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { CurrentCaller } from "../Accounts/Auth.ts"
import { meteredAnswer } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { WATCH_METRICS, type WatchRule } from "../../engines/DecisionRules/index.ts"
import { parseAddress } from "../../domain/Address.ts"
import { MAX_ACTIVE_WATCHES, SET_WATCH_COST, WATCH_CONTRACT_VERSION, WATCH_READ_COST } from "./Api.ts"
import { ServiceUnavailable, WebhookNotFound } from "../../domain/Errors.ts"
import { WatchLimitReached, WatchNotFound } from "./Errors.ts"
import { NotifyEndpoints } from "./NotifyEndpoints.ts"
import { ownedWatch, type Watch, WatchesRepo } from "./WatchesRepo.ts"

// Normalised: one copy of each rule, in the order of the documented metric list, then comparison.
const normalise = (rules: ReadonlyArray<WatchRule>): ReadonlyArray<WatchRule> => {
  const unique = new Map(rules.map((rule) => [`${rule.metric}/${rule.comparison}/${rule.threshold}`, rule]))
  return [...unique.values()].sort(
    (a, b) =>
      WATCH_METRICS.indexOf(a.metric) - WATCH_METRICS.indexOf(b.metric) ||
      a.comparison.localeCompare(b.comparison) ||
      a.threshold - b.threshold
  )
}

const recordOf = (watch: Watch) => ({
  watch_id: watch.id,
  mint: watch.mint,
  label: watch.label,
  rules: watch.rules,
  poll_seconds: watch.pollSeconds,
  created_at: watch.createdAt,
  expires_at: watch.expiresAt,
  next_check_at: new Date(Date.parse(watch.createdAt) + watch.pollSeconds * 1000).toISOString(),
  notify: watch.notify,
  stored_only: true as const
})

// A slot that lapsed before its watch could be stored (past its lease): nothing stored, nothing charged.
const slotLapsed = () =>
  new ServiceUnavailable({ message: "The call's place under the watch cap lapsed before its watch was stored; retry." })

export const WatchHttp = HttpApiBuilder.group(RiskApi, "watch", (handlers) =>
  Effect.gen(function* () {
    const watches = yield* WatchesRepo
    const endpoints = yield* NotifyEndpoints
    const free = meteredAnswer({ cost: WATCH_READ_COST, contractVersion: WATCH_CONTRACT_VERSION })
    return handlers
      .handle("setWatch", ({ payload }) =>
        Effect.gen(function* () {
          const mint = yield* parseAddress(payload.mint)
          if (typeof payload.notify === "string") {
            const caller = yield* CurrentCaller
            if (!(yield* endpoints.exists(caller.accountId, payload.notify))) {
              return yield* new WebhookNotFound({
                message: `notify: no webhook endpoint ${payload.notify} for this account.`
              })
            }
          }
          // A place under the cap is reserved after the charge, then the watch is stored in its place in the
          // transaction that confirms the charge: concurrent calls cannot pass the cap, a call is charged
          // exactly when its watch is stored, and no lock is held while it is written (Accounts/Metered.ts).
          return yield* meteredAnswer({
            cost: SET_WATCH_COST,
            contractVersion: WATCH_CONTRACT_VERSION,
            write: "staged"
          })(({ caller, commit }) =>
            Effect.gen(function* () {
              const slot = yield* watches.reserve(caller.accountId, MAX_ACTIVE_WATCHES)
              if (Option.isNone(slot)) {
                return yield* new WatchLimitReached({
                  message: `At most ${MAX_ACTIVE_WATCHES} unexpired watches per account.`
                })
              }
              const stored = watches.store(slot.value, caller.accountId, {
                mint,
                label: payload.label ?? null,
                rules: normalise(payload.rules),
                pollSeconds: payload.pollSeconds,
                ttlSeconds: payload.ttlSeconds,
                notify: typeof payload.notify === "string" ? payload.notify.toLowerCase() : (payload.notify ?? false)
              })
              const created = yield* commit(
                Effect.flatMap(stored, (watch) =>
                  Option.isSome(watch) ? Effect.succeed(watch.value) : Effect.fail(slotLapsed())
                )
              ).pipe(Effect.onError(() => watches.release(slot.value).pipe(Effect.ignore)))
              return recordOf(created)
            })
          )
        })
      )
      .handle("listWatches", () =>
        free(({ caller }) =>
          Effect.gen(function* () {
            return (yield* watches.list(caller.accountId)).map(recordOf)
          })
        )
      )
      .handle("getWatch", ({ path }) =>
        free(({ caller }) =>
          Effect.gen(function* () {
            const watch = yield* ownedWatch(watches, caller.accountId, path.id)
            return recordOf(watch)
          })
        )
      )
      .handle("deleteWatch", ({ path }) =>
        free(({ caller }) =>
          Effect.gen(function* () {
            if (!(yield* watches.remove(caller.accountId, path.id))) {
              return yield* new WatchNotFound({ message: `No watch ${path.id} for this account.` })
            }
            return { watch_id: path.id, deleted: true as const }
          })
        )
      )
  })
)
