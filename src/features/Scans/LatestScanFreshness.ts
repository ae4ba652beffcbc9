import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, Runtime, Schedule, type Scope, Stream } from "effect"
import type { Address } from "../../domain/Address.ts"
import { epochMillisOf } from "../../domain/ScanEvidence.ts"
import type { ReadsInFlight } from "./LatestScanReads.ts"
import type { ScanStore } from "./LatestScanStore.ts"
import type { ReplicaReads } from "./LatestScanReplica.ts"
import { parseNotification, probePayload, SCANS_CHANNEL } from "./ScanNotifications.ts"
import type { LatestReads, StoredScan } from "./ScansRepo.ts"

// How the latest-scan cache learns of new scans: notifications on PostgreSQL, a poll on the embedded
// database, and a background refresh of entries just past their time.

const POLL_MS = 250
const POLL_LIMIT = 1_000
const REFRESH_BATCH = 500
const PROBE_MS = 250

/** Counts invalidations, so a background refresh started before one is not kept. */
export interface Generation {
  value: number
}

/**
 * On PostgreSQL, writers notify SCANS_CHANNEL on commit and this process forgets those mints at once.
 * When the listener (re)connects the whole cache is dropped, since notifications may have been missed.
 * With a read replica, each notification's scan ids become floors for the replica's answers, and while
 * the listener is down, or not yet confirmed listening, reads go to the primary (LatestScanReplica.ts):
 * the listener confirms its LISTEN by receiving its own probe, then the replica catches up.
 */
export const listenForScans = (
  pg: PgClient.PgClient,
  store: ScanStore,
  reads: ReadsInFlight,
  generation: Generation,
  replica?: ReplicaReads
): Effect.Effect<void, never, Scope.Scope> => {
  const dropAll = () => {
    generation.value++
    store.dropAll()
    reads.clear()
  }
  const heard = (nonce: string, listening: Deferred.Deferred<void>) => (payload: string) =>
    Effect.suspend(() => {
      const notification = parseNotification(payload)
      if (notification === undefined) {
        dropAll()
        return Effect.void
      }
      if (notification.probe !== undefined) {
        return notification.probe === nonce ? Deferred.succeed(listening, undefined) : Effect.void
      }
      generation.value++
      for (const { mint, id } of notification.mints) {
        store.drop(mint)
        reads.forget(mint) // later requests read again rather than share a read from before
        if (id !== undefined) replica?.floor(mint, id)
      }
      return Effect.void
    })
  // Sends this listener's probe until it comes back, then lets reads use the replica once it has caught up.
  const confirm = (nonce: string, listening: Deferred.Deferred<void>) =>
    Effect.gen(function* () {
      while (!(yield* Deferred.isDone(listening))) {
        yield* Effect.ignore(pg`select pg_notify(${SCANS_CHANNEL}, ${probePayload(nonce)})`)
        yield* Effect.raceFirst(Deferred.await(listening), Effect.sleep(Duration.millis(PROBE_MS)))
      }
      if (replica !== undefined) yield* replica.resync
    })
  const session = Effect.gen(function* () {
    const nonce = crypto.randomUUID()
    const listening = yield* Deferred.make<void>()
    replica?.distrust()
    if (replica !== undefined) yield* Effect.forkScoped(confirm(nonce, listening))
    return yield* Stream.runForEach(pg.listen(SCANS_CHANNEL), heard(nonce, listening))
  }).pipe(Effect.scoped)
  return session.pipe(
    Effect.onExit(() =>
      Effect.sync(() => {
        replica?.distrust()
        generation.value++
        store.dropAll()
      })
    ),
    Effect.tapErrorCause((cause) => Effect.logWarning("scan notifications lost; cache cleared, reconnecting", cause)),
    Effect.retry(Schedule.spaced(Duration.seconds(1))),
    Effect.forkScoped,
    Effect.asVoid
  )
}

/**
 * On the embedded database, whose socket carries no notifications, the scans written since the last look
 * are read every POLL_MS instead (its transactions run one at a time, so ids commit in order). Gives
 * `pollSoon`, which requests call too, since timers can starve under a saturating request stream.
 */
export const pollForScans = (
  store: ScanStore,
  reads: ReadsInFlight,
  generation: Generation,
  runtime: Runtime.Runtime<never>
): Effect.Effect<(now: number) => void, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
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
      generation.value++
      if (rows.length > POLL_LIMIT) {
        // A bulk import: forget everything rather than page through it.
        seen = yield* newest
        store.dropAll()
        reads.clear()
        return
      }
      for (const row of rows) {
        // An entry or a read that returns this scan or a later one (ids commit in order here) already
        // accounts for it; anything else about this mint is forgotten.
        const id = BigInt(row.id)
        const held = store.get(row.mint)?.scan
        if (held === undefined || BigInt(held.id) < id) store.drop(row.mint)
        reads.announce(row.mint, id)
      }
      seen = rows[rows.length - 1]!.id
    })
    const runFork = Runtime.runFork(runtime)
    const pollSoon = (now: number): void => {
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
    return pollSoon
  })

/**
 * A mint's latest scan only moves forward, in (scannedAt, id) order, and is never removed: a read that
 * returns an older one, or none, came from a replica behind the one an entry was read from (several
 * replicas behind one DATABASE_READ_URL) and does not replace it.
 */
const newerOf = (held: StoredScan | undefined, fetched: StoredScan | undefined): StoredScan | undefined => {
  if (held === undefined || fetched === undefined) return fetched ?? held
  const byTime = epochMillisOf(fetched.evidence.scannedAt) - epochMillisOf(held.evidence.scannedAt)
  return byTime > 0 || (byTime === 0 && BigInt(fetched.id) >= BigInt(held.id)) ? fetched : held
}

/**
 * Expired mints are refreshed together in the background, one query for up to REFRESH_BATCH of them at a
 * time; a refresh that an invalidation overtook is not kept. If it fails the entries age out and the slow
 * path answers (503 while the database is down).
 */
export const makeRefresher = (
  inner: LatestReads,
  store: ScanStore,
  generation: Generation,
  runtime: Runtime.Runtime<never>
) => {
  const runFork = Runtime.runFork(runtime)
  const queued = new Set<string>()
  let refreshing = false
  const refreshQueued = (): void => {
    if (refreshing || queued.size === 0) return
    refreshing = true
    const mints = [...queued].slice(0, REFRESH_BATCH) as Array<Address>
    for (const mint of mints) queued.delete(mint)
    const started = generation.value
    const now = Date.now()
    runFork(
      inner.latestMany(mints).pipe(
        Effect.tap((fetched) =>
          Effect.sync(() => {
            if (started === generation.value)
              for (const mint of mints) store.remember(mint, newerOf(store.get(mint)?.scan, fetched.get(mint)), now)
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
  return (mint: string): void => {
    queued.add(mint)
    refreshQueued()
  }
}
