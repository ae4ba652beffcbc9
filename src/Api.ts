import { HttpApi, OpenApi } from "@effect/platform"
import { DecisionApi } from "./features/Decisions/Api.ts"
import { DeployerApi } from "./features/Deployer/Api.ts"
import { envelope, InternalError, ServiceUnavailable } from "./domain/Errors.ts"
import { InsidersApi } from "./features/Insiders/Api.ts"
import type { Scope } from "./domain/Scope.ts"
import { completeContract } from "./features/System/OpenApiContract.ts"
import { RiskCheckApi } from "./features/RiskCheck/Api.ts"
import { SystemApi } from "./features/System/Api.ts"
import { TokenApi } from "./features/TokenRisk/Api.ts"
import { WalletApi } from "./features/WalletRisk/Api.ts"
import { WatchApi } from "./features/Watches/Api.ts"
import { WebhookApi } from "./features/Webhooks/Api.ts"

const API_VERSION = "0.1.0"

interface Group {
  readonly identifier: string
  readonly endpoints: Record<string, unknown>
  readonly middlewares: ReadonlySet<object>
}

/** The scope each keyed operation's key needs, from its group's auth middleware (Accounts/Auth.ts keyedAuth). */
const scopesOf = (groups: ReadonlyArray<Group>): ReadonlyMap<string, Scope> => {
  const scopes = new Map<string, Scope>()
  for (const group of groups) {
    for (const tag of group.middlewares) {
      if (!("scope" in tag)) continue
      for (const name of Object.keys(group.endpoints)) scopes.set(`${group.identifier}.${name}`, tag.scope as Scope)
    }
  }
  return scopes
}

// The API root: a group is added here, once; a keyed group brings its scope with its middleware.
export class RiskApi extends HttpApi.make("risk")
  .add(SystemApi)
  .add(RiskCheckApi)
  .add(TokenApi)
  .add(InsidersApi)
  .add(WalletApi)
  .add(DeployerApi)
  .add(DecisionApi)
  .add(WatchApi)
  .add(WebhookApi)
  .addError(envelope(InternalError))
  .addError(envelope(ServiceUnavailable))
  .annotate(OpenApi.Title, "Solana Risk Evidence API")
  .annotate(OpenApi.Version, API_VERSION)
  .annotate(
    OpenApi.Description,
    "Cached risk evidence about Solana token mints and wallets. Every read is cache-only: no route runs a live " +
      "scan and no route executes a trade.\n\n" +
      'Every failure is a JSON envelope `{"error": {"code", "message", "requestId", "details"?}}` with a ' +
      "stable `code`. Besides the statuses listed per operation, any path answers 404 `not_found` when no route " +
      "matches and 405 `method_not_allowed` (with an `Allow` header) when the path exists for other methods. " +
      "Every response carries `X-Request-Id` (a client's own value is echoed)."
  )
  .annotate(OpenApi.Transform, (document) => completeContract(document, scopesOf(groups))) {}

// Read when the document is made, from the groups above: nothing to list twice.
const groups: ReadonlyArray<Group> = Object.values(RiskApi.groups)
