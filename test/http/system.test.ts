import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { AccountsMemory } from "../../src/Accounts/Accounts.ts"
import { Health, HealthSql } from "../../src/System/Health.ts"
import { PublicTrafficUnlimited } from "../../src/Accounts/PublicTraffic.ts"
import { QuotaMemory } from "../../src/Accounts/Quota.ts"
import { ScanCacheMemory } from "../../src/Scans/ScansRepo.ts"
import { ScanRequestsMemory } from "../../src/Scans/ScanRequestsRepo.ts"
import { WalletRiskLive } from "../../src/Wallet/WalletRisk.ts"
import { WalletStoreEmpty } from "../../src/Wallet/WalletRepo.ts"
import { WatchesMemory } from "../../src/Watches/WatchesRepo.ts"
import { latestMigration } from "../../src/Sql/Migrations.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { read, testApp } from "../support/http.ts"

const others = Layer.mergeAll(
  ScanCacheMemory, ScanRequestsMemory, AccountsMemory, QuotaMemory, PublicTrafficUnlimited, WalletStoreEmpty,
  WalletRiskLive.pipe(Layer.provide(WalletStoreEmpty)), WatchesMemory
)

const live = runtimeFor(Layer.mergeAll(others, HealthSql.pipe(Layer.provide(TestDatabase))))
const liveApp = testApp((await live.runtime.runtime()).context)

const down = runtimeFor(Layer.mergeAll(others, Layer.succeed(Health, {
  readiness: Effect.succeed({ ready: false, database: "unreachable" as const, migration: null, expectedMigration: latestMigration })
})))
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
