import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Duration, Effect, Exit, Layer, Option, Runtime, Schedule, type Scope, Stream } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ServiceUnavailable } from "../../domain/Errors.ts"
import { memoryPart } from "../../platform/Observability/Memory.ts"
import { scanCacheEvents } from "../../platform/Observability/Metrics.ts"
import { DatabaseConfig, isEmbedded } from "../../platform/Sql/Config.ts"
import { ReadCounter } from "./ReadCounter.ts"
import { SCANS_CHANNEL, ScansRepo, type StoredScan } from "./ScansRepo.ts"

/** The latest-scan cache as its callers see it: one lookup with a synchronous and an asynchronous face. */
export interface LatestScans {
  /**
   * What memory holds for a mint right now, without waiting: its latest scan; null when it is cached as
   * never scanned; undefined when not in memory. Counts nothing: whoever answers from it counts the hit.
   * The risk-check fast path answers from this; `load` and `latest` start from it too.
   */
  readonly peek: (mint: string) => StoredScan | null | undefined
  /** `peek`, or one read through the cache shared by concurrent callers (null: never scanned). */
  readonly load: (mint: Address) => Promise<Exit.Exit<StoredScan | null, ServiceUnavailable>>
  /** `load` as an Effect: the latest scan of a mint, from memory or read through. */
  readonly latest: (mint: Address) => Effect.Effect<Option.Option<StoredScan>, ServiceUnavailable>
  /** The latest scans of many mints: those in memory, the rest in one shared read. */
  readonly latestMany: (
    mints: ReadonlyArray<Address>
  ) => Effect.Effect<ReadonlyMap<string, StoredScan>, ServiceUnavailable>
  /** What memory holds now: entries and their estimated heap bytes (absent when nothing is cached). */
  readonly footprint?: () => CacheFootprint
}

export interface CacheFootprint {
  readonly entries: number
  readonly bytes: number
}

const STALE_GRACE_MS = 1_000
const POLL_MS = 250
const POLL_LIMIT = 1_000
const REFRESH_BATCH = 500

interface Entry {
  readonly scan: StoredScan | undefined // undefined: the mint has never been scanned
  readonly until: number
  /** Estimated heap bytes, measured once when stored (entryBytesOf). */
  readonly bytes: number
}

// The heap an entry holds, estimated once when it is stored, never per request. Measured on the demo
// evidence (test/bench/cacheBytes.ts): the parsed evidence takes about 1.3 bytes per byte of its JSON,
// and what the answers keep beside it for as long as the scan object lives (its assessment, and the
// pre-serialized verdict fragments of RiskCheck/Answer.ts for each age band it is answered in) about
// 2.4 KB more; the key, the entry and the Map slot about 200 bytes.
const ENTRY_BYTES = 200
const ANSWER_BYTES = 2_400
const HEAP_PER_JSON_BYTE = 1.3
export const entryBytesOf = (scan: StoredScan | undefined): number =>
  scan === undefined
    ? ENTRY_BYTES
    : ENTRY_BYTES + ANSWER_BYTES + Math.ceil(HEAP_PER_JSON_BYTE * JSON.stringify(scan.evidence).length)

/**
 * The latest scan per mint, kept in this process so a warm risk-check never touches the database.
 * On PostgreSQL, writers notify SCANS_CHANNEL on commit and every process listening forgets those mints
 * at once, so a scan imported anywhere is visible everywhere within the notification's delay. When the
 * listener (re)connects the whole cache is dropped, since notifications may have been missed meanwhile.
 * On the embedded database, whose socket carries no notifications, the scans written since the last
 * look are read every POLL_MS instead (its transactions run one at a time, so ids commit in order).
 * Entries also expire after SCAN_CACHE_TTL_SECONDS as a backstop. Bounded to SCAN_CACHE_SIZE mints and to
 * SCAN_CACHE_MAX_BYTES of estimated heap (oldest stored first out); a mint is kept from its second read on
 * (see `admitted`).
 */
// SCAN_CACHE_SIZE=0: nothing in memory, every read goes to the repository.
const passThrough = (
  inner: ScansRepo,
  runPromiseExit: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>,
  countRead: (mint: string) => void = () => {}
): LatestScans => ({
  peek: () => undefined,
  load: (mint) => {
    countRead(mint)
    return runPromiseExit(Effect.map(inner.latest(mint), Option.getOrNull))
  },
  latest: (mint) =>
    Effect.zipRight(
      Effect.sync(() => countRead(mint)),
      inner.latest(mint)
    ),
  latestMany: (mints) =>
    Effect.zipRight(
      Effect.sync(() => mints.forEach(countRead)),
      inner.latestMany(mints)
    )
})

