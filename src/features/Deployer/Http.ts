import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { meteredAnswer } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { parseAddress } from "../../domain/Address.ts"
import { InvalidRequest } from "../../domain/Errors.ts"
import { DEPLOYER_CONTRACT_VERSION, DEPLOYER_HISTORY_COST } from "./Api.ts"
import { launchRecordOf, pageOf, parseCursor, summaryOf } from "./History.ts"
import { LaunchesRepo } from "./LaunchesRepo.ts"

export const DeployerHttp = HttpApiBuilder.group(RiskApi, "deployer", (handlers) =>
  Effect.gen(function* () {
    const launches = yield* LaunchesRepo
    return handlers.handle("history", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const wallet = yield* parseAddress(path.wallet)
        const cursor = urlParams.cursor === undefined ? undefined : parseCursor(urlParams.cursor)
        if (urlParams.cursor !== undefined && cursor === undefined) {
          return yield* new InvalidRequest({ message: "cursor: not a cursor this route returned; start without one" })
        }
        return yield* meteredAnswer({ cost: DEPLOYER_HISTORY_COST, contractVersion: DEPLOYER_CONTRACT_VERSION })(
          ({ now }) =>
            Effect.gen(function* () {
              const records = (yield* launches.launchesOf(wallet)).map((launch) => launchRecordOf(launch, now))
              const page = pageOf(records, urlParams.limit, cursor)
              return {
                deployer: wallet,
                summary: summaryOf(records, now),
                launches: page.launches,
                page: { limit: urlParams.limit, nextCursor: page.nextCursor }
              }
            })
        )
      })
    )
  })
)
