import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors } from "../Accounts/Errors.ts"
import { ADDRESS_JSON_SCHEMA } from "../../domain/Address.ts"
import { envelope, InvalidAddress, InvalidRequest } from "../../domain/Errors.ts"
import { DeployerHistoryResponse, HistoryQuery } from "./Schemas.ts"

export const DEPLOYER_HISTORY_COST = 1
export const DEPLOYER_CONTRACT_VERSION = "2026-11-01"

const history = HttpApiEndpoint.get("history", "/api/v1/deployer/:wallet/history")
  .setPath(
    Schema.Struct({
      wallet: Schema.String.annotations({
        description: "Deployer wallet (base58, 32 bytes).",
        jsonSchema: ADDRESS_JSON_SCHEMA
      })
    })
  )
  .setUrlParams(HistoryQuery)
  .addSuccess(DeployerHistoryResponse)
  .addError(envelope(InvalidAddress))
  .addError(envelope(InvalidRequest))
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
  .middleware(keyedAuth("deployer:history:read"))
  .annotate(OpenApi.Title, "Deployer history")
  .annotate(
    OpenApi.Description,
    "Launches observed for a deployer wallet, from cached token scans, with outcome rules and summary metrics."
  ) {}
