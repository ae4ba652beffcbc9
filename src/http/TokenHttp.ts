import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { RiskApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/Auth.ts"
import { NotScanned } from "../api/Errors.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST } from "../api/TokenApi.ts"
import { rescanUrlOf } from "../riskcheck/riskCheckOf.ts"
import { ScanCache } from "../services/ScanCache.ts"
import { tokenRiskPacketOf } from "../tokenrisk/tokenRiskPacketOf.ts"
import { metaOf } from "./Meta.ts"
import { charge } from "./Metering.ts"
import { parseAddress } from "./RiskCheckHttp.ts"

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
            ...(yield* metaOf({ scope: caller.scope, standing, cost: TOKEN_RISK_COST, now, contractVersion: TOKEN_CONTRACT_VERSION })),
            cacheMode: "latest_cached_scan" as const
          }
        }
      }))
  }))
