import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import { DatabaseConfig, type DatabaseConfig as Settings } from "./Config.ts"
import { embeddedPostgres } from "./Embedded.ts"
import { claimOrFindOwner, recordOwner, releaseOwner } from "./EmbeddedLock.ts"
import { MigrationsLive } from "./Migrations.ts"

export { embeddedPostgres } from "./Embedded.ts"

// connectTimeout bounds both a new connection and the wait for a free one in the pool (node-postgres).
const clientOptions = (settings: Settings) => ({
  applicationName: "risk-api",
  connectTimeout: Duration.millis(settings.connectTimeoutMs),
  idleTimeout: Duration.seconds(30)
})

// The server's bound on every statement, on both sides: node-postgres's query_timeout fails a query the
// database has not answered in time (a silent network included; the pool's connectionTimeoutMillis does the
// same for a connection), and the session's statement_timeout makes PostgreSQL stop it too. A transaction
// left idle (a bug, a stalled process) is ended by PostgreSQL after the same bound plus a second, so it
// cannot hold an account's quota row, and every keyed call of that account, for longer.
const withStatementTimeout = (url: Redacted.Redacted<string>, milliseconds: number) => {
  const parsed = new URL(Redacted.value(url))
  const options = [
    parsed.searchParams.get("options"),
    `-c statement_timeout=${milliseconds}`,
    `-c idle_in_transaction_session_timeout=${milliseconds + 1000}`
  ]
    .filter(Boolean)
    .join(" ")
  parsed.searchParams.set("options", options)
  parsed.searchParams.set("query_timeout", String(milliseconds))
  return Redacted.make(parsed.toString())
}

/** The embedded database of `dataDir`: started here, or the one another process of ours already runs. */
const embeddedOnDisk = (dataDir: string, sharedBuffersMb: number) =>
  Effect.gen(function* () {
    const owner = yield* claimOrFindOwner(dataDir)
    if (owner !== undefined) {
      yield* Effect.logDebug(`using the embedded database of process ${owner.pid} (${dataDir})`)
      return { host: "127.0.0.1", port: owner.port }
    }
    yield* Effect.addFinalizer(() => Effect.sync(() => releaseOwner(dataDir)))
    const address = yield* embeddedPostgres(dataDir, sharedBuffersMb)
    recordOwner(dataDir, address.port)
    return address
  })

const clientLayer = (settings: Settings, patience: "forever" | "brief") =>
  Option.match(settings.url, {
    onSome: (url) =>
      PgClient.layer({
        ...clientOptions(settings),
        // The server's statements are bounded; an operator's command (an import) may run long ones.
        url: patience === "forever" ? withStatementTimeout(url, settings.statementTimeoutMs) : url,
        maxConnections: settings.poolSize
      }),
    onNone: () =>
      Layer.unwrapScoped(
        Effect.map(embeddedOnDisk(settings.dataDir, settings.embeddedSharedBuffersMb), ({ host, port }) =>
          PgClient.layer({
            ...clientOptions(settings),
            host,
            port,
            database: "postgres",
            username: "postgres",
            maxConnections: 1
          })
        )
      )
  })

// A database that is not up yet is waited for with backoff (0.5 s doubling to 10 s), each failure logged
// without the URL. The server waits as long as it takes; a CLI command gives up after about 20 s.
const connectRetries = (patience: "forever" | "brief") =>
  Schedule.exponential(Duration.millis(500)).pipe(
    Schedule.either(Schedule.spaced(Duration.seconds(10))),
    Schedule.intersect(patience === "forever" ? Schedule.forever : Schedule.recurs(5)),
    Schedule.tapInput((error: unknown) =>
      Effect.logWarning("database not reachable yet; retrying", error instanceof Error ? error.message : String(error))
    )
  )

const connect = (settings: Settings, patience: "forever" | "brief") =>
  Layer.retry(clientLayer(settings, patience), connectRetries(patience))

/**
 * SqlClient on DATABASE_URL, or on the embedded database; migrations applied before anything uses it. The
 * server waits for its database as long as it takes; an operator's command gives up after about 20 s.
 */
export const databaseLayer = (patience: "forever" | "brief") =>
  Layer.unwrapEffect(
    Effect.map(DatabaseConfig, (settings) => Layer.provideMerge(MigrationsLive, connect(settings, patience)))
  )

export const DatabaseLive = databaseLayer("brief")
