import { SqlClient } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Duration, Effect, Schedule } from "effect"
import { streamLeader } from "./Metrics.ts"

// Leader election among N watcher processes on one PostgreSQL database (STREAM_LEADER_ELECTION): the
// watcher runs only while its process holds a session advisory lock, taken with pg_try_advisory_lock on a
// connection reserved from the pool for as long as it leads. The others retry every `retryMs`; when the
// leader's process or connection dies, PostgreSQL drops its lock and one of them takes over. The stream's
// dedupe (stream_events) stays in place, so a takeover overlap queues nothing twice. Not used on the
// embedded database, where the one process is the leader.

const lockSql = "select pg_try_advisory_lock(hashtextextended($1, 0)) as held"
const unlockSql = "select pg_advisory_unlock(hashtextextended($1, 0))"

/** The lock, held until the scope closes (then released on the same connection, which goes back to the pool). */
const acquire = (connection: Connection, key: string) =>
  Effect.acquireRelease(
    connection
      .execute(lockSql, [key], undefined)
      .pipe(Effect.map((rows) => (rows[0] as { held?: boolean } | undefined)?.held === true)),
    (held) => (held ? Effect.ignore(connection.execute(unlockSql, [key], undefined)) : Effect.void)
  )

/** Fails when the reserved connection stops answering: the lock may be gone with it. */
const heartbeat = (connection: Connection, everyMs: number) =>
  Effect.repeat(connection.execute("select 1", [], undefined), Schedule.spaced(Duration.millis(everyMs))).pipe(
    Effect.zipRight(Effect.never)
  )

/** Runs `run` only while this process leads (interrupting it when the lock's connection fails); never returns. */
export const whileLeader = <A, E, R>(run: Effect.Effect<A, E, R>, key: string, retryMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const term = Effect.scoped(
      Effect.gen(function* () {
        const connection = yield* sql.reserve
        if (!(yield* acquire(connection, key))) return
        streamLeader.set(1)
        yield* Effect.logInfo("stream: this watcher leads")
        yield* Effect.raceFirst(run, heartbeat(connection, retryMs)).pipe(
          Effect.ensuring(Effect.sync(() => streamLeader.set(0)))
        )
      })
    ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("stream: leadership lost or not taken", cause)))
    return yield* Effect.repeat(term, Schedule.spaced(Duration.millis(retryMs))).pipe(Effect.zipRight(Effect.never))
  })
