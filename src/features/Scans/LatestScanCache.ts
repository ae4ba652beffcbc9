import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, type Duration, Effect, Exit, Layer, Option, Runtime, type Scope } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ServiceUnavailable } from "../../domain/Errors.ts"
import { memoryPart } from "../../platform/Observability/Memory.ts"
import { scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import { MemoryBudgetConfig } from "../../platform/Runtime/Config.ts"
import { scanCacheBytesFor } from "../../platform/Runtime/MemoryBudget.ts"
import { DatabaseConfig, isEmbedded } from "../../platform/Sql/Config.ts"
import { ReadDatabase, ReadDatabaseLive } from "../../platform/Sql/ReadReplica.ts"
import { type Generation, listenForScans, makeRefresher, pollForScans } from "./LatestScanFreshness.ts"
import { makeReadsInFlight, type Read, type ReadsInFlight } from "./LatestScanReads.ts"
import { makeScanStore, type ScanStore } from "./LatestScanStore.ts"
import { ReadCounter } from "./ReadCounter.ts"
import { makeReplicaReads } from "./LatestScanReplica.ts"
import { type CheckedScan, type LatestReads, latestReadsOf, ScansRepo, type StoredScan } from "./ScansRepo.ts"

export { entryBytesOf } from "./LatestScanStore.ts"

/** The latest-scan cache as its callers see it: one lookup with a synchronous and an asynchronous face. */
export interface LatestScans {
  /**
   * What memory holds for a mint right now, without waiting: its latest scan; null when it is cached as
   * never scanned; undefined when not in memory. Counts nothing: whoever answers from it counts the hit.
   * The risk-check fast path answers from this; `latest` and `loadMany` start from it too.
   */
  readonly peek: (mint: string) => StoredScan | null | undefined
  /** The latest scan of a mint (whole): `peek`, or one read through the cache shared by concurrent callers. */
  readonly latest: (mint: Address) => Effect.Effect<Option.Option<StoredScan>, ServiceUnavailable>
  /**
   * What risk-check answers need of many mints (absent: never scanned): those in memory; the rest in one
   * shared read, each a latest scan if memory will keep it (ReadsInFlight.readVerdictsThrough), else its
   * stored verdict only (a verdict is never kept: it serves this answer).
   */
  readonly latestMany: (
    mints: ReadonlyArray<Address>
  ) => Effect.Effect<ReadonlyMap<string, CheckedScan>, ServiceUnavailable>
  /** `latestMany` as a Promise: the batch fast path reads the mints memory does not hold through it. */
  readonly loadMany: (
    mints: ReadonlyArray<Address>
  ) => Promise<Exit.Exit<ReadonlyMap<string, CheckedScan>, ServiceUnavailable>>
  /** What memory holds now: entries and their estimated heap bytes (absent when nothing is cached). */
  readonly footprint?: () => CacheFootprint
}

interface CacheFootprint {
  readonly entries: number
  readonly bytes: number
}

const STALE_GRACE_MS = 1_000

/**
 * The latest scan per mint, kept in this process so a warm risk-check never touches the database: the
 * store (LatestScanStore.ts: bounded to SCAN_CACHE_SIZE mints and SCAN_CACHE_MAX_BYTES of estimated heap,
 * a mint kept from its second read on), the shared reads through to the repository (LatestScanReads.ts),
 * and what keeps it fresh (LatestScanFreshness.ts): notifications on PostgreSQL, a poll on the embedded
 * database, a background refresh of entries just past their time. Entries also expire after
 * SCAN_CACHE_TTL_SECONDS as a backstop.
 */
// SCAN_CACHE_SIZE=0: nothing in memory, every read goes to the repository.
const passThrough = (
  inner: LatestReads,
  runPromiseExit: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>,
  countRead: (mint: string) => void = () => {}
): LatestScans => ({
  peek: () => undefined,
  latest: (mint) =>
    Effect.zipRight(
      Effect.sync(() => countRead(mint)),
      inner.latest(mint)
    ),
  latestMany: (mints) =>
    Effect.zipRight(
      Effect.sync(() => mints.forEach(countRead)),
      inner.latestVerdicts(mints)
    ),
  loadMany: (mints) => {
    mints.forEach(countRead)
    return runPromiseExit(inner.latestVerdicts(mints))
  }
})

export const makeLatestScans = (settings: {
  readonly size: number
  readonly ttlSeconds: number
  /** Bound on the entries' estimated heap bytes (entryBytesOf); none when absent. 0 turns the cache off. */
  readonly maxBytes?: number
  /** false on the embedded database, whose socket does not pass notifications: new scans are polled. */
  readonly notifications: boolean
  /**
   * A read replica (DATABASE_READ_URL) to read from, with the primary's notifications telling when it lags
   * (LatestScanReplica.ts); its reads stand in for ScansRepo's. Only with notifications.
   */
  readonly replica?: SqlClient.SqlClient
  /** How long reads stay on the primary after a replica read fails (default 5 s: LatestScanReplica.ts). */
  readonly replicaRetryAfter?: Duration.DurationInput
}): Effect.Effect<LatestScans, never, ScansRepo | SqlClient.SqlClient | PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function* () {
    const primary = yield* ScansRepo
    const replica =
      settings.replica === undefined || !settings.notifications
        ? undefined
        : makeReplicaReads({
            primary,
            replica: latestReadsOf(settings.replica),
            primarySql: yield* SqlClient.SqlClient,
            replicaSql: settings.replica,
            ...(settings.replicaRetryAfter === undefined ? {} : { retryAfter: settings.replicaRetryAfter })
          })
    const inner = replica?.reads ?? primary
    const counter = Option.getOrUndefined(yield* Effect.serviceOption(ReadCounter))
    const countRead = counter === undefined ? (_mint: string): void => {} : counter.count
    // Background work (polls, refreshes, shared reads) runs on this runtime: the server's logger and level.
    const runtime = yield* Effect.runtime<never>()
    const runPromiseExit = Runtime.runPromiseExit(runtime)
    // No cache, no listener to tell when a replica lags: every read goes to the primary.
    if (settings.size === 0 || settings.maxBytes === 0) return passThrough(primary, runPromiseExit, countRead)
    const store = makeScanStore({
      size: settings.size,
      maxBytes: settings.maxBytes ?? Number.POSITIVE_INFINITY,
      ttlMs: settings.ttlSeconds * 1000
    })
    const reads = makeReadsInFlight(inner, store, runPromiseExit)
    const generation: Generation = { value: 0 }
    const pollSoon = settings.notifications
      ? yield* Effect.as(
          listenForScans(yield* PgClient.PgClient, store, reads, generation, replica),
          (_now: number): void => {}
        )
      : yield* pollForScans(store, reads, generation, runtime)
    const refresh = makeRefresher(inner, store, generation, runtime)
    if (replica !== undefined) yield* Effect.forkScoped(replica.watch)
    yield* Effect.acquireRelease(
      Effect.sync(() => memoryPart("scan_cache", store.bytes)),
      (release) => Effect.sync(release)
    )
    return facesOf(store, reads, countRead, pollSoon, refresh)
  })

