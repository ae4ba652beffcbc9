import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { RiskApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/Auth.ts"
import { NotScanned } from "../api/Errors.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST } from "../api/TokenApi.ts"
import { rescanUrlOf } from "../riskcheck/riskCheckOf.ts"
import { ScanCache } from "../services/ScanCache.ts"
import { tokenRiskPacketOf } from "../tokenrisk/tokenRiskPacketOf.ts"
import { charge } from "./Metering.ts"
import { parseAddress } from "./RiskCheckHttp.ts"
import { currentRequestId } from "./RequestContext.ts"

export const TokenHttp = HttpApiBuilder.group(RiskApi, "token", (handlers) =>
  Effect.gen(function*() {
    const scans = yield* ScanCache
    return handlers.handle("risk", ({ payload }) =>
      Effect.gen(function*() {
        const caller = yield* CurrentCaller
        const address = yield* parseAddress(payload.address)
        const standing = yield* charge(caller, TOKEN_RISK_COST)
        const scan = yield* scans.latest(address)
        if (Option.isNone(scan)) {
          return yield* new NotScanned({
            message: `${address} has never been scanned; POST ${rescanUrlOf(address)} to queue a scan.`
          })
        }
        const now = yield* Clock.currentTimeMillis
        return {
          data: tokenRiskPacketOf(scan.value.evidence, now),
          meta: {
            requestId: yield* currentRequestId,
            scope: caller.scope,
            quota: { limit: standing.quota.limit, used: standing.quota.used, remaining: standing.quota.remaining },
            generatedAt: new Date(now).toISOString(),
            contractVersion: TOKEN_CONTRACT_VERSION,
            costUnits: TOKEN_RISK_COST,
            cacheMode: "latest_cached_scan" as const
          }
        }
      }))
  }))
