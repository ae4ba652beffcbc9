import type { SqlClient } from "@effect/sql"
import { Cause, Duration, Effect, Option, Predicate, Schedule } from "effect"
import type { Address } from "../../domain/Address.ts"
import { readReplicaFallbacks, readReplicaUp } from "../../platform/Observability/Metrics.ts"
import type { LatestReads, ReplicaLatestReads } from "./ScansRepo.ts"

// The latest-scan cache's reads from a read replica (DATABASE_READ_URL), made safe against its lag.
//
// The cache learns of new scans from the primary's notifications (a replica cannot deliver them), and may
// then read a mint from a replica that has not replayed that commit yet. Left alone, the cache would keep
// the old scan (or "never scanned") as fresh for its whole TTL. So:
// - Each notification names each mint's latest scan id as of its commit. Until a replica read returns that
//   very scan, the mint has a floor here, and a replica answer other than the floor's scan is read again
//   from the primary (which has the commit, since its notification came). So a rescan answered anywhere is
//   seen at once, and a mint just scanned is never remembered as never scanned.
// - Notifications sent while this process was not listening (at start, after the listener reconnects) are
//   lost, and their floors with them: until the listener's LISTEN is confirmed and the replica has replayed
//   the primary's WAL up to then, every read goes to the primary (`distrust` / `resync`).
// - A replica that is not in recovery (the primary itself under another URL) needs no catching up.
// - A replica read that fails (unreachable, timed out, cancelled by a conflict with recovery, anything but an
//   interruption) is answered by the primary instead, and every read goes to the primary for `retryAfter`
//   (a circuit breaker: a dead replica costs its connect timeout to the reads in flight when it fails, not
//   to every read). Then `watch` checks the replica again in the background, and reads go back to it once it
//   answers and has replayed the primary's WAL as of then. A query that is wrong fails on the primary too.

const FLOORS = 10_000

// What a replica failure logs: its SQLSTATE or network code and the driver's message (a URL is never in them).
const failureOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const inner: unknown = Predicate.hasProperty(error, "cause") ? error.cause : error
  const code = Predicate.hasProperty(inner, "code") && typeof inner.code === "string" ? `${inner.code} ` : ""
  return `${code}${inner instanceof Error ? inner.message : String(inner)}`
}
const RETRY_AFTER = Duration.seconds(5)

export interface ReplicaReads {
  /** Reads from the replica where it is known to be current, else from the primary. */
  readonly reads: LatestReads
  /** A notification: the mint's latest scan is `id` as of a commit the primary has made. */
  readonly floor: (mint: string, id: bigint) => void
  /** Notifications may be missed from now on: every read goes to the primary until `resync` ends. */
  readonly distrust: () => void
  /** Waits until the replica has replayed the primary's WAL as of now, then reads from the replica again. */
  readonly resync: Effect.Effect<void>
  /** Whether reads go to the replica now (tests and the log). */
  readonly trusted: () => boolean
  /** Runs for good (forked by the cache): after a replica failure, tries the replica again (see above). */
  readonly watch: Effect.Effect<never>
}