/**
 * The cache's faces over one lookup: memory first, counted a hit; else one shared read, a miss. An entry
 * just past its time is still answered for up to STALE_GRACE_MS while a background read refreshes it, so a
 * hot mint never sends a burst of requests down the slow path when it expires. Entries invalidated by a
 * notification are gone at once, never answered stale.
 */
const facesOf = (
  store: ScanStore,
  reads: ReadsInFlight,
  countRead: (mint: string) => void,
  pollSoon: (now: number) => void,
  refresh: (mint: string) => void
): LatestScans => {
  const held = (mint: string): StoredScan | null | undefined => {
    const now = Date.now()
    pollSoon(now)
    const entry = store.lookup(mint, now)
    if (entry === undefined) return undefined
    if (entry.until <= now) {
      if (now - entry.until > STALE_GRACE_MS) return undefined
      refresh(mint)
    }
    return entry.scan ?? null
  }
  const lookup = (mint: Address): StoredScan | null | Read => {
    const found = held(mint)
    countRead(mint)
    scanCacheEvents.inc({ result: found === undefined ? "miss" : "hit" })
    return found === undefined ? reads.readThrough(mint, Date.now()) : found
  }
  // Many mints: those in memory at once, the rest in one read shared with the reads in flight.
  const many = (
    mints: ReadonlyArray<Address>
  ): Map<string, CheckedScan> | Promise<Exit.Exit<Map<string, CheckedScan>, ServiceUnavailable>> => {
    const now = Date.now()
    const found = new Map<string, CheckedScan>()
    const missing: Array<Address> = []
    for (const mint of mints) {
      const scan = held(mint)
      countRead(mint)
      if (scan === undefined) missing.push(mint)
      else if (scan !== null) found.set(mint, scan)
    }
    scanCacheEvents.inc({ result: "hit" }, mints.length - missing.length)
    scanCacheEvents.inc({ result: "miss" }, missing.length)
    if (missing.length === 0) return found
    return Promise.all(reads.readVerdictsThrough(missing, now)).then((answers) => {
      for (const [i, read] of answers.entries()) {
        if (Exit.isFailure(read)) return Exit.failCause(read.cause)
        if (Option.isSome(read.value)) found.set(missing[i]!, read.value.value)
      }
      return Exit.succeed(found)
    })
  }
  return {
    // A hit is a read answered here; a miss is counted by the read that follows it.
    peek: (mint) => {
      const found = held(mint)
      if (found !== undefined) countRead(mint)
      return found
    },
    latest: (mint) =>
      Effect.suspend(() => {
        const found = lookup(mint)
        return found instanceof Promise
          ? Effect.flatten(Effect.promise(() => found))
          : Effect.succeed(Option.fromNullable(found))
      }),
    latestMany: (mints) =>
      Effect.suspend(() => {
        const found = many(mints)
        return found instanceof Promise ? Effect.flatten(Effect.promise(() => found)) : Effect.succeed(found)
      }),
    loadMany: (mints) => {
      const found = many(mints)
      return found instanceof Promise ? found : Promise.resolve(Exit.succeed(found))
    },
    footprint: (): CacheFootprint => ({ entries: store.entries(), bytes: store.bytes() })
  }
}

