import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { meteredAnswer } from "../Accounts/Metered.ts"
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
        return yield* meteredAnswer({ cost: TOKEN_RISK_COST, contractVersion: TOKEN_CONTRACT_VERSION })(
          ({ now }) =>
            Effect.flatMap(scans.latest(address), (scan) =>
              Option.isNone(scan) ? notScanned(address) : Effect.succeed({ evidence: scan.value.evidence, now })
            ),
          // The success schema's bytes, from the packet's kept JSON (Packet.ts) rather than encoded per call.
          ({ data, meta }) =>
            HttpServerResponse.text(
              tokenRiskBodyOf(data.evidence, data.now, { ...meta, cacheMode: "latest_cached_scan" }),
              {
                contentType: "application/json"
              }
            )
        )
      })
    )
  })
)
