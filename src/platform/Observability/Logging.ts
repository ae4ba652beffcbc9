import { Config, Effect, FiberRef, HashMap, HashSet, Layer, Logger, LogLevel } from "effect"

const LEVELS = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
} as const

export const LogConfig = Config.all({
  level: Config.literal(...(Object.keys(LEVELS) as Array<keyof typeof LEVELS>))("LOG_LEVEL").pipe(
    Config.withDefault("info" as const),
    Config.map((name) => LEVELS[name])
  ),
  format: Config.literal("json", "pretty")("LOG_FORMAT").pipe(Config.withDefault("json" as const))
})

const levelName = (level: LogLevel.LogLevel) => level.label.toLowerCase()

const text = (message: unknown): string =>
  Array.isArray(message) ? message.map(text).join(" ") : typeof message === "string" ? message : JSON.stringify(message)

/** Writes one JSON log line: time, level, message, then the fields. */
export const writeJsonLine = (
  level: string,
  message: string,
  fields: Iterable<readonly [string, unknown]>,
  date = new Date()
) => {
  const line: Record<string, unknown> = { time: date.toISOString(), level, message }
  for (const [key, value] of fields) line[key] = value
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** One JSON object per line on stdout: time, level, message, then the log's annotations as fields. */
const jsonLineLogger = Logger.make(({ annotations, cause, date, logLevel, message }) => {
  const fields: Array<readonly [string, unknown]> = [...HashMap.toEntries(annotations)]
  if (cause._tag !== "Empty") fields.push(["cause", String(cause).slice(0, 4_000)])
  writeJsonLine(levelName(logLevel), text(message), fields, date)
})

/** Commands log to stderr, so what they print on stdout (a new key, NDJSON) stays clean for pipes. */
export const cliLogger = Logger.prettyLogger({ stderr: true })

export const CliLoggingLive = Logger.replace(Logger.defaultLogger, cliLogger)

/** The server's logger, instead of any other: JSON lines on stdout (or the pretty format) at LOG_LEVEL. */
export const ServerLoggingLive = Layer.unwrapEffect(
  Effect.map(LogConfig, ({ format, level }) =>
    Layer.merge(
      Layer.scopedDiscard(
        Effect.locallyScopedWith(FiberRef.currentLoggers, () =>
          HashSet.make(format === "json" ? jsonLineLogger : Logger.prettyLogger())
        )
      ),
      Logger.minimumLogLevel(level)
    )
  )
)
