import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { DatabaseConfig } from "./Config.ts"
import { pooledClient, withStatementTimeout } from "./Database.ts"

/**
 * Where the risk-check reads go: a streaming replica of the primary (DATABASE_READ_URL), or the primary
 * itself (`replica: false`). Only reads that tolerate a replica's lag use it: the latest-scan cache's reads
 * (Scans/LatestScanCache.ts), which detect the lag from the primary's scan notifications. Everything that
 * writes, and every read that must see its own writes, stays on the primary's SqlClient.
 */
export class ReadDatabase extends Context.Tag("ReadDatabase")<
  ReadDatabase,
  { readonly sql: SqlClient.SqlClient; readonly replica: boolean }
>() {}

/**
 * The replica's own pool (DATABASE_POOL_SIZE connections, the server's statement timeout), connecting on
 * first use: a replica that is down when the server starts neither keeps it from starting nor fails a read
 * (its reads fall back to the primary: Scans/LatestScanReplica.ts). Not migrated (a replica replays the
 * primary's schema). Without DATABASE_READ_URL, the primary's client.
 */
export const ReadDatabaseLive = Layer.unwrapEffect(
  Effect.map(DatabaseConfig, (settings) =>
    Option.match(settings.readUrl, {
      onNone: () =>
        Layer.effect(
          ReadDatabase,
          Effect.map(SqlClient.SqlClient, (sql) => ({ sql, replica: false }))
        ),
      onSome: (url) =>
        Layer.scoped(
          ReadDatabase,
          Effect.map(
            Layer.build(
              pooledClient(
                { url: withStatementTimeout(url, settings.statementTimeoutMs) },
                { maxConnections: settings.poolSize, connectTimeoutMs: settings.connectTimeoutMs, probe: false }
              )
            ),
            (context) => ({ sql: Context.get(context, SqlClient.SqlClient), replica: true })
          )
        )
    })
  )
)
