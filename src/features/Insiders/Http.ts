import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { meteredAnswer } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { parseAddress } from "../../domain/Address.ts"
import { notScanned } from "../Scans/Errors.ts"
import { LatestScanCache } from "../Scans/LatestScanCache.ts"
import { ScansRepo } from "../Scans/ScansRepo.ts"
import { INSIDERS_CONTRACT_VERSION, INSIDERS_COST } from "./Api.ts"
import { Funders } from "./FundersRepo.ts"
import { graphWalletsOf, insidersGraphOf, nextHopOf } from "./Graph.ts"

export const InsidersHttp = HttpApiBuilder.group(RiskApi, "insiders", (handlers) =>
  Effect.gen(function* () {
    const latest = yield* LatestScanCache
    const scans = yield* ScansRepo
    const funders = yield* Funders
    return handlers.handle("insiders", ({ path }) =>
      Effect.gen(function* () {
        const mint = yield* parseAddress(path.mint)
        return yield* meteredAnswer({ cost: INSIDERS_COST, contractVersion: INSIDERS_CONTRACT_VERSION })(
          () =>
            Effect.gen(function* () {
              // Never scanned is the token risk route's answer, from the same cache (and counted as a read).
              if (Option.isNone(yield* latest.latest(mint))) return yield* notScanned(mint)
              // The insiders block and the holders live in the v2 document, which the cache does not keep.
              const document = yield* scans.latestDocument(mint)
              if (Option.isNone(document)) return yield* notScanned(mint)
              const asked = graphWalletsOf(document.value)
              const first = yield* funders.lookup(asked)
              const second = yield* funders.lookup(nextHopOf(document.value, asked, first))
              return insidersGraphOf(document.value, new Map([...first, ...second]))
            }),
          ({ data, meta }) => ({ data, meta: { ...meta, cacheMode: "latest_cached_scan" as const } })
        )
      })
    )
  })
)
