import { HttpApiBuilder, HttpApiScalar, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { RiskApi } from "../api/Api.ts"
import { AccountsSql } from "../services/Accounts.ts"
import { HealthSql } from "../services/Health.ts"
import { PublicTrafficLive } from "../services/PublicTraffic.ts"
import { QuotaSql } from "../services/Quota.ts"
import { ScanCacheSql } from "../services/ScanCache.ts"
import { WalletRiskLive } from "../services/WalletRisk.ts"
import { WalletStoreSql } from "../services/WalletStore.ts"
import { WatchesSql } from "../services/Watches.ts"
import { ScanRequestsSql } from "../services/ScanRequests.ts"
import { ApiMiddlewareLive } from "./ApiMiddleware.ts"
import { registry } from "./Metrics.ts"
import { DeployerHistoryAuthLive, PublicAccessLive, TokenRiskAuthLive, WalletRiskAuthLive, WatchAuthLive } from "./Auth.ts"
import { DecisionHttp, WatchHttp } from "./DecisionHttp.ts"
import { DeployerHttp, WalletHttp } from "./WalletHttp.ts"
import { RiskCheckHttp } from "./RiskCheckHttp.ts"
import { SystemHttp } from "./SystemHttp.ts"
import { TokenHttp } from "./TokenHttp.ts"

/** The HttpApi with its handlers; needs the services the handlers use. */
export const ApiLive = HttpApiBuilder.api(RiskApi).pipe(
  Layer.provide([SystemHttp, RiskCheckHttp, TokenHttp, WalletHttp, DeployerHttp, DecisionHttp, WatchHttp]),
  Layer.provide([TokenRiskAuthLive, WalletRiskAuthLive, DeployerHistoryAuthLive, WatchAuthLive, PublicAccessLive])
)

/** Services over SQL; needs a SqlClient (sql/Database.ts). */
export const ServicesSql = Layer.mergeAll(ScanCacheSql, ScanRequestsSql, AccountsSql, QuotaSql, WalletStoreSql, WatchesSql, HealthSql).pipe(
  Layer.provideMerge(PublicTrafficLive.pipe(Layer.provide(AccountsSql))),
  Layer.provideMerge(WalletRiskLive.pipe(Layer.provide(WalletStoreSql)))
)

// Prometheus text format, for scrapers; an operations endpoint, not part of the API contract.
const MetricsLive = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/metrics",
    Effect.map(Effect.promise(() => registry.metrics()), (text) =>
      HttpServerResponse.text(text, { contentType: registry.contentType }))
  )
)

/** Routing, docs, /openapi.json, /metrics and the error envelope around the API. */
export const AppLive = Layer.mergeAll(
  HttpApiScalar.layer({ path: "/docs" }),
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  MetricsLive,
  ApiMiddlewareLive
).pipe(Layer.provideMerge(ApiLive))
