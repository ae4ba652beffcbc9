import { HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { DeployerHistoryAuth, PublicAccess, TokenRiskAuth, WalletRiskAuth, WatchAuth } from "./Auth.ts"
import { Forbidden, RateLimited, type ServiceUnavailable, Unauthorized } from "../Domain/Errors.ts"
import { PublicTrafficConfig } from "../Http/Config.ts"
import { PublicTraffic, type RateDecision } from "./PublicTraffic.ts"
import { ClientAddress } from "../System/Lifecycle.ts"
import { CurrentRequest } from "../Http/RequestContext.ts"
import type { Scope } from "../Domain/Scope.ts"
import { Accounts, type Caller } from "./Accounts.ts"

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
      return Effect.zipRight(
        // The account (never the key) goes into the request log.
        Effect.map(FiberRef.get(CurrentRequest), (context) => void (context.accountId = found.value.accountId)),
        found.value.scopes.includes(scope)
          ? Effect.succeed({ ...found.value, scope })
          : Effect.fail(new Forbidden({ message: `This key lacks the scope this route needs: ${scope}.` }))
      )
    }
  )

export const TokenRiskAuthLive = Layer.effect(
  TokenRiskAuth,
  Effect.map(Accounts, (accounts) => ({ bearer: (key) => authorize(accounts, key, "token:risk:read") }))
)

export const WalletRiskAuthLive = Layer.effect(
  WalletRiskAuth,
  Effect.map(Accounts, (accounts) => ({ bearer: (key) => authorize(accounts, key, "wallet:risk:read") }))
)

export const WatchAuthLive = Layer.effect(
  WatchAuth,
  Effect.map(Accounts, (accounts) => ({ bearer: (key) => authorize(accounts, key, "watch:write") }))
)

export const DeployerHistoryAuthLive = Layer.effect(
  DeployerHistoryAuth,
  Effect.map(Accounts, (accounts) => ({ bearer: (key) => authorize(accounts, key, "deployer:history:read") }))
)

// Behind a load balancer the client is the first X-Forwarded-For hop (TRUST_PROXY=true); otherwise
// the socket's peer, which a client cannot forge. Shared with the risk-check fast path.
export const clientAddressFrom = (forwardedFor: string | undefined, peer: string | undefined, trustProxy: boolean): string => {
  const forwarded = trustProxy ? forwardedFor?.split(",")[0]?.trim() : undefined
  return forwarded || peer || "unknown"
}

/** Whose minute window a public call counts against: its account when the key is valid, else its address. */
export const publicClientOf = (account: Option.Option<string>, address: string): string =>
  Option.match(account, { onNone: () => `ip:${address}`, onSome: (id) => `account:${id}` })

export const publicRateLimited = (decision: RateDecision) =>
  new RateLimited({
    message: `More than ${decision.limit} requests this minute from this client; retry in ${decision.resetSeconds} s.`
  })

export const PublicAccessLive = Layer.effect(
  PublicAccess,
  Effect.gen(function*() {
    const traffic = yield* PublicTraffic
    const { trustProxy } = yield* PublicTrafficConfig
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const peer = yield* Effect.serviceOption(ClientAddress)
      const apiKey = request.headers["x-api-key"]
      const account = apiKey === undefined ? Option.none() : yield* traffic.attribute(apiKey)
      const peerAddress = Option.getOrUndefined(Option.orElse(peer, () => request.remoteAddress))
      const client = publicClientOf(account, clientAddressFrom(request.headers["x-forwarded-for"], peerAddress, trustProxy))
      const context = yield* FiberRef.get(CurrentRequest)
      if (Option.isSome(account)) context.accountId = account.value
      const decision = yield* traffic.admit(client)
      if (decision.limit === 0) return
      context.standing = { rate: { limit: decision.limit, remaining: decision.remaining, resetSeconds: decision.resetSeconds } }
      if (decision.admitted) return
      context.retryAfterSeconds = decision.resetSeconds
      context.refusal = "rate_limited"
      return yield* publicRateLimited(decision)
    })
  })
)
