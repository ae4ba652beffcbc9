import { describe, expect, test } from "bun:test"
import { Health } from "../../../src/features/System/Health.ts"
import { Effect, Layer } from "effect"
import { latestMigration } from "../../../src/platform/Sql/Migrations.ts"
import { VERSION } from "../../../src/features/System/Version.ts"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { memoryServices } from "../../support/layers.ts"
import { testApp, testClient } from "../../support/http.ts"

const live = runtimeFor(memoryServices({ health: Health.Default.pipe(Layer.provide(TestDatabase)) }))
const liveApp = testApp((await live.runtime.runtime()).context)
const liveClient = testClient(liveApp)

const down = runtimeFor(
  memoryServices({
    health: Layer.succeed(
      Health,
      Health.make({
        readiness: Effect.succeed({
          ready: false,
          database: "unreachable" as const,
          migration: null,
          expectedMigration: latestMigration
        })
      })
    )
  })
)
const downApp = testApp((await down.runtime.runtime()).context)
const downClient = testClient(downApp)

// Through the typed client, as a probe's code sees them: a body decodes only from a 200, the not-ready body
// only from a 503.
describe(`probes on ${databaseKind}`, () => {
  test("/health is 200 with the version and uptime, without touching the database", async () => {
    const health = await Effect.runPromise(downClient.system.health())
    expect([health.status, health.version]).toEqual(["ok", VERSION])
    expect(health.uptimeSeconds).toBeGreaterThanOrEqual(0)
  })

  test("/ready is 200 when the database answers and every migration is applied", async () => {
    const ready = await Effect.runPromise(liveClient.system.ready())
    expect(ready).toEqual({
      status: "ready",
      database: "ok",
      migration: latestMigration,
      expectedMigration: latestMigration
    })
  })

  test("/ready is 503 with the same fields when the database cannot be reached", async () => {
    const notReady = await Effect.runPromise(Effect.flip(downClient.system.ready()))
    expect(notReady).toEqual({
      status: "not_ready",
      database: "unreachable",
      migration: null,
      expectedMigration: latestMigration
    })
    // Raw: a failure through the client carries no headers.
    const got = await downApp("/ready")
    expect([got.status, got.headers.get("retry-after")]).toEqual([503, "5"])
  })
})
