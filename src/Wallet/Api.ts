import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { DeployerHistoryResponse, HistoryQuery } from "../Deployer/Schemas.ts"
import { SCREENING_DISCLAIMER, WalletRiskRequest, WalletRiskResponse } from "./Schemas.ts"
import { DeployerHistoryAuth, WalletRiskAuth } from "../Accounts/Auth.ts"
import {
  InvalidAddressError,
  InvalidRequestError,
  jsonBodyErrors,
  meteredErrors
} from "../Domain/Errors.ts"

export const WALLET_RISK_COST = 2
export const DEPLOYER_HISTORY_COST = 1
export const WALLET_CONTRACT_VERSION = "2026-11-01"

const risk = HttpApiEndpoint.post("risk", "/api/v1/wallet/risk")
  .setPayload(WalletRiskRequest)
  .addSuccess(WalletRiskResponse)
  .addError(InvalidAddressError)
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
  .middleware(WalletRiskAuth)
  .annotate(OpenApi.Title, "Wallet risk")
  .annotate(OpenApi.Description, SCREENING_DISCLAIMER) {}

const history = HttpApiEndpoint.get("history", "/api/v1/deployer/:wallet/history")
  .setPath(Schema.Struct({
    wallet: Schema.String.annotations({
      description: "Deployer wallet (base58, 32 bytes).",
      jsonSchema: { type: "string", pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$" }
    })
  }))
  .setUrlParams(HistoryQuery)
  .addSuccess(DeployerHistoryResponse)
  .addError(InvalidAddressError)
  .addError(InvalidRequestError)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Deployer launch history")
  .annotate(
    OpenApi.Description,
    `Scope \`deployer:history:read\`. Cost ${DEPLOYER_HISTORY_COST} unit per page. Every mint whose scans name the ` +
      "wallet as deployer, newest first, with its latest score, verdict and outcome, and summary metrics over all " +
      "launches. Cursor pagination: pass `page.nextCursor` as `cursor`. A wallet with no launches is a normal " +
      "answer (launchCount 0, riskLevel none). A malformed cursor is 400 invalid_request."
  )

export class DeployerApi extends HttpApiGroup.make("deployer")
  .add(history)
  .middleware(DeployerHistoryAuth)
  .annotate(OpenApi.Title, "Deployer history")
  .annotate(OpenApi.Description, "Launches observed for a deployer wallet, from cached token scans, with outcome rules and summary metrics.") {}
