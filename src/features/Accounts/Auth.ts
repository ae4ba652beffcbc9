import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { envelope, ServiceUnavailable } from "../../domain/Errors.ts"
import type { Scope } from "../../domain/Scope.ts"
import type { Caller } from "./Caller.ts"
import { Forbidden, RateLimited, Unauthorized } from "./Errors.ts"

/** The authenticated caller of a keyed route, provided by its group's auth middleware. */
export class CurrentCaller extends Context.Tag("CurrentCaller")<CurrentCaller, Caller & { readonly scope: Scope }>() {}

export const bearer = HttpApiSecurity.bearer.pipe(
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

// One middleware tag per scope, so each /api/v1 group has exactly one middleware (STYLE.md, #7);
// Accounts/AuthLive.ts implements them all with one function of the scope; the document names each
// route's scope from the same static (System/OpenApiContract.ts).
export class TokenRiskAuth extends HttpApiMiddleware.Tag<TokenRiskAuth>()("TokenRiskAuth", keyed) {
  static readonly scope: Scope = "token:risk:read"
}
export class WalletRiskAuth extends HttpApiMiddleware.Tag<WalletRiskAuth>()("WalletRiskAuth", keyed) {
  static readonly scope: Scope = "wallet:risk:read"
}
export class WatchAuth extends HttpApiMiddleware.Tag<WatchAuth>()("WatchAuth", keyed) {
  static readonly scope: Scope = "watch:write"
}
export class DeployerHistoryAuth extends HttpApiMiddleware.Tag<DeployerHistoryAuth>()("DeployerHistoryAuth", keyed) {
  static readonly scope: Scope = "deployer:history:read"
}
export class WebhookAuth extends HttpApiMiddleware.Tag<WebhookAuth>()("WebhookAuth", keyed) {
  static readonly scope: Scope = "webhook:write"
}

/** The open risk-check routes: a per-client limit, and attribution of an optional X-Api-Key. */
export class PublicAccess extends HttpApiMiddleware.Tag<PublicAccess>()("PublicAccess", {
  failure: envelope(RateLimited)
}) {}
