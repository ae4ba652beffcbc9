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

const keyedAuthTag = <S extends Scope>(scope: S) => {
  class KeyedAuth extends HttpApiMiddleware.Tag<KeyedAuth>()(`KeyedAuth(${scope})`, keyed) {
    static readonly scope: S = scope
    declare readonly keyedScope: S
  }
  return KeyedAuth
}

/** The auth middleware tag of the keyed groups under `scope`. */
export type KeyedAuthTag<S extends Scope> = ReturnType<typeof keyedAuthTag<S>>

/** The identifier of any keyed group's auth middleware: one per scope. */
export type AnyKeyedAuth = { readonly [S in Scope]: InstanceType<KeyedAuthTag<S>> }[Scope]

const tags = new Map<Scope, KeyedAuthTag<Scope>>()

/**
 * The auth middleware of a keyed group, from its scope: a group adds `.middleware(keyedAuth(scope))` and is
 * keyed, with nothing else to declare. One tag per scope, so each /api/v1 group has exactly one middleware
 * (STYLE.md, #7) and groups of one scope share it; Accounts/AuthLive.ts implements every scope's with one
 * function of the scope (KeyedAuthLive), and the document names each route's scope from the tag's static
 * `scope` (src/Api.ts, System/OpenApiContract.ts).
 */
export const keyedAuth = <S extends Scope>(scope: S): KeyedAuthTag<S> => {
  const known = tags.get(scope)
  if (known !== undefined) return known as unknown as KeyedAuthTag<S>
  const tag = keyedAuthTag(scope)
  tags.set(scope, tag as unknown as KeyedAuthTag<Scope>)
  return tag
}

/** The open risk-check routes: a per-client limit, and attribution of an optional X-Api-Key. */
export class PublicAccess extends HttpApiMiddleware.Tag<PublicAccess>()("PublicAccess", {
  failure: envelope(RateLimited)
}) {}
