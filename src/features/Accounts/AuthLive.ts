import { HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { ClientAddress, CurrentAccountId } from "../../platform/Request/Request.ts"
import { type Scope, SCOPES } from "../../domain/Scope.ts"
import { Accounts, type Caller } from "./Accounts.ts"
import { type AnyKeyedAuth, type KeyedAuthTag, keyedAuth, PublicAccess } from "./Auth.ts"
import { Forbidden, Unauthorized } from "./Errors.ts"
import { announce } from "./Metered.ts"
import { admitPublic, PublicTraffic, publicRateLimited, publicStandingOf } from "./PublicTraffic.ts"

// Missing, malformed, unknown, revoked and expired keys all get the same answer: nothing to probe.
const unauthorized = new Unauthorized({
  message: "A valid API key is required: send `Authorization: Bearer <key>`."
})

/** The bearer-key check of a keyed group: a usable key that carries `scope`. */
const keyAuth = (scope: Scope) =>
  Effect.map(Accounts, (accounts) => ({
    bearer: (key: Redacted.Redacted<string>) =>
      Effect.flatMap(
        accounts.authenticate(Redacted.value(key)),
        (found): Effect.Effect<Caller & { readonly scope: Scope }, Unauthorized | Forbidden> => {
          if (Option.isNone(found)) return Effect.fail(unauthorized)
          // The account (never the key) goes into the request log.
          return Effect.zipRight(
            FiberRef.set(CurrentAccountId, found.value.accountId),
            found.value.scopes.includes(scope)
              ? Effect.succeed({ ...found.value, scope })
              : Effect.fail(new Forbidden({ message: `This key lacks the scope this route needs: ${scope}.` }))
          )
        }
      )
  }))

/**
 * The auth middleware of every keyed group, one per scope (Accounts/Auth.ts keyedAuth): a new keyed group
 * needs nothing here. Built from the scope list at run time, so its type is stated once, here.
 */
export const KeyedAuthLive = SCOPES.map((scope) =>
  Layer.effect(keyedAuth(scope) as KeyedAuthTag<"token:risk:read">, keyAuth(scope))
).reduce<Layer.Layer<never, never, Accounts>>(
  (layers, layer) => Layer.merge(layers, layer),
  Layer.empty
) as unknown as Layer.Layer<AnyKeyedAuth, never, Accounts>

/** The public routes' admission (RiskCheck/FastPath.ts admits the same way, with admitPublic). */
export const PublicAccessLive = Layer.effect(
  PublicAccess,
  Effect.map(PublicTraffic, (traffic) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const apiKey = request.headers["x-api-key"]
      const account = apiKey === undefined ? Option.none() : yield* traffic.accountOf(apiKey)
      const peer = Option.getOrUndefined(
        Option.orElse(yield* Effect.serviceOption(ClientAddress), () => request.remoteAddress)
      )
      const { accountId, decision } = admitPublic(traffic, account, request.headers["x-forwarded-for"], peer)
      if (accountId !== undefined) yield* FiberRef.set(CurrentAccountId, accountId)
      const standing = publicStandingOf(decision)
      if (standing !== undefined) yield* announce(standing)
      if (!decision.admitted) return yield* publicRateLimited(decision)
    })
  )
)
