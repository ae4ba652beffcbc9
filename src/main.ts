import { BunContext, BunRuntime } from "@effect/platform-bun"
import { Effect } from "effect"
import { runCli } from "./cli/Commands.ts"

// The only file that touches Bun's process: everything else is a Layer or an Effect.
runCli(process.argv).pipe(Effect.provide(BunContext.layer), BunRuntime.runMain({ disableErrorReporting: false }))
