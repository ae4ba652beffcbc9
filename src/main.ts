import { ValidationError } from "@effect/cli"
import { BunContext, BunRuntime } from "@effect/platform-bun"
import { Effect } from "effect"
import { ImportFailed, runCli } from "./cli/Commands.ts"

const exitWith = (code: number) => Effect.sync(() => void (process.exitCode = code))

// The only file that touches Bun's process: everything else is a Layer or an Effect. Both failures
// below were already explained on stderr (invalid lines, bad arguments), so they only set the exit code.
runCli(process.argv).pipe(
  Effect.catchIf((error) => error instanceof ImportFailed, () => exitWith(1)),
  Effect.catchIf(ValidationError.isValidationError, () => exitWith(2)),
  Effect.provide(BunContext.layer),
  BunRuntime.runMain
)
