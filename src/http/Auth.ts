import { Effect, Layer, Option, Redacted } from "effect"
import { TokenRiskAuth } from "../api/Auth.ts"
import { Forbidden, type ServiceUnavailable, Unauthorized } from "../api/Errors.ts"
import type { Scope } from "../domain/Scope.ts"
import { Accounts, type Caller } from "../services/Accounts.ts"

// Missing, malformed, unknown, revoked and expired keys all get the same answer: nothing to probe.
const unauthorized = new Unauthorized({
  message: "A valid API key is required: send `Authorization: Bearer <key>`."
})

const authorize = (
  accounts: Accounts["Type"],
  key: Redacted.Redacted<string>,
  scope: Scope
): Effect.Effect<Caller & { readonly scope: Scope }, Unauthorized | Forbidden | ServiceUnavailable> =>
  Effect.flatMap(
    accounts.authenticate(Redacted.value(key)),
    (found): Effect.Effect<Caller & { readonly scope: Scope }, Unauthorized | Forbidden> => {
      if (Option.isNone(found)) return Effect.fail(unauthorized)
      return found.value.scopes.includes(scope)
        ? Effect.succeed({ ...found.value, scope })
        : Effect.fail(new Forbidden({ message: `This key lacks the scope this route needs: ${scope}.` }))
    }
  )

export const TokenRiskAuthLive = Layer.effect(
  TokenRiskAuth,
  Effect.map(Accounts, (accounts) => ({ bearer: (key) => authorize(accounts, key, "token:risk:read") }))
)
