import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors } from "../Accounts/Errors.ts"
import { envelope, InvalidAddress, jsonBodyErrors } from "../../domain/Errors.ts"
import { SCREENING_DISCLAIMER, WalletRiskRequest, WalletRiskResponse } from "./Schemas.ts"

export const WALLET_RISK_COST = 2
export const WALLET_CONTRACT_VERSION = "2026-11-01"

const risk = HttpApiEndpoint.post("risk", "/api/v1/wallet/risk")
  .setPayload(WalletRiskRequest)
  .addSuccess(WalletRiskResponse)
  .addError(envelope(InvalidAddress))
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Wallet risk screening")
  .annotate(
    OpenApi.Description,
    `Scope \`wallet:risk:read\`. Cost ${WALLET_RISK_COST} units. Adverse labels, exposure to flagged counterparties ` +
      "(weighted by amount, decayed by hop distance), repeat-deployer exposure and the wallet's own launches, from " +
      "cached evidence only. A wallet without cached evidence is a normal answer with low confidence that says " +
      `so. ${SCREENING_DISCLAIMER}`
  )

export class WalletApi extends HttpApiGroup.make("wallet")
  .add(risk)
  .middleware(keyedAuth("wallet:risk:read"))
  .annotate(OpenApi.Title, "Wallet risk")
  .annotate(OpenApi.Description, SCREENING_DISCLAIMER) {}
