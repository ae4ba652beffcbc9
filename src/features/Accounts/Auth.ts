import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { envelope, ServiceUnavailable } from "../../domain/Errors.ts"
import type { Scope } from "../../domain/Scope.ts"
import type { Caller } from "./Caller.ts"
import { Forbidden, RateLimited, Unauthorized } from "./Errors.ts"

/** The authenticated caller of a keyed route, provided by its group's auth middleware. */
export class CurrentCaller extends Context.Tag("CurrentCaller")<CurrentCaller, Caller & { readonly scope: Scope }>() {}

const bearer = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "API key created with the operator CLI (`risk-api keys create`), sent as `Authorization: Bearer rsk_…`. " +
      "Each key carries scopes; a route needs the scope named in its description."
  ),
  HttpApiSecurity.annotate(OpenApi.Format, "rsk_<38 base58 characters>")
)

const keyed = {
  failure: Schema.Union(envelope(Unauthorized), envelope(Forbidden), envelope(ServiceUnavailable)),
  provides: CurrentCaller,
  security: { bearer }
} as const

// One auth middleware class per scope, declared at the top of the module and exported so declaration files
// (the published client's types) can name them; `keyedAuth(scope)` is how a group picks one. The exports are
// read only by those declarations, so knip is told they are public.
/** @public */
export class TokenRiskAuth extends HttpApiMiddleware.Tag<TokenRiskAuth>()("KeyedAuth(token:risk:read)", keyed) {
  static readonly scope = "token:risk:read" as const
}
/** @public */
export class WalletRiskAuth extends HttpApiMiddleware.Tag<WalletRiskAuth>()("KeyedAuth(wallet:risk:read)", keyed) {
  static readonly scope = "wallet:risk:read" as const
}
/** @public */
export class DeployerHistoryAuth extends HttpApiMiddleware.Tag<DeployerHistoryAuth>()(
  "KeyedAuth(deployer:history:read)",
  keyed
) {
  static readonly scope = "deployer:history:read" as const
}
/** @public */
export class WatchWriteAuth extends HttpApiMiddleware.Tag<WatchWriteAuth>()("KeyedAuth(watch:write)", keyed) {
  static readonly scope = "watch:write" as const
}
/** @public */
export class WebhookWriteAuth extends HttpApiMiddleware.Tag<WebhookWriteAuth>()("KeyedAuth(webhook:write)", keyed) {
  static readonly scope = "webhook:write" as const
}

const tags = {
  "token:risk:read": TokenRiskAuth,
  "wallet:risk:read": WalletRiskAuth,
  "deployer:history:read": DeployerHistoryAuth,
  "watch:write": WatchWriteAuth,
  "webhook:write": WebhookWriteAuth
} as const satisfies { readonly [S in Scope]: { readonly scope: S } }

/** The auth middleware tag of the keyed groups under `scope`. */
export type KeyedAuthTag<S extends Scope> = (typeof tags)[S]

/** The identifier of any keyed group's auth middleware: one per scope. */
export type AnyKeyedAuth = InstanceType<KeyedAuthTag<Scope>>

/**
 * The auth middleware of a keyed group, from its scope: a group adds `.middleware(keyedAuth(scope))` and is
 * keyed, with nothing else to declare. One tag per scope, so each /api/v1 group has exactly one middleware
 * (STYLE.md, #7) and groups of one scope share it; Accounts/AuthLive.ts implements every scope's with one
 * function of the scope (KeyedAuthLive), and the document names each route's scope from the tag's static
 * `scope` (src/Api.ts, System/OpenApiContract.ts). A new scope is a literal in domain/Scope.ts and a class here.
 */
export const keyedAuth = <S extends Scope>(scope: S): KeyedAuthTag<S> => tags[scope]

/** The open risk-check routes: a per-client limit, and attribution of an optional X-Api-Key. */
export class PublicAccess extends HttpApiMiddleware.Tag<PublicAccess>()("PublicAccess", {
  failure: envelope(RateLimited)
}) {}
