import { Effect, Schema } from "effect"
import { currentRequestId } from "../../platform/Request/Request.ts"
import type { Standing } from "./Standing.ts"

const Int = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

const QuotaMeta = Schema.Struct({
  limit: Int.annotations({ description: "Cost units per calendar month (UTC) of the account's plan." }),
  used: Int.annotations({ description: "Cost units used this month, this call included." }),
  remaining: Int
}).annotations({ identifier: "QuotaMeta" })

export const Meta = Schema.Struct({
  requestId: Schema.String.annotations({ description: "The client's X-Request-Id, or a generated one." }),
  scope: Schema.String.annotations({ description: "Scope the call was authorized under." }),
  quota: QuotaMeta,
  generatedAt: Schema.String.annotations({ description: "ISO 8601 UTC time the answer was built." }),
  contractVersion: Schema.String.annotations({ description: "Version of this response contract." }),
  costUnits: Schema.optional(Int).annotations({ description: "Cost units this call was charged." }),
  cacheMode: Schema.optional(Schema.Literal("latest_cached_scan")).annotations({
    description: "How the evidence was read: always the latest cached scan, never a live scan."
  })
}).annotations({ identifier: "Meta", description: "Accountability envelope of every /api/v1 success." })
export type Meta = typeof Meta.Type

/** What a keyed success's `meta` is made of. */
export interface MetaOf {
  readonly scope: string
  readonly standing: Standing
  readonly cost: number
  readonly now: number
  readonly contractVersion: string
}

/** The `meta` of a keyed success: who asked under which scope, and the quota after this call. */
export const metaFor = (requestId: string, call: MetaOf): Meta => ({
  requestId,
  scope: call.scope,
  quota: { limit: call.standing.quota.limit, used: call.standing.quota.used, remaining: call.standing.quota.remaining },
  generatedAt: new Date(call.now).toISOString(),
  contractVersion: call.contractVersion,
  costUnits: call.cost
})

/** `metaFor` the current request (Accounts/Metered.ts meteredAnswer). */
export const metaOf = (call: MetaOf) => Effect.map(currentRequestId, (requestId) => metaFor(requestId, call))
