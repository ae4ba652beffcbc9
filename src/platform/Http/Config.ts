import { Config } from "effect"

// The HTTP server's settings; see the README's configuration table.
export const AppConfig = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(
    Config.validate({
      message: "MAX_BODY_BYTES must be between 1024 and 10485760",
      validation: (n) => n >= 1024 && n <= 10_485_760
    }),
    Config.withDefault(65_536)
  ),
  // Origins whose pages may call the keyed /api/v1 routes (CORS), comma-separated; none by default.
  corsAllowedOrigins: Config.array(Config.string(), "CORS_ALLOWED_ORIGINS").pipe(
    Config.validate({
      message: "CORS_ALLOWED_ORIGINS must be origins such as https://app.example.org, comma-separated",
      validation: (origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin))
    }),
    Config.withDefault([] as ReadonlyArray<string>)
  ),
  // The bound on every request, database waits included (a silent database gives 503 at this deadline);
  // below Bun's idle timeout (BUN_IDLE_TIMEOUT_SECONDS, 10 s), so every request is answered.
  requestTimeoutMs: Config.integer("REQUEST_TIMEOUT_MS").pipe(
    Config.validate({
      message: "REQUEST_TIMEOUT_MS must be between 100 and 9000",
      validation: (n) => n >= 100 && n <= 9_000
    }),
    Config.withDefault(2_000)
  )
})

/** Bun closes a connection idle this long; REQUEST_TIMEOUT_MS stays below it. */
export const BUN_IDLE_TIMEOUT_SECONDS = 10

export const ShutdownConfig = Config.all({
  timeoutSeconds: Config.integer("SHUTDOWN_TIMEOUT_SECONDS").pipe(
    Config.validate({
      message: "SHUTDOWN_TIMEOUT_SECONDS must be between 1 and 300",
      validation: (n) => n >= 1 && n <= 300
    }),
    Config.withDefault(15)
  ),
  graceSeconds: Config.number("SHUTDOWN_GRACE_SECONDS").pipe(
    Config.validate({
      message: "SHUTDOWN_GRACE_SECONDS must be between 0 and 60",
      validation: (n) => n >= 0 && n <= 60
    }),
    Config.withDefault(1)
  )
})
