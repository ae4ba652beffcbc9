import type { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schedule } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { LatestReads } from "./ScansRepo.ts"

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

const FLOORS = 10_000

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
}

export const makeReplicaReads = (options: {
  readonly primary: LatestReads
  readonly replica: LatestReads
  readonly primarySql: SqlClient.SqlClient
  readonly replicaSql: SqlClient.SqlClient
}): ReplicaReads => {
  const { primary, replica } = options
  const floors = new Map<string, bigint>()
  let trusted = false

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
    trusted
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
    trusted
      ? Effect.flatMap(replica.latestMany(mints), (found) => {
          const behind = mints.filter((mint) => !current(mint, found.get(mint)))
          if (behind.length === 0) return Effect.succeed(found)
          return Effect.map(primary.latestMany(behind), (fresh) => merged(found, behind, fresh))
        })
      : primary.latestMany(mints)

  const latestVerdicts: LatestReads["latestVerdicts"] = (mints, whole = []) =>
    trusted
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
  const resync = Effect.gen(function* () {
    const lsn = yield* primaryPosition
    yield* replayed(lsn).pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(100)), until: (caughtUp) => caughtUp })
    )
    trusted = true
  }).pipe(
    Effect.tapErrorCause((cause) =>
      Effect.logWarning("could not compare the read replica with the primary; reading the primary meanwhile", cause)
    ),
    Effect.retry(Schedule.spaced(Duration.seconds(1))),
    Effect.orDie
  )

  return {
    reads: { latest, latestMany, latestVerdicts },
    floor: setFloor,
    distrust: () => {
      trusted = false
      floors.clear()
    },
    resync,
    trusted: () => trusted
  }
}
