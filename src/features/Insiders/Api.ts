import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors } from "../Accounts/Errors.ts"
import { envelope, InvalidAddress } from "../../domain/Errors.ts"
import { NotScanned } from "../Scans/Errors.ts"
import { TOKEN_CONTRACT_VERSION, TOKEN_RISK_COST, TOKEN_RISK_SCOPE } from "../TokenRisk/Api.ts"
import { InsidersPath, InsidersResponse } from "./Schemas.ts"

// Metered exactly like the token risk packet: its scope, its cost, its contract version.
export const INSIDERS_COST = TOKEN_RISK_COST
export const INSIDERS_CONTRACT_VERSION = TOKEN_CONTRACT_VERSION

const insiders = HttpApiEndpoint.get("insiders", "/api/v1/token/:mint/insiders")
  .setPath(InsidersPath)
  .addSuccess(InsidersResponse)
  .addError(envelope(InvalidAddress))
  .addError(envelope(NotScanned))
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Token insiders graph")
  .annotate(
    OpenApi.Description,
    `Scope \`token:risk:read\`. Cost ${INSIDERS_COST} unit. Who really holds the mint, from its latest cached scan: ` +
      "the insider clusters (wallets with a common first funder, funded by the deployer, or buying in the " +
      "creation slot), the launch buyers and snipers, the deployer's initial and current holding (dev sold), " +
      "and a graph a UI can draw: `nodes` (holders with their share, funders, the deployer, clusters, the " +
      "creation slot) and `edges` (funded_by with the first transfer's amount and slot where stored, member_of, " +
      "same_slot). Each fact is observed or not_observed with its reason and provenance, never guessed. A mint " +
      "never scanned is 404 `not_scanned` (not charged); so is every other failure."
  )

export class InsidersApi extends HttpApiGroup.make("insiders")
  .add(insiders)
  .middleware(keyedAuth(TOKEN_RISK_SCOPE))
  .annotate(OpenApi.Title, "Token insiders")
  .annotate(
    OpenApi.Description,
    "Keyed, metered like the token risk packet (scope `token:risk:read`): linked holders, launch buyers and the " +
      "deployer's holding as a graph."
  ) {}
