import { describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime, Option } from "effect"
import { LatestScanCache, latestScanCacheWith } from "../../../src/features/Scans/LatestScanCache.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { TestDatabase } from "../../support/database.ts"
import { newAddress } from "../../support/fixtures.ts"

// The cache's background work (its poll for new scans) logs through the logger and level of the runtime
// the cache was built in, as the server's JSON logger and LOG_LEVEL, never through Effect's default logger.
const capturing = () => {
  const lines: Array<{ level: string; message: string }> = []
  const capture = Logger.make(({ logLevel, message }) => {
    lines.push({ level: logLevel.label, message: String(Array.isArray(message) ? message[0] : message) })
  })
  return { capture, lines }
}

describe("latest-scan cache logging", () => {
  test("a read through the cache logs with the application's logger (the read runs on the cache's runtime)", async () => {
    const { capture, lines } = capturing()
    const repo = Layer.succeed(
      ScansRepo,
      ScansRepo.make({
        latest: () => Effect.as(Effect.logWarning("read by the repository"), Option.none()),
        latestMany: () => Effect.succeed(new Map()),
        latestVerdicts: () => Effect.succeed(new Map()),
        record: () => Effect.die("not used"),
        history: () => Effect.die("not used"),
        latestDocument: () => Effect.die("not used")
      })
    )
    const runtime = ManagedRuntime.make(
      latestScanCacheWith({ size: 10, ttlSeconds: 60, notifications: false }).pipe(
        Layer.provide(repo),
        Layer.provide(TestDatabase),
        Layer.provide(Logger.replace(Logger.defaultLogger, capture))
      )
    )
    try {
      await runtime.runPromise(Effect.flatMap(LatestScanCache, (cache) => cache.latest(newAddress())))
      expect(lines).toContainEqual({ level: "WARN", message: "read by the repository" })
    } finally {
      await runtime.dispose()
    }
  }, 30_000) // the test starts its own embedded database: seconds on a loaded machine

  test("a failed background poll is logged by the application's logger, at its level", async () => {
    const { capture, lines } = capturing()
    const runtime = ManagedRuntime.make(
      latestScanCacheWith({ size: 10, ttlSeconds: 60, notifications: false }).pipe(
        Layer.provideMerge(ScansRepo.Default),
        Layer.provideMerge(TestDatabase),
        Layer.provide(Logger.replace(Logger.defaultLogger, capture)),
        Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
      )
    )
    try {
      await runtime.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`alter table scans rename to scans_away`)
      )
      // A read of the cache starts a poll, which now fails in the background.
      await runtime.runPromise(Effect.flatMap(LatestScanCache, (cache) => Effect.sync(() => cache.peek(newAddress()))))
      const deadline = Date.now() + 5_000
      while (!lines.some((line) => line.message.includes("could not read new scans")) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(
        lines.filter((line) => line.message.includes("could not read new scans")).map((line) => line.level)
      ).toContain("WARN")
    } finally {
      await runtime.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`alter table scans_away rename to scans`)
      )
      await runtime.dispose()
    }
  }, 30_000) // the test starts its own embedded database: seconds on a loaded machine
})