export const makeLatestScans = (settings: {
  readonly size: number
  readonly ttlSeconds: number
  /** Bound on the entries' estimated heap bytes (entryBytesOf); none when absent. 0 turns the cache off. */
  readonly maxBytes?: number
  /** false on the embedded database, whose socket does not pass notifications: new scans are polled. */
  readonly notifications: boolean
}): Effect.Effect<LatestScans, never, ScansRepo | SqlClient.SqlClient | PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function* () {
    const inner = yield* ScansRepo
    const counter = Option.getOrUndefined(yield* Effect.serviceOption(ReadCounter))
    const countRead = counter === undefined ? (_mint: string): void => {} : counter.count
    // Background work (polls, refreshes, shared reads) runs on this runtime: the server's logger and level.
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const runPromiseExit = Runtime.runPromiseExit(runtime)
    if (settings.size === 0 || settings.maxBytes === 0) return passThrough(inner, runPromiseExit, countRead)
    const maxBytes = settings.maxBytes ?? Number.POSITIVE_INFINITY
    const pg = yield* PgClient.PgClient
    const entries = new Map<string, Entry>()
    let bytes = 0 // the sum of the entries' bytes
    const drop = (mint: string): void => {
      const entry = entries.get(mint)
      if (entry === undefined) return
      bytes -= entry.bytes
      entries.delete(mint)
    }
    const dropAll = (): void => {
      entries.clear()
      bytes = 0
    }
    const reading = new Map<string, Promise<Exit.Exit<Option.Option<StoredScan>, ServiceUnavailable>>>()
    const announced = new Map<string, bigint>() // mints with a read in flight: id of the newest scan polled
    const ttlMs = settings.ttlSeconds * 1000

    // Admission: a mint not in memory is kept the second time it is read within the last SCAN_CACHE_SIZE
    // first reads. One pass over many mints (a crawler, a sweep of a whole list) then neither flushes the
    // hot set nor churns the heap, which under a non-moving garbage collector costs far more resident
    // memory than the entries themselves; a mint asked about twice is kept from then on.
    let seenOnce = new Set<string>()
    const admitted = (mint: string): boolean => {
      if (entries.has(mint) || seenOnce.delete(mint)) return true
      if (seenOnce.size >= settings.size) seenOnce = new Set()
      seenOnce.add(mint)
      return false
    }

    const remember = (mint: string, scan: StoredScan | undefined, now: number) => {
      if (!admitted(mint)) return
      const previous = entries.get(mint)
      // A refresh that read the same scan again keeps its measure.
      const size = previous !== undefined && previous.scan?.id === scan?.id ? previous.bytes : entryBytesOf(scan)
      drop(mint)
      if (size > maxBytes) return
      entries.set(mint, { scan, until: now + ttlMs, bytes: size })
      bytes += size
      while (entries.size > settings.size || bytes > maxBytes) {
        const oldest = entries.keys().next()
        if (oldest.done) break
        drop(oldest.value)
      }
    }
    // A read in flight for a mint that a notification (or the poll) names is dropped from `reading`: its
    // answer may predate that commit, so it is returned but not kept, and later requests read again.
    // Background refreshes, which are not in `reading`, check this count of invalidations instead.
    let invalidations = 0
    let pollSoon = (_now: number): void => {}

    const forget = (payload: string) =>
      Effect.sync(() => {
        invalidations++
        try {
          for (const mint of JSON.parse(payload) as ReadonlyArray<string>) {
            drop(mint)
            reading.delete(mint) // later requests read again rather than share a read from before
          }
        } catch {
          dropAll()
          reading.clear()
          announced.clear()
        }
      })

    if (settings.notifications) {
      yield* Stream.runForEach(pg.listen(SCANS_CHANNEL), forget).pipe(
        Effect.onExit(() =>
          Effect.sync(() => {
            invalidations++
            dropAll()
          })
        ),
        Effect.tapErrorCause((cause) =>
          Effect.logWarning("scan notifications lost; cache cleared, reconnecting", cause)
        ),
        Effect.retry(Schedule.spaced(Duration.seconds(1))),
        Effect.forkScoped
      )
    }

    if (!settings.notifications) {
      const sql = yield* SqlClient.SqlClient
      const newest = sql<{ readonly id: string }>`select coalesce(max(id), 0)::text as id from scans`.pipe(
        Effect.map((rows) => rows[0]?.id ?? "0")
      )
      let seen = yield* newest.pipe(Effect.orElseSucceed(() => "0"))
      let polling = false
      let nextPoll = 0
      const changes = Effect.gen(function* () {
        const rows = yield* sql<{ readonly id: string; readonly mint: string }>`
            select id::text as id, mint from scans where id > ${seen}::bigint order by id limit ${POLL_LIMIT + 1}`
        if (rows.length === 0) return
        invalidations++
        if (rows.length > POLL_LIMIT) {
          // A bulk import: forget everything rather than page through it.
          seen = yield* newest
          dropAll()
          reading.clear()
          announced.clear()
          return
        }
        for (const row of rows) {
          // An entry or a read that returns this scan or a later one (ids commit in order here) already
          // accounts for it; anything else about this mint is forgotten.
          const id = BigInt(row.id)
          const held = entries.get(row.mint)?.scan
          if (held === undefined || BigInt(held.id) < id) drop(row.mint)
          if (reading.has(row.mint)) announced.set(row.mint, id)
        }
        seen = rows[rows.length - 1]!.id
      })
      // Started by a timer and, since timers can starve under a saturating request stream, by requests.
      pollSoon = (now) => {
        if (polling || now < nextPoll) return
        polling = true
        nextPoll = now + POLL_MS
        runFork(
          changes.pipe(
            Effect.catchAllCause((cause) =>
              Effect.logWarning("could not read new scans; cached entries age out meanwhile", cause)
            ),
            Effect.ensuring(
              Effect.sync(() => {
                polling = false
              })
            )
          )
        )
      }
      yield* Effect.forkScoped(
        Effect.repeat(
          Effect.sync(() => pollSoon(Date.now())),
          Schedule.spaced(Duration.millis(POLL_MS))
        )
      )
    }

    // Whether a finished read may be kept: it is still the current read (no notification named its mint
    // meanwhile) and, if the poll saw a new scan of the mint meanwhile, it returned that scan or a later one.
    const keepable = (mint: string, read: Promise<unknown>, scan: Option.Option<StoredScan>): boolean => {
      const current = reading.get(mint) === read
      if (current) reading.delete(mint)
      const newer = announced.get(mint)
      announced.delete(mint)
      return current && (newer === undefined || (Option.isSome(scan) && BigInt(scan.value.id) >= newer))
    }

    type Read = Promise<Exit.Exit<Option.Option<StoredScan>, ServiceUnavailable>>
    // Registers the read of one mint so concurrent misses share a single database read (an expiring hot
    // mint would otherwise send every waiting request to the database at once), and keeps its answer
    // if it may.
    const track = (mint: Address, answer: Read, now: number): Read => {
      const read: Read = answer.then((exit) => {
        if (Exit.isSuccess(exit) && keepable(mint, read, exit.value))
          remember(mint, Option.getOrUndefined(exit.value), now)
        else if (reading.get(mint) === read) reading.delete(mint)
        return exit
      })
      reading.set(mint, read)
      return read
    }

    const readThrough = (mint: Address, now: number): Read =>
      reading.get(mint) ?? track(mint, runPromiseExit(inner.latest(mint)), now)

    // The same for many mints: those already being read join that read, the others are read together
    // in one query (many bots sending the same batch to a cold server cause one read per mint).
    const readManyThrough = (mints: ReadonlyArray<Address>, now: number): ReadonlyArray<Read> => {
      const fresh = mints.filter((mint) => !reading.has(mint))
      if (fresh.length > 0) {
        const fetched = runPromiseExit(inner.latestMany(fresh))
        for (const mint of fresh) {
          track(mint, fetched.then(Exit.map((found) => Option.fromNullable(found.get(mint)))), now)
        }
      }
      return mints.map((mint) => reading.get(mint)!)
    }

    // An entry just past its time is still answered for up to STALE_GRACE_MS while a background read
    // refreshes it, so a hot mint never sends a burst of requests down the slow path when it expires.
    // Expired mints are refreshed together, one query for up to REFRESH_BATCH of them at a time. If the
    // refresh fails the entries age out and the slow path answers (503 while the database is down).
    // Entries invalidated by a notification are gone at once, never answered stale.
    const queued = new Set<string>()
    let refreshing = false
    const refreshQueued = (): void => {
      if (refreshing || queued.size === 0) return
      refreshing = true
      const mints = [...queued].slice(0, REFRESH_BATCH) as Array<Address>
      for (const mint of mints) queued.delete(mint)
      const generation = invalidations
      const now = Date.now()
      runFork(
        inner.latestMany(mints).pipe(
          Effect.tap((fetched) =>
            Effect.sync(() => {
              if (generation === invalidations) for (const mint of mints) remember(mint, fetched.get(mint), now)
            })
          ),
          Effect.ignore,
          Effect.ensuring(
            Effect.sync(() => {
              refreshing = false
              refreshQueued()
            })
          )
        )
      )
    }
    const held = (mint: string): StoredScan | null | undefined => {
      const now = Date.now()
      pollSoon(now)
      const entry = entries.get(mint)
      if (entry === undefined) return undefined
      if (entry.until <= now) {
        if (now - entry.until > STALE_GRACE_MS) return undefined
        queued.add(mint)
        refreshQueued()
      }
      return entry.scan ?? null
    }
    // The one lookup behind every face: memory first (peek), counted a hit; else one shared read, a miss.
    const lookup = (mint: Address): StoredScan | null | Read => {
      const found = held(mint)
      countRead(mint)
      scanCacheEvents.inc({ result: found === undefined ? "miss" : "hit" })
      return found === undefined ? readThrough(mint, Date.now()) : found
    }
    // A hit is a read answered here; a miss is counted by the `load` that follows it.
    const peek = (mint: string): StoredScan | null | undefined => {
      const found = held(mint)
      if (found !== undefined) countRead(mint)
      return found
    }
    const load = (mint: Address): Promise<Exit.Exit<StoredScan | null, ServiceUnavailable>> => {
      const found = lookup(mint)
      return found instanceof Promise ? found.then(Exit.map(Option.getOrNull)) : Promise.resolve(Exit.succeed(found))
    }
    const latest = (mint: Address): Effect.Effect<Option.Option<StoredScan>, ServiceUnavailable> =>
      Effect.suspend(() => {
        const found = lookup(mint)
        return found instanceof Promise
          ? Effect.flatten(Effect.promise(() => found))
          : Effect.succeed(Option.fromNullable(found))
      })
    const latestMany = (
      mints: ReadonlyArray<Address>
    ): Effect.Effect<ReadonlyMap<string, StoredScan>, ServiceUnavailable> =>
      Effect.suspend(() => {
        const now = Date.now()
        const found = new Map<string, StoredScan>()
        const missing: Array<(typeof mints)[number]> = []
        for (const mint of mints) {
          const scan = held(mint)
          countRead(mint)
          if (scan === undefined) missing.push(mint)
          else if (scan !== null) found.set(mint, scan)
        }
        scanCacheEvents.inc({ result: "hit" }, mints.length - missing.length)
        scanCacheEvents.inc({ result: "miss" }, missing.length)
        if (missing.length === 0) return Effect.succeed(found)
        return Effect.flatten(
          Effect.promise(async () => {
            const reads = await Promise.all(readManyThrough(missing, now))
            for (const [i, read] of reads.entries()) {
              if (Exit.isFailure(read)) return Exit.failCause(read.cause)
              if (Option.isSome(read.value)) found.set(missing[i]!, read.value.value)
            }
            return Exit.succeed(found)
          })
        )
      })
    const footprint = (): CacheFootprint => ({ entries: entries.size, bytes })
    yield* Effect.acquireRelease(
      Effect.sync(() => memoryPart("scan_cache", () => bytes)),
      (release) => Effect.sync(release)
    )
    return { peek, load, latest, latestMany, footprint }
  })

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
    // About 5.5 KB per mint of demo evidence (entryBytesOf): 64 MiB holds about 12,000 mints.
    Config.withDefault(64 * 1024 * 1024)
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
  dependencies: [ScansRepo.Default],
  scoped: Effect.flatMap(Effect.all([ScanCacheConfig, DatabaseConfig]), ([settings, database]) =>
    makeLatestScans({ ...settings, notifications: !isEmbedded(database) })
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
