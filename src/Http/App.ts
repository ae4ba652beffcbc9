import { HttpApiBuilder, HttpApiScalar, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { RiskApi } from "../Api.ts"
import { AccountsSql } from "../Accounts/Accounts.ts"
import { HealthSql } from "../System/Health.ts"
import { PublicTrafficLive } from "../Accounts/PublicTraffic.ts"
import { QuotaSql } from "../Accounts/Quota.ts"
import { ScanCacheSql } from "../Scans/ScansRepo.ts"
import { WalletRiskLive } from "../Wallet/WalletRisk.ts"
import { WalletStoreSql } from "../Wallet/WalletRepo.ts"
import { WatchesSql } from "../Watches/WatchesRepo.ts"
import { ScanRequestsSql } from "../Scans/ScanRequestsRepo.ts"
import { ApiMiddlewareLive } from "./Middleware.ts"
import { registry } from "../Observability/Metrics.ts"
import { DeployerHistoryAuthLive, PublicAccessLive, TokenRiskAuthLive, WalletRiskAuthLive, WatchAuthLive } from "../Accounts/AuthLive.ts"
import { DecisionHttp, WatchHttp } from "../Decisions/Http.ts"
import { DeployerHttp, WalletHttp } from "../Wallet/Http.ts"
import { RiskCheckHttp } from "../RiskCheck/Http.ts"
import { SystemHttp } from "../System/Http.ts"
import { TokenHttp } from "../TokenRisk/Http.ts"

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
