import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, JSONSchema, Layer } from "effect"
import { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { Accounts } from "../../features/Accounts/Accounts.ts"
import { KeyedAuthLive, PublicAccessLive } from "../../features/Accounts/AuthLive.ts"
import { PublicTraffic } from "../../features/Accounts/PublicTraffic.ts"
import { Quota } from "../../features/Accounts/Quota.ts"
import { RiskApi } from "../../Api.ts"
import { DecisionHttp } from "../../features/Decisions/Http.ts"
import { DeployerHttp } from "../../features/Deployer/Http.ts"
import { LaunchesRepo } from "../../features/Deployer/LaunchesRepo.ts"
import { Funders } from "../../features/Insiders/FundersRepo.ts"
import { InsidersHttp } from "../../features/Insiders/Http.ts"
import { registry } from "../Observability/Metrics.ts"
import { RiskCheckHttp } from "../../features/RiskCheck/Http.ts"
import { LatestScanCache } from "../../features/Scans/LatestScanCache.ts"
import { ReadCounter, ReadCountsFlushLive } from "../../features/Scans/ReadCounter.ts"
import { ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../features/Scans/ScansRepo.ts"
import { Transactions } from "../Sql/Transactions.ts"
import { DocsLive } from "../../features/System/Docs.ts"
import { Health } from "../../features/System/Health.ts"
import { Lifecycle } from "../../features/System/Lifecycle.ts"
import { SystemHttp } from "../../features/System/Http.ts"
import { TokenHttp } from "../../features/TokenRisk/Http.ts"
import { WalletHttp } from "../../features/WalletRisk/Http.ts"
import { WalletRisk } from "../../features/WalletRisk/WalletRisk.ts"
import { WatchHttp } from "../../features/Watches/Http.ts"
import { WatchesRepo } from "../../features/Watches/WatchesRepo.ts"
import { WebhookSettings } from "../../features/Webhooks/Config.ts"
import { WebhookEndpointsRepo } from "../../features/Webhooks/EndpointsRepo.ts"
import { WebhookHttp } from "../../features/Webhooks/Http.ts"
import { WebhookNotifyEndpoints } from "../../features/Webhooks/NotifyEndpoints.ts"
import { ApiMiddlewareLive } from "./Middleware.ts"

/** Each group's handlers and middleware: the API as a table of contents. */
const ApiLive = HttpApiBuilder.api(RiskApi).pipe(
  Layer.provide([
    SystemHttp,
    RiskCheckHttp,
    TokenHttp,
    InsidersHttp,
    WalletHttp,
    DeployerHttp,
    DecisionHttp,
    WatchHttp,
    WebhookHttp
  ]),
  Layer.provide([KeyedAuthLive, PublicAccessLive])
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
  Funders.Default,
  WatchesRepo.Default,
  WebhookEndpointsRepo.Default,
  // Watches' `notify` checks an endpoint through this (Watches/NotifyEndpoints.ts): Watches never imports Webhooks.
  WebhookNotifyEndpoints.pipe(Layer.provide(WebhookEndpointsRepo.Default)),
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
    Effect.map(
      Effect.promise(() => registry.metrics()),
      (text) => HttpServerResponse.text(text, { contentType: registry.contentType })
    )
  )
)

// The JSON Schema of evidence format v2 (docs/scan-evidence.md), for anyone who writes or reads scans.
const evidenceSchema = JSON.stringify(JSONSchema.make(ScanEvidenceV2))
const EvidenceSchemaLive = HttpApiBuilder.Router.use((router) =>
  router.get(
    "/schemas/scan-evidence-v2.json",
    Effect.succeed(
      HttpServerResponse.text(evidenceSchema, {
        contentType: "application/schema+json",
        headers: { "cache-control": "public, max-age=3600" }
      })
    )
  )
)

/** Routing, docs, /openapi.json, /metrics and the error envelope around the API. */
export const AppLive = Layer.mergeAll(
  DocsLive,
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  MetricsLive,
  EvidenceSchemaLive,
  ApiMiddlewareLive
).pipe(Layer.provideMerge(ApiLive))
