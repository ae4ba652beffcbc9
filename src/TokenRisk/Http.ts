import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { RiskApi } from "../Api.ts"
import { CurrentCaller } from "../Accounts/Auth.ts"
import { NotScanned } from "../Domain/Errors.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST } from "./Api.ts"
import { rescanUrlOf } from "../RiskCheck/Answer.ts"
import { ScanCache } from "../Scans/ScansRepo.ts"
import { tokenRiskPacketOf } from "./Packet.ts"
import { metaOf } from "../Accounts/MetaOf.ts"
import { charge } from "../Accounts/Metered.ts"
import { parseAddress } from "../RiskCheck/Http.ts"

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
