import { HttpApiBuilder } from "@effect/platform"
import { Clock, Effect } from "effect"
import { metaOf } from "../Accounts/Meta.ts"
import { metered } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { parseAddress } from "../../domain/Address.ts"
import { WALLET_CONTRACT_VERSION, WALLET_RISK_COST } from "./Api.ts"
import { WalletRisk } from "./WalletRisk.ts"

export const WalletHttp = HttpApiBuilder.group(RiskApi, "wallet", (handlers) =>
  Effect.gen(function* () {
    const wallets = yield* WalletRisk
    return handlers.handle("risk", ({ payload }) =>
      Effect.gen(function* () {
        const wallet = yield* parseAddress(payload.walletAddress)
        return yield* metered(WALLET_RISK_COST)(({ caller, cost, pay }) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            const data = yield* wallets.packet(wallet, now)
            return {
              data,
              meta: yield* metaOf({
                scope: caller.scope,
                standing: yield* pay,
                cost,
                now,
                contractVersion: WALLET_CONTRACT_VERSION
              })
            }
          })
        )
      })
    )
  })
)
