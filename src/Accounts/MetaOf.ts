import { Effect } from "effect"
import type { Meta } from "./Meta.ts"
import type { Standing } from "./Quota.ts"
import { currentRequestId } from "../Http/RequestContext.ts"

/** The `meta` of a keyed success: who asked under which scope, and the quota after this call. */
export const metaOf = (call: {
  readonly scope: string
  readonly standing: Standing
  readonly cost: number
  readonly now: number
  readonly contractVersion: string
}) =>
  Effect.map(currentRequestId, (requestId) => ({
    requestId,
    scope: call.scope,
    quota: { limit: call.standing.quota.limit, used: call.standing.quota.used, remaining: call.standing.quota.remaining },
    generatedAt: new Date(call.now).toISOString(),
    contractVersion: call.contractVersion,
    costUnits: call.cost
  } satisfies Meta))