export const ScanCacheConfig = Config.all({
  size: Config.integer("SCAN_CACHE_SIZE").pipe(
    Config.validate({
      message: "SCAN_CACHE_SIZE must be between 0 and 10000000 (0 turns the cache off)",
      validation: (n) => n >= 0 && n <= 10_000_000
    }),
    // A bound on entries; SCAN_CACHE_MAX_BYTES bounds their heap and, at the defaults, binds first.
    Config.withDefault(30_000)
  ),
  maxBytes: Config.integer("SCAN_CACHE_MAX_BYTES").pipe(
    Config.validate({
      message: "SCAN_CACHE_MAX_BYTES must be >= 0 (0 turns the cache off)",
      validation: (n) => n >= 0
    }),
    // About 5.5 KB per mint of demo evidence (entryBytesOf): 64 MiB holds about 12,000 mints. By default an
    // eighth of the memory budget (MEMORY_LIMIT_MB, else the cgroup's limit), at most 64 MiB.
    Config.option,
    Config.zipWith(MemoryBudgetConfig, (set, budget) => Option.getOrElse(set, () => scanCacheBytesFor(budget)))
  ),
  ttlSeconds: Config.integer("SCAN_CACHE_TTL_SECONDS").pipe(
    Config.validate({
      message: "SCAN_CACHE_TTL_SECONDS must be between 1 and 3600",
      validation: (n) => n >= 1 && n <= 3_600
    }),
    Config.withDefault(60)
  )
})

/**
 * The latest scan per mint in this process (see makeLatestScans), over the scan repository; settings from
 * SCAN_CACHE_SIZE and SCAN_CACHE_TTL_SECONDS, notifications on PostgreSQL, polling on the embedded database.
 */
export class LatestScanCache extends Effect.Service<LatestScanCache>()("LatestScanCache", {
  dependencies: [ScansRepo.Default, ReadDatabaseLive],
  scoped: Effect.flatMap(
    Effect.all([ScanCacheConfig, DatabaseConfig, ReadDatabase]),
    ([settings, database, { sql, replica }]) =>
      makeLatestScans({ ...settings, notifications: !isEmbedded(database), ...(replica ? { replica: sql } : {}) })
  )
}) {}

/** The cache with explicit settings, over whatever ScansRepo is provided: for tests. */
export const latestScanCacheWith = (settings: Parameters<typeof makeLatestScans>[0]) =>
  Layer.scoped(LatestScanCache, Effect.map(makeLatestScans(settings), LatestScanCache.make))

/** No cache: every read goes to whatever ScansRepo is provided (tests of routes, not of the cache). */
export const LatestScanCacheOff = Layer.effect(
  LatestScanCache,
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    return LatestScanCache.make(passThrough(yield* ScansRepo, Runtime.runPromiseExit(runtime)))
  })
)
