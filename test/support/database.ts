import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import { embeddedPostgres } from "../../src/platform/Sql/Database.ts"
import { MigrationsLive } from "../../src/platform/Sql/Migrations.ts"

// Tests run on PostgreSQL when TEST_DATABASE_URL is set (each test file in its own schema, dropped
// afterwards), otherwise on an embedded in-memory PGlite, through the same PgClient and migrations.
export const testDatabaseUrl = process.env.TEST_DATABASE_URL

export const databaseKind = testDatabaseUrl === undefined ? "embedded PGlite" : "PostgreSQL"

const isolatedSchema = (url: string) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const schema = `test_${crypto.randomUUID().replaceAll("-", "")}`
      const admin = PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
      const run = (statement: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(Effect.provide(admin), Effect.orDie)
      yield* run(`create schema ${schema}`)
      yield* Effect.addFinalizer(() => run(`drop schema ${schema} cascade`))
      const separator = url.includes("?") ? "&" : "?"
      return PgClient.layer({
        url: Redacted.make(`${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`),
        maxConnections: 8
      })
    })
  )

const embedded = Layer.unwrapScoped(
  Effect.map(embeddedPostgres("memory://"), ({ host, port }) =>
    PgClient.layer({ host, port, database: "postgres", username: "postgres", maxConnections: 1 })
  )
)

/** An empty database with no migration applied, for tests of a migration itself (test/platform/Sql). */
export const TestDatabaseUnmigrated = (testDatabaseUrl === undefined ? embedded : isolatedSchema(testDatabaseUrl)).pipe(
  Layer.orDie
)

/** A migrated, empty database for one test file. Build it once per file (PGlite takes seconds to start). */
export const TestDatabase = Layer.provideMerge(
  MigrationsLive,
  testDatabaseUrl === undefined ? embedded : isolatedSchema(testDatabaseUrl)
).pipe(Layer.orDie)

/**
 * The names of an index of the partitioned scan history (sql/0018) and of its copies on each partition, which
 * a plan names instead of it.
 */
export const partitionIndexes = (sql: SqlClient.SqlClient, index: string) =>
  Effect.map(
    sql<{ name: string }>`
      select ${index}::text as name
      union all
      select c.relname::text from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${index}::regclass`,
    (rows) => rows.map((row) => row.name)
  )
