import { SqlClient } from "@effect/sql"
import { address } from "@solana/kit"
import { Duration, Effect, Option, Runtime, Schedule } from "effect"
import { hostname } from "node:os"
import type { Address } from "../../domain/Address.ts"
import type { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { makeFundersRepo } from "../../features/Insiders/FundersRepo.ts"
import { makeMarketFiguresRepo } from "../../features/Market/MarketFiguresRepo.ts"
import { MarketMaxAgeSeconds, withMarketFigures } from "../../features/Market/Merge.ts"
import { ListingsRepo } from "../../features/Scans/ListingsRepo.ts"
import { type ClaimedScan, ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../features/Scans/ScansRepo.ts"
import { StreamEventsRepo } from "../Stream/EventsRepo.ts"
import { VERSION } from "../../features/System/Version.ts"
import { exchangeLabelsStatement } from "../../features/WalletRisk/WalletRepo.ts"
import { endpointsOf, type ScannerConfig } from "./Config.ts"
import exchangesFile from "./exchanges.json" with { type: "json" }
import issuersFile from "../../domain/issuers.json" with { type: "json" }
import { oldestPending, queueDepth, scanDuration, scansTotal } from "./Metrics.ts"
import { defaultReferencePool } from "./PoolScan.ts"
import { makeRpcClient } from "./Rpc.ts"
import { ScanFailed, scanMint, type ScanSettings } from "./Scan.ts"
import { type FunderBook, memoryLaunches } from "./stages/FunderBook.ts"

/**
 * Mints whose launch windows a scanner process keeps: at most SCANNER_LAUNCH_TRANSACTIONS records a mint of
 * about two changes each (some 0.5 KB a record), so about 12 MB at the most, far less for quiet launches.
 */
const LAUNCH_MEMORY_MINTS = 1_000

// The worker that fills the cache: it drains the scan queue (rescan requests first, then due watches,
// then stale mints people read, most read first), scans each mint over JSON-RPC and appends the
// evidence to the history, whose NOTIFY reaches every API process's cache. N workers on N machines share
// the queue through leases (FOR UPDATE SKIP LOCKED): no mint is scanned twice at once, and a crashed
// worker's lease runs out and another takes the job.

interface IssuerEntry {
  readonly mint: string
  readonly issuer: string
  readonly source: string
}

const issuerMap = (entries: ReadonlyArray<IssuerEntry>) =>
  new Map(
    entries.map((entry) => [entry.mint, { issuer: entry.issuer.slice(0, 100), source: entry.source.slice(0, 500) }])
  )

const loadIssuers = (file: Option.Option<string>) =>
  Option.match(file, {
    onNone: () => Effect.succeed(issuerMap(issuersFile.issuers)),
    onSome: (path) =>
      Effect.tryPromise({
        try: async () => issuerMap(((await Bun.file(path).json()) as { issuers: ReadonlyArray<IssuerEntry> }).issuers),
        catch: (cause) =>
          new Error(`SCANNER_ISSUERS_FILE ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
      }).pipe(Effect.orDie)
  })

const shippedExchanges = new Map(
  exchangesFile.wallets.map((wallet) => [wallet.address, { label: wallet.label, source: wallet.source }])
)

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** Retry delay after the n-th failed attempt: 5 s doubling, at most 10 minutes, with jitter. */
const backoffMs = (attempts: number) =>
  Math.min(600_000, 5_000 * 2 ** Math.max(0, attempts - 1)) * (0.75 + Math.random() / 2)

/** The labelled exchange wallets: those shipped, and those operators add with `risk-api import-wallets` (label "exchange"). */
const exchangeLabelsOf = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  let exchangeLabels: ReadonlyMap<string, { label: string; source: string }> = shippedExchanges
  const refresh = exchangeLabelsStatement(sql).pipe(
    // biome-ignore lint/suspicious/useIterableCallbackReturn: Effect.map, not Array#map; the refresh yields void
    Effect.map((rows) => {
      const merged = new Map(shippedExchanges)
      for (const row of rows)
        merged.set(row.address, {
          label: (row.detail || "exchange").slice(0, 100),
          source: `wallet label from ${row.source}`.slice(0, 200)
        })
      exchangeLabels = merged
    }),
    Effect.catchAllCause((cause) => Effect.logWarning("exchange labels not refreshed", cause))
  )
  return { current: () => exchangeLabels, refresh }
})

const rpcClientOf = (config: ScannerConfig, urls: ReadonlyArray<string>) =>
  makeRpcClient({
    urls,
    timeoutMs: config.timeoutMs,
    retries: config.retries,
    requestsPerSecond: config.requestsPerSecond,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    maxRetryAfterMs: 10_000,
    batch: config.batch
  })

// Each lane takes one request at a time, so a slow mint holds up only its own lane.
const laneLoop = (
  config: ScannerConfig,
  requests: ScanRequestsRepo,
  worker: string,
  handle: (claim: ClaimedScan) => Effect.Effect<unknown, unknown>
) =>
  Effect.gen(function* () {
    const claimed = yield* requests.claim(worker, 1, config.leaseMs)
    // Idle: the next poll, or sooner when this process queues a request (the watcher beside the scanner).
    if (claimed.length === 0) return yield* requests.awaitWork(config.pollMs)
    yield* Effect.forEach(claimed, handle, { discard: true })
  }).pipe(
    // The database is down or a bug: log, wait, carry on; the lease returns the job to the queue.
    Effect.catchAllCause((cause) =>
      Effect.zipRight(Effect.logWarning("scanner lane failed; retrying", cause), Effect.sleep(Duration.seconds(1)))
    ),
    Effect.forever
  )

/** Enqueues the mints due for a rescan, and publishes the queue's depth. */
const scheduleLoop = (config: ScannerConfig, requests: ScanRequestsRepo) =>
  Effect.gen(function* () {
    yield* requests.enqueueDue({
      staleMs: config.refreshSeconds * 1000,
      readWindowMs: config.readWindowSeconds * 1000,
      limit: 1_000
    })
    const depth = yield* requests.depth()
    queueDepth.set(depth.pending)
    oldestPending.set(depth.oldestAgeSeconds)
  }).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("scan scheduling failed; retrying", cause)),
    Effect.repeat(Schedule.spaced(Duration.millis(config.scheduleMs)))
  )

const funderBookOf = Effect.gen(function* () {
  const funders = yield* makeFundersRepo
  const runtime = yield* Effect.runtime<never>()
  const book: FunderBook = {
    lookup: (wallets) =>
      Runtime.runPromise(runtime)(
        funders.lookup(wallets).pipe(Effect.tapError((error) => Effect.logWarning("funders not read", error.message)))
      ),
    remember: (rows) =>
      Runtime.runPromise(runtime)(
        funders.remember(rows).pipe(Effect.tapError((error) => Effect.logWarning("funders not kept", error.message)))
      )
  }
  return book
})

/** The evidence with the launch stream's record of the token's launch, when it saw one. */
const withLaunchSeen = (
  evidence: ScanEvidenceV2,
  seen: Effect.Effect.Success<ReturnType<StreamEventsRepo["launchOf"]>>
): ScanEvidenceV2 =>
  seen === undefined
    ? evidence
    : {
        ...evidence,
        launch: {
          program: seen.program as Address,
          kind: seen.kind as "create" | "create_v2" | "create_pool",
          slot: Number(seen.slot),
          signature: seen.signature,
          time: seen.blockTime?.toISOString() ?? null
        }
      }

/** One claimed request: scanned and stored, then completed; or failed, with a retry after a backoff. */
const handlerOf =
  (
    config: ScannerConfig,
    requests: ScanRequestsRepo,
    worker: string,
    scan: (mint: Address) => Effect.Effect<ScanEvidenceV2, ScanFailed>,
    store: (evidence: ScanEvidenceV2) => Effect.Effect<unknown, Effect.Effect.Error<ReturnType<ScansRepo["record"]>>>
  ) =>
  (claim: ClaimedScan) =>
    scan(claim.mint).pipe(
      Effect.flatMap((evidence) => Effect.zipRight(store(evidence), requests.complete(claim.id, worker))),
      Effect.tap(() =>
        Effect.logDebug("scanned").pipe(Effect.annotateLogs({ mint: claim.mint, reason: claim.reason }))
      ),
      Effect.catchTag("ScanFailed", (error) =>
        Effect.zipRight(
          Effect.logInfo("scan failed").pipe(
            Effect.annotateLogs({ mint: claim.mint, attempts: claim.attempts, error: error.reason })
          ),
          requests.fail(
            claim.id,
            worker,
            error.reason,
            backoffMs(claim.attempts),
            error.permanent ? 0 : config.maxAttempts
          )
        )
      )
    )

/** The settings of each scan, with the exchange labels as last refreshed. */
const settingsOf = (
  config: ScannerConfig,
  issuers: ScanSettings["issuers"],
  labels: Effect.Effect.Success<typeof exchangeLabelsOf>,
  referencePool: ScanSettings["referencePool"],
  book: FunderBook
) => {
  const insiders = config.insiders
    ? {
        funderCalls: config.funderCalls,
        launchWindowSlots: config.launchWindowSlots,
        launchTransactions: config.launchTransactions,
        book,
        // The launch windows of the mints this process scanned last: a rescan reads none of it again.
        launches: memoryLaunches(LAUNCH_MEMORY_MINTS)
      }
    : undefined
  const settings = (): ScanSettings => ({
    signaturePages: config.signaturePages,
    scannerVersion: VERSION,
    issuers,
    exchangeLabels: labels.current(),
    referencePool,
    maxPools: config.maxPools,
    maxLpPools: config.maxLpPools,
    ...(insiders === undefined ? {} : { insiders })
  })
  return settings
}

/** One scan, measured: the evidence, or why there is none. */
const scanOf =
  (
    config: ScannerConfig,
    client: ReturnType<typeof rpcClientOf>,
    listings: ListingsRepo,
    settings: () => ScanSettings
  ) =>
  (mint: Address): Effect.Effect<ScanEvidenceV2, ScanFailed> =>
    Effect.gen(function* () {
      const started = performance.now()
      const { counter, rpc } = client.forScan(config.callBudget)
      // The lists are the operator's data, not the chain's: without them the scan still stands.
      const listed = yield* listings.listsOf(mint).pipe(Effect.orElseSucceed(() => []))
      return yield* Effect.tryPromise({
        try: () => scanMint(rpc, counter, address(mint), settings(), listed),
        catch: (error) => (error instanceof ScanFailed ? error : new ScanFailed(reasonOf(error), false))
      }).pipe(
        Effect.tap((evidence) => Effect.sync(() => scansTotal.inc({ result: evidence.scanDepth }))),
        Effect.tapError((error) =>
          Effect.sync(() => scansTotal.inc({ result: error.permanent ? "not_a_token" : "failed" }))
        ),
        Effect.ensuring(Effect.sync(() => scanDuration.observe((performance.now() - started) / 1000)))
      )
    })

export const makeScanner = (config: ScannerConfig) =>
  Effect.gen(function* () {
    const scans = yield* ScansRepo
    const listings = yield* ListingsRepo
    const requests = yield* ScanRequestsRepo
    const urls = endpointsOf(config)
    const client = rpcClientOf(config, urls)
    const referencePool = Option.isSome(config.referencePool)
      ? address(config.referencePool.value)
      : yield* Effect.promise(defaultReferencePool)
    const issuers = yield* loadIssuers(config.issuersFile)
    const marketFigures = yield* makeMarketFiguresRepo
    const marketMaxAgeSeconds = yield* MarketMaxAgeSeconds
    const labels = yield* exchangeLabelsOf
    // First funders are kept in wallet_funders: a wallet read once is never read again, by any scan.
    const book = yield* funderBookOf
    const settings = settingsOf(config, issuers, labels, referencePool, book)

    /** One scan, measured: the evidence, or why there is none. */
    const scan = scanOf(config, client, listings, settings)

    // Plain RPC has no 24 h volume, trades or price change: the operator's market feed, when fresh, fills
    // the market fact of the scan as stored (docs/market-feed.md). Like the lists, the scan stands without it.
    const withMarket = (evidence: ScanEvidenceV2) =>
      marketFigures.latest(evidence.mint).pipe(
        Effect.map((figures) => withMarketFigures(evidence, Option.getOrUndefined(figures), marketMaxAgeSeconds)),
        Effect.catchAll((error) => Effect.as(Effect.logWarning("market figures not read", error.message), evidence))
      )

    // The launch stream's record of the token's launch (src/workers/Stream), when it saw one: the `launch` block.
    const launches = yield* Effect.provide(StreamEventsRepo, StreamEventsRepo.Default)
    const withLaunch = (evidence: ScanEvidenceV2) =>
      launches.launchOf(evidence.mint).pipe(
        Effect.map((seen) => withLaunchSeen(evidence, seen)),
        Effect.catchAll(() => Effect.succeed(evidence))
      )

    /** The evidence with the market feed and the launch merged, appended to the history. */
    const store = (evidence: ScanEvidenceV2) =>
      Effect.flatMap(Effect.flatMap(withMarket(evidence), withLaunch), (stored) =>
        Effect.as(scans.record([stored]), stored)
      )

    /** Scans a mint now and stores the evidence (`risk-api scan`); answers the evidence as stored. */
    const scanAndStore = (mint: Address) => Effect.flatMap(scan(mint), store)

    const worker = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`

    const handle = handlerOf(config, requests, worker, scan, store)

    /** The worker: lanes, the scheduler and the label refresh, until interrupted. */
    const run = Effect.gen(function* () {
      yield* Effect.logInfo("scanner started").pipe(
        Effect.annotateLogs({
          worker,
          endpoints: client.endpoints().join(","),
          concurrency: config.concurrency
        })
      )
      yield* Effect.all(
        [
          Effect.repeat(labels.refresh, Schedule.spaced(Duration.minutes(1))),
          scheduleLoop(config, requests),
          ...Array.from({ length: config.concurrency }, () => laneLoop(config, requests, worker, handle))
        ],
        { concurrency: "unbounded", discard: true }
      )
    })

    return { scan, scanAndStore, run, worker }
  })
