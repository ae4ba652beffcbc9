import { PgClient } from "@effect/sql-pg"
import { Config, Duration, Effect, Layer, Option, Schedule, Stream } from "effect"
import { DatabaseConfig, isEmbedded } from "../Config.ts"
import { scanCacheEvents } from "../http/Metrics.ts"
import type { ServiceUnavailable } from "../api/Errors.ts"
import { ScanCache, ScanCacheSql, SCANS_CHANNEL, type StoredScan } from "./ScanCache.ts"

export const ScanCacheConfig = Config.all({
  size: Config.integer("SCAN_CACHE_SIZE").pipe(
    Config.validate({ message: "SCAN_CACHE_SIZE must be between 0 and 10000000 (0 turns the cache off)", validation: (n) => n >= 0 && n <= 10_000_000 }),
    Config.withDefault(200_000)
  ),
  ttlSeconds: Config.integer("SCAN_CACHE_TTL_SECONDS").pipe(
    Config.validate({ message: "SCAN_CACHE_TTL_SECONDS must be between 1 and 3600", validation: (n) => n >= 1 && n <= 3_600 }),
    Config.withDefault(60)
  )
})

interface Entry {
  readonly scan: StoredScan | undefined // undefined: the mint has never been scanned
  readonly until: number
}

/**
 * The latest scan per mint, kept in this process so a warm risk-check never touches the database.
 * On PostgreSQL, writers notify SCANS_CHANNEL on commit and every process listening forgets those mints
 * at once, so a scan imported anywhere is visible everywhere within the notification's delay. On the
 * embedded database (one server process) entries live at most a second instead. When the listener
 * (re)connects the whole cache is dropped, since notifications may have been missed meanwhile; entries
 * also expire after SCAN_CACHE_TTL_SECONDS as a backstop. Bounded to SCAN_CACHE_SIZE mints (oldest
 * first out).
 */
export const makeCachedScanCache = (settings: {
  readonly size: number
  readonly ttlSeconds: number
  /** false on the embedded database, whose socket does not pass notifications: entries then live 1 s. */
  readonly notifications: boolean
}) =>
  Layer.scoped(
    ScanCache,
    Effect.gen(function*() {
      const inner = yield* Effect.provide(ScanCache, ScanCacheSql)
      if (settings.size === 0) return inner
      const pg = yield* PgClient.PgClient
      const entries = new Map<string, Entry>()
      const reading = new Map<string, Effect.Effect<Option.Option<StoredScan>, ServiceUnavailable>>()
      const ttlMs = settings.notifications ? settings.ttlSeconds * 1000 : Math.min(settings.ttlSeconds * 1000, 1000)

      const remember = (mint: string, scan: StoredScan | undefined, now: number) => {
        entries.delete(mint)
        entries.set(mint, { scan, until: now + ttlMs })
        if (entries.size > settings.size) {
          const oldest = entries.keys().next()
          if (!oldest.done) entries.delete(oldest.value)
        }
      }
      const cached = (mint: string, now: number): Entry | undefined => {
        const entry = entries.get(mint)
        if (entry === undefined || entry.until <= now) return undefined
        return entry
      }

      const forget = (payload: string) =>
        Effect.sync(() => {
          try {
            for (const mint of JSON.parse(payload) as ReadonlyArray<string>) entries.delete(mint)
          } catch {
            entries.clear()
          }
        })

      if (settings.notifications) {
        yield* Stream.runForEach(pg.listen(SCANS_CHANNEL), forget).pipe(
          Effect.onExit(() => Effect.sync(() => entries.clear())),
          Effect.tapErrorCause((cause) => Effect.logWarning("scan notifications lost; cache cleared, reconnecting", cause)),
          Effect.retry(Schedule.spaced(Duration.seconds(1))),
          Effect.forkScoped
        )
      }

      return {
        ...inner,
        latest: (mint) =>
          Effect.suspend(() => {
            const now = Date.now()
            const entry = cached(mint, now)
            if (entry !== undefined) {
              scanCacheEvents.inc({ result: "hit" })
              return Effect.succeed(Option.fromNullable(entry.scan))
            }
            scanCacheEvents.inc({ result: "miss" })
            // Concurrent misses on one mint share a single database read (an expiring hot mint would
            // otherwise send every waiting request to the database at once).
            const running = reading.get(mint)
            if (running !== undefined) return running
            const read = Effect.runSync(Effect.cached(
              inner.latest(mint).pipe(
                Effect.tap((scan) => Effect.sync(() => remember(mint, Option.getOrUndefined(scan), now))),
                Effect.ensuring(Effect.sync(() => reading.delete(mint)))
              )
            ))
            reading.set(mint, read)
            return read
          }),
        latestMany: (mints) =>
          Effect.suspend(() => {
            const now = Date.now()
            const found = new Map<string, StoredScan>()
            const missing: Array<(typeof mints)[number]> = []
            for (const mint of mints) {
              const entry = cached(mint, now)
              if (entry === undefined) missing.push(mint)
              else if (entry.scan !== undefined) found.set(mint, entry.scan)
            }
            scanCacheEvents.inc({ result: "hit" }, mints.length - missing.length)
            scanCacheEvents.inc({ result: "miss" }, missing.length)
            if (missing.length === 0) return Effect.succeed(found)
            return Effect.map(inner.latestMany(missing), (fetched) => {
              for (const mint of missing) {
                const scan = fetched.get(mint)
                remember(mint, scan, now)
                if (scan !== undefined) found.set(mint, scan)
              }
              return found
            })
          })
      }
    })
  )

export const ScanCacheCachedLive = Layer.unwrapEffect(
  Effect.map(
    Effect.all([ScanCacheConfig, DatabaseConfig]),
    ([settings, database]) => makeCachedScanCache({ ...settings, notifications: !isEmbedded(database) })
  )
)
