// First, before anything else is loaded: a server's runtime heap sized from the memory budget.
import "./platform/Runtime/HeapBudget.ts"
import { ValidationError } from "@effect/cli"
import { BunContext, BunRuntime } from "@effect/platform-bun"
import { ConfigError, Console, Effect, Option, Predicate } from "effect"
import { ImportFailed, runCli } from "./interfaces/Cli/Commands.ts"
import { CliLoggingLive } from "./platform/Observability/Logging.ts"

const exitWith = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })

// The only file that touches Bun's process: everything else is a Layer or an Effect. Both failures
// below were already explained on stderr (invalid lines, bad arguments), so they only set the exit code.
runCli(process.argv).pipe(
  Effect.catchIf(
    (error) => error instanceof ImportFailed,
    () => exitWith(1)
  ),
  Effect.catchIf(ValidationError.isValidationError, () => exitWith(2)),
  // Operator mistakes (unknown account or key, bad plan) and an unreachable database: one line, exit 1.
  Effect.catchIf(
    (error) =>
      Predicate.isTagged(error, "AccountNotFound") ||
      Predicate.isTagged(error, "KeyNotFound") ||
      Predicate.isTagged(error, "InvalidPlan") ||
      Predicate.isTagged(error, "ServiceUnavailable") ||
      Predicate.isTagged(error, "SqlError") ||
      Predicate.isTagged(error, "InvalidAddress") ||
      Predicate.isTagged(error, "ScannerNotConfigured") ||
      Predicate.isTagged(error, "ScanFailed"),
    (error) => Effect.zipRight(Console.error(`risk-api: ${error.message}`), exitWith(1))
  ),
  // Start-up problems an operator fixes (bad setting, port in use, database down): one line, exit 1.
  Effect.catchIf(ConfigError.isConfigError, (error) =>
    Effect.zipRight(
      Console.error(`risk-api: invalid configuration: ${String(error).replace(/^\(|\)$/g, "")}`),
      exitWith(1)
    )
  ),
  Effect.catchSomeDefect((defect) =>
    defect instanceof Error && /Failed to start server|EADDRINUSE/.test(defect.message)
      ? Option.some(Effect.zipRight(Console.error(`risk-api: ${defect.message.split("\n")[0]}`), exitWith(1)))
      : Option.none()
  ),
  Effect.provide(BunContext.layer),
  Effect.provide(CliLoggingLive),
  BunRuntime.runMain({ disablePrettyLogger: true })
)
