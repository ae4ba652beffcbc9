import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { RiskApi } from "../Api.ts"
import { CurrentCaller } from "../Accounts/Auth.ts"
import { InvalidRequest } from "../Domain/Errors.ts"
import { DEPLOYER_HISTORY_COST, WALLET_CONTRACT_VERSION, WALLET_RISK_COST } from "./Api.ts"
import { launchRecordOf, pageOf, parseCursor, summaryOf } from "../Deployer/History.ts"
import { WalletRisk } from "./WalletRisk.ts"
import { WalletStore } from "./WalletRepo.ts"
import { metaOf } from "../Accounts/MetaOf.ts"
import { charge } from "../Accounts/Metered.ts"
import { parseAddress } from "../RiskCheck/Http.ts"

export const WalletHttp = HttpApiBuilder.group(RiskApi, "wallet", (handlers) =>
  Effect.gen(function*() {
    const wallets = yield* WalletRisk
    return handlers.handle("risk", ({ payload }) =>
      Effect.gen(function*() {
        const caller = yield* CurrentCaller
        const wallet = yield* parseAddress(payload.walletAddress)
        const standing = yield* charge(caller, WALLET_RISK_COST)
        const now = yield* Clock.currentTimeMillis
        const data = yield* wallets.packet(wallet, now)
        return { data, meta: yield* metaOf({ scope: caller.scope, standing, cost: WALLET_RISK_COST, now, contractVersion: WALLET_CONTRACT_VERSION }) }
      }))
  }))

export const DeployerHttp = HttpApiBuilder.group(RiskApi, "deployer", (handlers) =>
  Effect.gen(function*() {
    const store = yield* WalletStore
    return handlers.handle("history", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const caller = yield* CurrentCaller
        const wallet = yield* parseAddress(path.wallet)
        const cursor = urlParams.cursor === undefined ? undefined : parseCursor(urlParams.cursor)
        if (urlParams.cursor !== undefined && cursor === undefined) {
          return yield* new InvalidRequest({ message: "cursor: not a cursor this route returned; start without one" })
        }
        const standing = yield* charge(caller, DEPLOYER_HISTORY_COST)
        const now = yield* Clock.currentTimeMillis
        const records = (yield* store.launchesOf(wallet)).map((launch) => launchRecordOf(launch, now))
        const page = pageOf(records, urlParams.limit, cursor)
        return {
          data: {
            deployer: wallet,
            summary: summaryOf(records, now),
            launches: page.launches,
            page: { limit: urlParams.limit, nextCursor: page.nextCursor }
          },
          meta: yield* metaOf({ scope: caller.scope, standing, cost: DEPLOYER_HISTORY_COST, now, contractVersion: WALLET_CONTRACT_VERSION })
        }
      }))
  }))
