import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import Pg from "pg"
import { DatabaseConfig, type DatabaseConfig as Settings } from "./Config.ts"
import { embeddedPostgres } from "./Embedded.ts"
import { claimOrFindOwner, recordOwner, releaseOwner } from "./EmbeddedLock.ts"
import { MigrationsLive } from "./Migrations.ts"

export { embeddedPostgres } from "./Embedded.ts"

// The server's bound on every statement, on both sides: the session's statement_timeout makes PostgreSQL stop
// it (SQLSTATE 57014, a 503: Sql/Unavailable.ts), and node-postgres's query_timeout, half a second later,
// fails a query a silent database never answers (the pool's connectionTimeoutMillis does the same for a
// connection). The database's own cancel comes first, so its client stays usable; a client the
// query_timeout gave up on still runs its query and is closed on release (closeBusyOnRelease). A transaction
// left idle (a bug, a stalled process) is ended by PostgreSQL after the same bound plus a second, so it
// cannot hold an account's quota row, and every keyed call of that account, for longer.
export const QUERY_TIMEOUT_MARGIN_MS = 500

export const withStatementTimeout = (url: Redacted.Redacted<string>, milliseconds: number) => {
  const parsed = new URL(Redacted.value(url))
  const options = [
    parsed.searchParams.get("options"),
    `-c statement_timeout=${milliseconds}`,
    `-c idle_in_transaction_session_timeout=${milliseconds + 1000}`
  ]
    .filter(Boolean)
    .join(" ")
  parsed.searchParams.set("options", options)
  parsed.searchParams.set("query_timeout", String(milliseconds + QUERY_TIMEOUT_MARGIN_MS))
  return Redacted.make(parsed.toString())
}

// A client handed back to the pool while its query still runs (node-postgres's query_timeout answered the
// caller, or an interrupted query whose cancel did not land on a hung database) would be given to the next
// query while the first still holds it: the driver queues the second behind the first and warns ("Calling
// client.query() when the client is already executing a query"). Such a client is closed instead, so the
// pool opens a fresh one; a client released idle goes back to the pool as before.
const activeQueryOf = (client: Pg.PoolClient): unknown =>
  (client as unknown as { readonly _getActiveQuery?: () => unknown })._getActiveQuery?.() ?? null

const closeBusyOnRelease = (pool: Pg.Pool): Pg.Pool =>
  pool.on("release", (_error: Error | undefined, client: Pg.PoolClient) => {
    if (activeQueryOf(client) !== null) void client.end().catch(() => undefined)
  })

/** The pool PgClient.layer would build (same options), with closeBusyOnRelease; ended with the layer. */
export const pooledClient = (
  connection: { readonly url: Redacted.Redacted<string> } | { readonly host: string; readonly port: number },
  options: {
    readonly maxConnections: number
    readonly connectTimeoutMs: number
    /** Connect once before the layer is built (default); false: connect on first use (a read replica's pool). */
    readonly probe?: boolean
  }
) =>
  PgClient.layerFromPool({
    applicationName: "risk-api",
    acquire: Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = closeBusyOnRelease(
            new Pg.Pool({
              ...("url" in connection
                ? { connectionString: Redacted.value(connection.url) }
                : { host: connection.host, port: connection.port, database: "postgres", user: "postgres" }),
              // Bounds both a new connection and the wait for a free one in the pool.
              connectionTimeoutMillis: options.connectTimeoutMs,
              idleTimeoutMillis: 30_000,
              max: options.maxConnections,
              application_name: "risk-api"
            })
          )
          pool.on("error", () => undefined) // an idle client's lost connection: the pool drops it
          if (options.probe === false) return pool
          try {
            await pool.query("SELECT 1") // reachable now, or the layer fails and is retried (connectRetries)
          } catch (cause) {
            await pool.end().catch(() => undefined)
            throw cause
          }
          return pool
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
  })

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
      // The server's statements are bounded; an operator's command (an import) may run long ones.
      pooledClient(
        { url: patience === "forever" ? withStatementTimeout(url, settings.statementTimeoutMs) : url },
        { maxConnections: settings.poolSize, connectTimeoutMs: settings.connectTimeoutMs }
      ),
    onNone: () =>
      Layer.unwrapScoped(
        Effect.map(embeddedOnDisk(settings.dataDir, settings.embeddedSharedBuffersMb), ({ host, port }) =>
          pooledClient({ host, port }, { maxConnections: 1, connectTimeoutMs: settings.connectTimeoutMs })
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

// On PostgreSQL, migrations run on a connection of their own, without the server's statement timeout and
// closed once they are applied: a migration that rewrites or backfills a large table (sql/0014 reads the
// whole history) may take minutes, and would otherwise be cancelled at DATABASE_STATEMENT_TIMEOUT_MS and keep
// the server from starting. Its transaction holds the locks it takes for as long as it runs. The embedded
// database has no statement timeout: migrations run on its one connection.
const migratedAlone = (url: Redacted.Redacted<string>, settings: Settings, patience: "forever" | "brief") =>
  Layer.effectDiscard(
    Effect.scoped(
      Layer.build(
        Layer.provide(
          MigrationsLive,
          Layer.retry(
            pooledClient({ url }, { maxConnections: 1, connectTimeoutMs: settings.connectTimeoutMs }),
            connectRetries(patience)
          )
        )
      )
    )
  )

/**
 * SqlClient on DATABASE_URL, or on the embedded database; migrations applied before anything uses it. The
 * server waits for its database as long as it takes; an operator's command gives up after about 20 s.
 */
export const databaseLayer = (patience: "forever" | "brief") =>
  Layer.unwrapEffect(
    Effect.map(DatabaseConfig, (settings) =>
      Option.match(settings.url, {
        onSome: (url) => Layer.provideMerge(connect(settings, patience), migratedAlone(url, settings, patience)),
        onNone: () => Layer.provideMerge(MigrationsLive, connect(settings, patience))
      })
    )
  )

export const DatabaseLive = databaseLayer("brief")