export const makeReplicaReads = (options: {
  readonly primary: LatestReads
  readonly replica: ReplicaLatestReads
  readonly primarySql: SqlClient.SqlClient
  readonly replicaSql: SqlClient.SqlClient
  /** How long reads stay on the primary after a replica failure before the replica is tried again. */
  readonly retryAfter?: Duration.DurationInput
}): ReplicaReads => {
  const { primary } = options
  const retryAfter = Duration.decode(options.retryAfter ?? RETRY_AFTER)
  const floors = new Map<string, bigint>()
  // Reads go to the replica while the listener is known to hear every notification (`listening`) and the
  // replica has not failed since it was last found current (`down`).
  let listening = false
  let down = false
  const failed = Effect.unsafeMakeLatch(false) // open while `down`: wakes `watch`
  readReplicaUp.set(1)
  const replicaFailed = (cause: Cause.Cause<unknown>) =>
    Effect.suspend(() => {
      if (down || Cause.isInterruptedOnly(cause)) return Effect.void
      down = true
      readReplicaUp.set(0)
      failed.unsafeOpen()
      return Effect.logWarning(
        `read replica failed; reading the primary, trying the replica again in ${Duration.format(retryAfter)}`,
        failureOf(cause)
      )
    })
  // A replica read, or the primary's answer to the same read when the replica fails.
  const orPrimary =
    <Args extends ReadonlyArray<unknown>, A, E, R>(
      read: (...args: Args) => Effect.Effect<A, R>,
      fallback: (...args: Args) => Effect.Effect<A, E>
    ) =>
    (...args: Args): Effect.Effect<A, E> =>
      read(...args).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : Effect.zipRight(
                Effect.zipRight(
                  Effect.sync(() => readReplicaFallbacks.inc()),
                  replicaFailed(cause)
                ),
                fallback(...args)
              )
        )
      )
  const replica: LatestReads = {
    latest: orPrimary(options.replica.latest, primary.latest),
    latestMany: orPrimary(options.replica.latestMany, primary.latestMany),
    latestVerdicts: orPrimary(options.replica.latestVerdicts, primary.latestVerdicts)
  }
  const isTrusted = () => listening && !down

  const setFloor = (mint: string, id: bigint): void => {
    floors.delete(mint) // the newest notification's id wins, and moves to the end (oldest out first)
    floors.set(mint, id)
    if (floors.size > FLOORS) floors.delete(floors.keys().next().value!)
  }
  // Whether the replica's answer for a mint is current as far as this process knows: no floor, or the
  // floor's very scan (which then clears the floor).
  const current = (mint: string, scan: { readonly id: string } | undefined): boolean => {
    const floor = floors.get(mint)
    if (floor === undefined) return true
    if (scan === undefined || BigInt(scan.id) !== floor) return false
    floors.delete(mint)
    return true
  }

  const latest: LatestReads["latest"] = (mint) =>
    isTrusted()
      ? Effect.flatMap(replica.latest(mint), (found) =>
          current(mint, Option.getOrUndefined(found)) ? Effect.succeed(found) : primary.latest(mint)
        )
      : primary.latest(mint)

  // The mints the replica answered behind a floor, answered again by the primary.
  const merged = <S extends { readonly id: string }>(
    found: ReadonlyMap<string, S>,
    behind: ReadonlyArray<string>,
    fresh: ReadonlyMap<string, S>
  ): Map<string, S> => {
    const all = new Map(found)
    for (const mint of behind) {
      const scan = fresh.get(mint)
      if (scan === undefined) all.delete(mint)
      else all.set(mint, scan)
    }
    return all
  }

  const latestMany: LatestReads["latestMany"] = (mints) =>
    isTrusted()
      ? Effect.flatMap(replica.latestMany(mints), (found) => {
          const behind = mints.filter((mint) => !current(mint, found.get(mint)))
          if (behind.length === 0) return Effect.succeed(found)
          return Effect.map(primary.latestMany(behind), (fresh) => merged(found, behind, fresh))
        })
      : primary.latestMany(mints)

  const latestVerdicts: LatestReads["latestVerdicts"] = (mints, whole = []) =>
    isTrusted()
      ? Effect.flatMap(replica.latestVerdicts(mints, whole), (found) => {
          const isBehind = (mint: Address) => !current(mint, found.get(mint))
          const behind = [mints.filter(isBehind), whole.filter(isBehind)] as const
          if (behind[0].length + behind[1].length === 0) return Effect.succeed(found)
          return Effect.map(primary.latestVerdicts(...behind), (fresh) =>
            merged(found, [...behind[0], ...behind[1]], fresh)
          )
        })
      : primary.latestVerdicts(mints, whole)

  const primaryPosition = options.primarySql<{ readonly lsn: string }>`
    select pg_current_wal_insert_lsn()::text as lsn`.pipe(Effect.map((rows) => rows[0]!.lsn))
  const replayed = (lsn: string) =>
    options.replicaSql<{ readonly current: boolean }>`
      select (not pg_is_in_recovery()) or coalesce(pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn, false) as current`.pipe(
      Effect.map((rows) => rows[0]?.current === true)
    )
  // Until the replica has replayed the primary's WAL as of now (fails when either cannot be asked); with
  // `onReplicaError`, a replica that cannot answer is also marked down (`watch` then tells when it is back).
  const caughtUpWith = (onReplicaError: (cause: Cause.Cause<unknown>) => Effect.Effect<void>) =>
    Effect.flatMap(primaryPosition, (lsn) =>
      replayed(lsn).pipe(
        Effect.tapErrorCause(onReplicaError),
        Effect.repeat({ schedule: Schedule.spaced(Duration.millis(100)), until: (current) => current })
      )
    )
  const caughtUp = caughtUpWith(() => Effect.void)
  const replicaCaughtUp = caughtUpWith(replicaFailed)
  let unsure = false // logged once per run of failures, not every second
  const resync = replicaCaughtUp.pipe(
    Effect.tap(() => {
      listening = true
      unsure = false
    }),
    Effect.tapErrorCause((cause) =>
      unsure
        ? Effect.void
        : Effect.zipRight(
            Effect.sync(() => {
              unsure = true
            }),
            Effect.logWarning(
              "could not compare the read replica with the primary; reading the primary meanwhile",
              cause
            )
          )
    ),
    Effect.retry(Schedule.spaced(Duration.seconds(1))),
    Effect.orDie,
    Effect.asVoid
  )
  const watch = Effect.gen(function* () {
    yield* failed.await
    yield* Effect.sleep(retryAfter)
    const back = yield* caughtUp.pipe(
      Effect.as(true),
      Effect.catchAllCause(() => Effect.succeed(false))
    )
    if (!back) return
    failed.unsafeClose()
    down = false
    readReplicaUp.set(1)
    yield* Effect.logInfo("read replica answering again; reads go to it")
  }).pipe(Effect.forever)

  return {
    reads: { latest, latestMany, latestVerdicts },
    floor: setFloor,
    distrust: () => {
      listening = false
      floors.clear()
    },
    resync,
    trusted: isTrusted,
    watch
  }
}
