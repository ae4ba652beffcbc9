import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors } from "../Accounts/Errors.ts"
import { envelope, InvalidAddress, jsonBodyErrors } from "../../domain/Errors.ts"
import { NotScanned } from "../Scans/Errors.ts"
import { TokenRiskRequest, TokenRiskResponse } from "./Schemas.ts"

export const TOKEN_RISK_COST = 1
export const TOKEN_CONTRACT_VERSION = "2026-11-01"
export const TOKEN_RISK_SCOPE = "token:risk:read"

const risk = HttpApiEndpoint.post("risk", "/api/v1/token/risk")
  .setPayload(TokenRiskRequest)
  .addSuccess(TokenRiskResponse)
  .addError(envelope(InvalidAddress))
  .addError(envelope(NotScanned))
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Token risk packet")
  .annotate(
    OpenApi.Description,
    "Scope `token:risk:read`. Cost 1 unit. The scored evidence packet of the mint's latest cached scan: " +
      "safety score, facets, hard caps, risks, market figures, key evidence and the score breakdown. " +
      "A mint never scanned is 404 `not_scanned` (not charged); so is every other failure."
  )

export class TokenApi extends HttpApiGroup.make("token")
  .add(risk)
  .middleware(keyedAuth(TOKEN_RISK_SCOPE))
  .annotate(OpenApi.Title, "Token risk")
  .annotate(
    OpenApi.Description,
    "Keyed, metered evidence about mints. Successes carry `meta` (request id, scope, quota after the call) and " +
      "the rate-limit headers; failures are never charged."
  ) {}
