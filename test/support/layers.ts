import { Layer } from "effect"
import { Accounts, AccountsMemory } from "../../src/features/Accounts/Accounts.ts"
import { PublicTrafficUnlimited, publicTrafficWith } from "../../src/features/Accounts/PublicTraffic.ts"
import { Quota, QuotaMemory } from "../../src/features/Accounts/Quota.ts"
import { LaunchesEmpty, LaunchesRepo } from "../../src/features/Deployer/LaunchesRepo.ts"
import { Funders, FundersNone } from "../../src/features/Insiders/FundersRepo.ts"
import { LatestScanCacheOff, latestScanCacheWith } from "../../src/features/Scans/LatestScanCache.ts"
import { ScanRequestsMemory, ScanRequestsRepo } from "../../src/features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../src/features/Scans/ScansRepo.ts"
import { ScansRepoMemory } from "../../src/features/Scans/ScansRepoMemory.ts"
import { Transactions, TransactionsNone } from "../../src/platform/Sql/Transactions.ts"
import { Health, HealthAlwaysReady } from "../../src/features/System/Health.ts"
import { Lifecycle } from "../../src/features/System/Lifecycle.ts"
import { WalletRepo, WalletRepoEmpty } from "../../src/features/WalletRisk/WalletRepo.ts"
import { WalletRisk } from "../../src/features/WalletRisk/WalletRisk.ts"
import { WatchesMemory, WatchesRepo } from "../../src/features/Watches/WatchesRepo.ts"
import { WebhookSettings } from "../../src/features/Webhooks/Config.ts"
import { WebhookEndpointsNone, WebhookEndpointsRepo } from "../../src/features/Webhooks/EndpointsRepo.ts"
import { WebhookNotifyEndpoints } from "../../src/features/Webhooks/NotifyEndpoints.ts"
import { TestDatabase } from "./database.ts"

// The test layers of the app's services: a new service is one edit here.

export interface ServiceOptions {
  /** PUBLIC_RATE_LIMIT_PER_MINUTE of the public routes (default 1,200). */
  readonly perMinute?: number
  /** The latest-scan cache; off (every read goes to the database) unless a test is about it. */
  readonly cache?: { readonly size: number; readonly ttlSeconds: number; readonly notifications: boolean }
}

/** Every service of the app (and the WalletRepo that imports write to) over SQL on one test database. */
export const sqlServices = (options: ServiceOptions = {}) =>
  Layer.mergeAll(
    options.cache === undefined ? LatestScanCacheOff : latestScanCacheWith(options.cache),
    ScansRepo.Default,
    ScanRequestsRepo.Default,
    Accounts.Default,
    Quota.Default,
    publicTrafficWith({ perMinute: options.perMinute ?? 1_200, trustProxy: false }),
    WalletRepo.Default,
    WalletRisk.Default,
    LaunchesRepo.Default,
    Funders.Default,
    WatchesRepo.Default,
    WebhookEndpointsRepo.Default,
    WebhookNotifyEndpoints.pipe(Layer.provide(WebhookEndpointsRepo.Default)),
    WebhookSettings.Live,
    Health.Default,
    Transactions.Default,
    Lifecycle.Default
  ).pipe(Layer.provide(ScansRepo.Default), Layer.provideMerge(TestDatabase))

/**
 * Every service of the app in memory: no database, nothing about wallets or traffic limits. A test replaces
 * the scan repository, the scan request queue or the health check to make them fail.
 */
export const memoryServices = (
  replaced: {
    readonly scans?: Layer.Layer<ScansRepo>
    readonly scanRequests?: Layer.Layer<ScanRequestsRepo>
    readonly health?: Layer.Layer<Health>
  } = {}
) =>
  Layer.mergeAll(
    LatestScanCacheOff,
    replaced.scanRequests ?? ScanRequestsMemory,
    AccountsMemory,
    QuotaMemory,
    PublicTrafficUnlimited,
    WalletRepoEmpty,
    WalletRisk.DefaultWithoutDependencies.pipe(Layer.provide([WalletRepoEmpty, LaunchesEmpty])),
    LaunchesEmpty,
    FundersNone,
    WatchesMemory,
    WebhookEndpointsNone,
    WebhookNotifyEndpoints.pipe(Layer.provide(WebhookEndpointsNone)),
    WebhookSettings.Live,
    TransactionsNone,
    replaced.health ?? HealthAlwaysReady,
    Lifecycle.Default
  ).pipe(Layer.provideMerge(replaced.scans ?? ScansRepoMemory))
