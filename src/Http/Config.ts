import { Config, Option, Redacted } from "effect"

// Every setting comes from the environment; see the README's configuration table.
export const AppConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(
    Config.validate({ message: "MAX_BODY_BYTES must be between 1024 and 10485760", validation: (n) => n >= 1024 && n <= 10_485_760 }),
    Config.withDefault(65_536)
  )
})

export const DatabaseConfig = Config.all({
  url: Config.redacted("DATABASE_URL").pipe(
    Config.validate({
      message: "DATABASE_URL must be a postgres:// or postgresql:// URL",
      validation: (url) => /^postgres(ql)?:\/\/[^\s]+$/.test(Redacted.value(url)) && URL.canParse(Redacted.value(url))
    }),
    Config.option
  ),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  poolSize: Config.integer("DATABASE_POOL_SIZE").pipe(
    Config.validate({ message: "DATABASE_POOL_SIZE must be between 1 and 100", validation: (n) => n >= 1 && n <= 100 }),
    Config.withDefault(10)
  ),
  seedDemo: Config.boolean("SEED_DEMO").pipe(Config.option)
})
export type DatabaseConfig = Config.Config.Success<typeof DatabaseConfig>

export const isEmbedded = (config: DatabaseConfig): boolean => Option.isNone(config.url)

export const PublicTrafficConfig = Config.all({
  perMinute: Config.integer("PUBLIC_RATE_LIMIT_PER_MINUTE").pipe(
    Config.validate({ message: "PUBLIC_RATE_LIMIT_PER_MINUTE must be >= 0 (0 turns the limit off)", validation: (n) => n >= 0 }),
    Config.withDefault(1_200)
  ),
  trustProxy: Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))
})
