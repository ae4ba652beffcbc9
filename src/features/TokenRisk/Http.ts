import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { metaOf } from "../Accounts/Meta.ts"
import { metered } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { parseAddress } from "../../domain/Address.ts"
import { notScanned } from "../Scans/Errors.ts"
import { LatestScanCache } from "../Scans/LatestScanCache.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST } from "./Api.ts"
import { tokenRiskBodyOf } from "./Packet.ts"

export const TokenHttp = HttpApiBuilder.group(RiskApi, "token", (handlers) =>
  Effect.gen(function* () {
    const scans = yield* LatestScanCache
    return handlers.handle("risk", ({ payload }) =>
      Effect.gen(function* () {
        const address = yield* parseAddress(payload.address)
        return yield* metered(TOKEN_RISK_COST)(({ caller, cost, pay }) =>
          Effect.gen(function* () {
            const scan = yield* scans.latest(address)
            if (Option.isNone(scan)) return yield* notScanned(address)
            const now = yield* Clock.currentTimeMillis
            const meta = yield* metaOf({
              scope: caller.scope,
              standing: yield* pay,
              cost,
              now,
              contractVersion: TOKEN_CONTRACT_VERSION
            })
            // The success schema's bytes, from the packet's kept JSON (Packet.ts) rather than encoded per call.
            return HttpServerResponse.text(
              tokenRiskBodyOf(scan.value.evidence, now, { ...meta, cacheMode: "latest_cached_scan" }),
              {
                contentType: "application/json"
              }
            )
          })
        )
      })
    )
  })
)
