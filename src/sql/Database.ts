import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option } from "effect"
import { DatabaseConfig, type DatabaseConfig as Settings } from "../Config.ts"
import { MigrationsLive } from "./Migrations.ts"

const clientOptions = {
  applicationName: "risk-api",
  connectTimeout: Duration.seconds(5),
  idleTimeout: Duration.seconds(30)
} as const

/** Starts PGlite on `dataDir` behind a loopback Postgres socket so the same PgClient and SQL serve both. */
export const embeddedPostgres = (dataDir: string) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.promise(() => PGlite.create(dataDir)),
      (db) => Effect.promise(() => db.close())
    )
    // PGlite is one session: a pool of one keeps transactions from interleaving on it.
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
    yield* Effect.acquireRelease(
      Effect.promise(() => server.start()),
      () => Effect.promise(() => server.stop())
    )
    const [host, port] = server.getServerConn().split(":")
    return { host: host ?? "127.0.0.1", port: Number(port) }
  })

const clientLayer = (settings: Settings) =>
  Option.match(settings.url, {
    onSome: (url) => PgClient.layer({ ...clientOptions, url, maxConnections: settings.poolSize }),
    onNone: () =>
      Layer.unwrapScoped(
        Effect.map(embeddedPostgres(settings.dataDir), ({ host, port }) =>
          PgClient.layer({ ...clientOptions, host, port, database: "postgres", username: "postgres", maxConnections: 1 })
        )
      )
  })

/** SqlClient on DATABASE_URL, or on the embedded database; migrations applied before anything uses it. */
export const DatabaseLive = Layer.unwrapEffect(
  Effect.map(DatabaseConfig, (settings) => Layer.provideMerge(MigrationsLive, clientLayer(settings)))
)
