import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { meteredAnswer } from "../Accounts/Metered.ts"
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
        return yield* meteredAnswer({ cost: WALLET_RISK_COST, contractVersion: WALLET_CONTRACT_VERSION })(({ now }) =>
          wallets.packet(wallet, now)
        )
      })
    )
  })
)
