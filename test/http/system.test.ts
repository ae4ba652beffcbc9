import { describe, expect, test } from "bun:test"
import { Health } from "../../src/System/Health.ts"
import { Effect, Layer } from "effect"
import { latestMigration } from "../../src/Sql/Migrations.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { memoryServices } from "../support/layers.ts"
import { read, testApp } from "../support/http.ts"

const live = runtimeFor(memoryServices({ health: Health.Default.pipe(Layer.provide(TestDatabase)) }))
const liveApp = testApp((await live.runtime.runtime()).context)

const down = runtimeFor(memoryServices({
  health: Layer.succeed(Health, Health.make({
    readiness: Effect.succeed({ ready: false, database: "unreachable" as const, migration: null, expectedMigration: latestMigration })
  }))
}))
const downApp = testApp((await down.runtime.runtime()).context)

describe(`probes on ${databaseKind}`, () => {
  test("/health is 200 with the version and uptime, without touching the database", async () => {
    const got = await read(await downApp("/health"))
    expect([got.status, got.body.status, typeof got.body.version, typeof got.body.uptimeSeconds]).toEqual([200, "ok", "string", "number"])
  })

  test("/ready is 200 when the database answers and every migration is applied", async () => {
    const got = await read(await liveApp("/ready"))
    expect([got.status, got.body]).toEqual([200, { status: "ready", database: "ok", migration: latestMigration, expectedMigration: latestMigration }])
  })

  test("/ready is 503 with the same fields when the database cannot be reached", async () => {
    const got = await read(await downApp("/ready"))
    expect([got.status, got.body.status, got.body.database, got.headers["retry-after"]]).toEqual([503, "not_ready", "unreachable", "5"])
  })
})
