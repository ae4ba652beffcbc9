import { Config, Option, Redacted } from "effect"

export const EMBEDDED_SHARED_BUFFERS_MB = 16

// The database settings; see the README's configuration table.
const postgresUrl = (name: string) =>
  Config.redacted(name).pipe(
    Config.validate({
      message: `${name} must be a postgres:// or postgresql:// URL`,
      validation: (url) => /^postgres(ql)?:\/\/[^\s]+$/.test(Redacted.value(url)) && URL.canParse(Redacted.value(url))
    }),
    Config.option
  )

export const DatabaseConfig = Config.all({
  url: postgresUrl("DATABASE_URL"),
  // A streaming replica of DATABASE_URL's database for the risk-check reads (Sql/ReadReplica.ts); needs DATABASE_URL.
  readUrl: postgresUrl("DATABASE_READ_URL"),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  // The embedded database's buffer pool, resident for good once used (see EmbeddedWorker.ts).
  embeddedSharedBuffersMb: Config.integer("EMBEDDED_SHARED_BUFFERS_MB").pipe(
    Config.validate({
      message: "EMBEDDED_SHARED_BUFFERS_MB must be between 1 and 1024",
      validation: (n) => n >= 1 && n <= 1024
    }),
    Config.withDefault(EMBEDDED_SHARED_BUFFERS_MB)
  ),
  poolSize: Config.integer("DATABASE_POOL_SIZE").pipe(
    Config.validate({ message: "DATABASE_POOL_SIZE must be between 1 and 100", validation: (n) => n >= 1 && n <= 100 }),
    Config.withDefault(10)
  ),
  seedDemo: Config.boolean("SEED_DEMO").pipe(Config.option),
  connectTimeoutMs: Config.integer("DATABASE_CONNECT_TIMEOUT_MS").pipe(
    Config.validate({
      message: "DATABASE_CONNECT_TIMEOUT_MS must be between 100 and 60000",
      validation: (n) => n >= 100 && n <= 60_000
    }),
    Config.withDefault(2_000)
  ),
  statementTimeoutMs: Config.integer("DATABASE_STATEMENT_TIMEOUT_MS").pipe(
    Config.validate({
      message: "DATABASE_STATEMENT_TIMEOUT_MS must be between 100 and 3600000",
      validation: (n) => n >= 100 && n <= 3_600_000
    }),
    Config.withDefault(1_500)
  )
}).pipe(
  Config.validate({
    message: "DATABASE_READ_URL needs DATABASE_URL (a replica of the embedded database cannot exist)",
    validation: (config) => Option.isSome(config.url) || Option.isNone(config.readUrl)
  })
)
export type DatabaseConfig = Config.Config.Success<typeof DatabaseConfig>

export const isEmbedded = (config: DatabaseConfig): boolean => Option.isNone(config.url)
