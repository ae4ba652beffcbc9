import { HttpApiBuilder, HttpApiScalar, HttpServerResponse } from "@effect/platform"
import { Effect, JSONSchema, Layer } from "effect"
import { ScanEvidenceV2 } from "../Domain/EvidenceV2.ts"
import { Accounts } from "../Accounts/Accounts.ts"
import {
  DeployerHistoryAuthLive,
  PublicAccessLive,
  TokenRiskAuthLive,
  WalletRiskAuthLive,
  WatchAuthLive,
  WebhookAuthLive
} from "../Accounts/AuthLive.ts"
import { PublicTraffic } from "../Accounts/PublicTraffic.ts"
import { Quota } from "../Accounts/Quota.ts"
import { RiskApi } from "../Api.ts"
import { DecisionHttp } from "../Decisions/Http.ts"
import { DeployerHttp } from "../Deployer/Http.ts"
import { LaunchesRepo } from "../Deployer/LaunchesRepo.ts"
import { registry } from "../Observability/Metrics.ts"
import { RiskCheckHttp } from "../RiskCheck/Http.ts"
import { LatestScanCache } from "../Scans/LatestScanCache.ts"
import { ReadCounter, ReadCountsFlushLive } from "../Scans/ReadCounter.ts"
import { ScanRequestsRepo } from "../Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../Scans/ScansRepo.ts"
import { Transactions } from "../Sql/Transactions.ts"
import { Health } from "../System/Health.ts"
import { Lifecycle } from "../System/Lifecycle.ts"
import { SystemHttp } from "../System/Http.ts"
import { TokenHttp } from "../TokenRisk/Http.ts"
import { WalletHttp } from "../Wallet/Http.ts"
import { WalletRisk } from "../Wallet/WalletRisk.ts"
import { WatchHttp } from "../Watches/Http.ts"
import { WatchesRepo } from "../Watches/WatchesRepo.ts"
import { WebhookSettings } from "../Webhooks/Config.ts"
import { WebhookEndpointsRepo } from "../Webhooks/EndpointsRepo.ts"
import { WebhookHttp } from "../Webhooks/Http.ts"
import { ApiMiddlewareLive } from "./Middleware.ts"

/** Each group's handlers and middleware: the API as a table of contents. */
export const ApiLive = HttpApiBuilder.api(RiskApi).pipe(
  Layer.provide([SystemHttp, RiskCheckHttp, TokenHttp, WalletHttp, DeployerHttp, DecisionHttp, WatchHttp, WebhookHttp]),
  Layer.provide([TokenRiskAuthLive, WalletRiskAuthLive, DeployerHistoryAuthLive, WatchAuthLive, WebhookAuthLive, PublicAccessLive])
)

/**
 * Every service the handlers use, each defined once (a service brings the services it depends on); needs
 * the database (Sql/Database.ts). Tests provide their own set (test/support/layers.ts).
 */
export const ServicesLive = Layer.mergeAll(
  // One ReadCounter per process (layers are shared by reference): the cache counts reads, the flusher writes them.
  LatestScanCache.Default.pipe(Layer.provide(ReadCounter.Default)),
  ReadCountsFlushLive.pipe(Layer.provide(ReadCounter.Default)),
  ScansRepo.Default,
  ScanRequestsRepo.Default,
  Accounts.Default,
  Quota.Default,
  PublicTraffic.Default,
  WalletRisk.Default,
  LaunchesRepo.Default,
  WatchesRepo.Default,
  WebhookEndpointsRepo.Default,
  WebhookSettings.Live,
  Health.Default,
  Transactions.Default,
  Lifecycle.Default
)

/** What the HTTP app needs from its services. */
export type AppServices = Layer.Layer.Success<typeof ServicesLive>

// Prometheus text format, for scrapers; an operations endpoint, not part of the API contract.
const MetricsLive = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/metrics",
    Effect.map(Effect.promise(() => registry.metrics()), (text) =>
      HttpServerResponse.text(text, { contentType: registry.contentType }))
  )
)

// The JSON Schema of evidence format v2 (docs/scan-evidence.md), for anyone who writes or reads scans.
const evidenceSchema = JSON.stringify(JSONSchema.make(ScanEvidenceV2))
const EvidenceSchemaLive = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/schemas/scan-evidence-v2.json",
    Effect.succeed(HttpServerResponse.text(evidenceSchema, {
      contentType: "application/schema+json",
      headers: { "cache-control": "public, max-age=3600" }
    }))
  )
)

/** Routing, docs, /openapi.json, /metrics and the error envelope around the API. */
export const AppLive = Layer.mergeAll(
  HttpApiScalar.layer({ path: "/docs" }),
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  MetricsLive,
  EvidenceSchemaLive,
  ApiMiddlewareLive
).pipe(Layer.provideMerge(ApiLive))
