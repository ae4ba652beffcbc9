import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { ScanRetention } from "../../../src/features/Scans/ScanRetention.ts"
import { WebhookRetentionFloor } from "../../../src/features/Webhooks/RetentionFloor.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"
import { type Deployment, newDeployment, runCli } from "../../support/process.ts"

// Retention of the scan history (`risk-api prune-scans`): scans older than the window go, except the latest
// scan of each mint, the 24 hours before it (its liquidity trend) and what the watch-alert evaluator has
// not passed yet.
const decode = Schema.decodeUnknownSync(ScanEvidence)
const DAY_MINUTES = 24 * 60
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString()
const scanAt = (mint: string, minutesAgo: number, liquidityUsd = 100_000) =>
  decode(
    cleanScan(mint, {
      scannedAt: at(minutesAgo),
      liquidity: { liquidityUsd, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 2 }
    })
  )

/** When each stored scan of a mint was taken, oldest first, in minutes ago (rounded). */
const historyOf = (mint: Address) =>
  Effect.map(ScansRepo.history(mint, { since: null, limit: 1_000 }), (scans) =>
    scans.map((scan) => Math.round((Date.now() - Date.parse(scan.evidence.scannedAt)) / 60_000))
  )

/** The watch-alert evaluator has passed every scan stored so far (as a running server's would). */
const evaluated = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`update webhook_scan_cursor set last_scan_id = (select coalesce(max(id), 0) from scans) where id = 1`
)

const prune = (keepDays: number, options: { readonly dryRun?: boolean; readonly batchSize?: number } = {}) =>
  Effect.flatMap(ScanRetention, (retention) =>
    retention.prune({ keepDays, batchSize: options.batchSize ?? 2, dryRun: options.dryRun ?? false })
  )

describe(`scan retention on ${databaseKind}`, () => {
  const { it } = runtimeFor(
    Layer.mergeAll(ScanRetention.Default.pipe(Layer.provide(WebhookRetentionFloor)), ScansRepo.Default).pipe(
      Layer.provideMerge(TestDatabase)
    )
  )

  it("deletes scans older than the window; keeps the latest of each mint (even when older), the day before it and the window", () =>
    Effect.gen(function* () {
      const [active, stale] = [newAddress(), newAddress()]
      yield* ScansRepo.record([
        scanAt(active, 20 * DAY_MINUTES, 900_000),
        scanAt(active, 15 * DAY_MINUTES),
        scanAt(active, 10 * DAY_MINUTES),
        scanAt(active, 2 * DAY_MINUTES),
        scanAt(active, 60),
        scanAt(stale, 30 * DAY_MINUTES),
        scanAt(stale, 19 * DAY_MINUTES + 240, 800_000), // 4 h before the stale mint's latest: its liquidity trend
        scanAt(stale, 19 * DAY_MINUTES, 200_000)
      ])
      yield* evaluated
      const trendBefore = Option.getOrThrow(yield* ScansRepo.latest(stale)).evidence.liquidity.peak24hUsd
      expect(trendBefore).toBe(800_000)

      const report = yield* prune(7)
      expect({ deleted: report.deleted, kept: report.kept, awaiting: report.awaitingEvaluation }).toEqual({
        deleted: 4,
        kept: 2,
        awaiting: 0
      })
      expect(Math.abs(report.cutoff.getTime() - (Date.now() - 7 * DAY_MINUTES * 60_000))).toBeLessThan(60_000)
      expect(yield* historyOf(active)).toEqual([2 * DAY_MINUTES, 60])
      expect(yield* historyOf(stale)).toEqual([19 * DAY_MINUTES + 240, 19 * DAY_MINUTES])
      expect(Option.getOrThrow(yield* ScansRepo.latest(stale)).evidence.liquidity.peak24hUsd).toBe(trendBefore)

      // What went is summed up for readers of the whole history (a deployer's launches).
      const sql = yield* SqlClient.SqlClient
      const pruned = yield* sql<{ mint: string; first: Date; peak: number; scans: string }>`
        select mint, first_scanned_at as first, peak_liquidity_usd as peak, scans from scans_pruned
        where mint in (${active}, ${stale}) order by scans desc`
      expect(
        pruned.map((row) => [
          row.mint,
          Math.round((Date.now() - new Date(row.first).getTime()) / 60_000),
          Number(row.peak),
          Number(row.scans)
        ])
      ).toEqual([
        [active, 20 * DAY_MINUTES, 900_000, 3],
        [stale, 30 * DAY_MINUTES, 100_000, 1]
      ])
    }))

  it("running it again deletes nothing", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      yield* ScansRepo.record([scanAt(mint, 9 * DAY_MINUTES), scanAt(mint, 3 * DAY_MINUTES), scanAt(mint, 5)])
      yield* evaluated
      const first = yield* prune(2)
      expect(first.deleted).toBeGreaterThanOrEqual(2)
      const again = yield* prune(2)
      expect(again.deleted).toBe(0)
      expect(yield* historyOf(mint)).toEqual([5])
    }))

  it("a dry run counts what a run deletes, and deletes nothing", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      yield* ScansRepo.record([
        scanAt(mint, 40 * DAY_MINUTES),
        scanAt(mint, 12 * DAY_MINUTES),
        scanAt(mint, 11 * DAY_MINUTES),
        scanAt(mint, 30)
      ])
      yield* evaluated
      const dry = yield* prune(7, { dryRun: true })
      expect(dry.deleted).toBe(3)
      expect(yield* historyOf(mint)).toEqual([40 * DAY_MINUTES, 12 * DAY_MINUTES, 11 * DAY_MINUTES, 30])
      const real = yield* prune(7)
      expect({ deleted: real.deleted, kept: real.kept }).toEqual({ deleted: dry.deleted, kept: dry.kept })
      expect(yield* historyOf(mint)).toEqual([30])
    }))

  it("keeps scans the watch-alert evaluator has not passed, and deletes them once it has", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      yield* ScansRepo.record([scanAt(mint, 10 * DAY_MINUTES), scanAt(mint, 10)])
      const waiting = yield* prune(7)
      expect({ deleted: waiting.deleted, awaiting: waiting.awaitingEvaluation }).toEqual({ deleted: 0, awaiting: 1 })
      expect(yield* historyOf(mint)).toEqual([10 * DAY_MINUTES, 10])
      yield* evaluated
      expect((yield* prune(7)).deleted).toBe(1)
      expect(yield* historyOf(mint)).toEqual([10])
    }))

  it("a scan request completed by a pruned scan stays completed", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mint = newAddress()
      const request = crypto.randomUUID()
      yield* sql`insert into scan_requests (id, mint, requested_at) values (${request}, ${mint}, ${at(11 * DAY_MINUTES)})`
      yield* ScansRepo.record([scanAt(mint, 10 * DAY_MINUTES)]) // completes the request
      yield* ScansRepo.record([scanAt(mint, 15)])
      yield* evaluated
      expect((yield* prune(7)).deleted).toBe(1)
      const [row] = yield* sql<{ status: string; scan: string | null }>`
        select status, completed_by_scan as scan from scan_requests where id = ${request}`
      expect(row).toEqual({ status: "completed", scan: null })
    }))

  it("walks many batches without skipping or repeating scans taken in the same instant", () =>
    Effect.gen(function* () {
      const mints = Array.from({ length: 7 }, newAddress)
      const sameInstant = at(9 * DAY_MINUTES)
      yield* ScansRepo.record(
        mints.flatMap((mint) => [decode(cleanScan(mint, { scannedAt: sameInstant })), scanAt(mint, 1)])
      )
      yield* evaluated
      const report = yield* prune(7, { batchSize: 3 })
      expect({ deleted: report.deleted, batches: report.batches }).toEqual({ deleted: 7, batches: 3 })
      for (const mint of mints) expect(yield* historyOf(mint)).toEqual([1])
    }))
})

describe(`risk-api prune-scans on ${databaseKind}`, () => {
  let deployment: Deployment
  beforeAll(async () => {
    deployment = await newDeployment()
  }, 60_000)
  afterAll(() => deployment.cleanup())

  test("bad arguments and settings are refused with a message, before any database work", async () => {
    const cases = [
      {
        args: ["prune-scans", "--keep-days", "0"],
        env: {},
        code: 2,
        message: "--keep-days must be between 1 and 3650"
      },
      { args: ["prune-scans", "--keep-days", "many"], env: {}, code: 2, message: "'many' is not a integer" },
      { args: ["prune-scans", "--batch", "0"], env: {}, code: 2, message: "--batch must be between 1 and 100000" },
      {
        args: ["prune-scans"],
        env: { SCAN_HISTORY_DAYS: "0" },
        code: 1,
        message: "SCAN_HISTORY_DAYS must be between 1 and 3650"
      }
    ]
    for (const { args, code, env, message } of cases) {
      const result = await runCli(args, { ...deployment.env, ...env })
      expect({ args, code: result.code, message: result.stderr.includes(message) ? message : result.stderr }).toEqual({
        args,
        code,
        message
      })
    }
  }, 60_000)

  test("reports what it deleted and what waits for the watch-alert evaluator", async () => {
    const mint = newAddress()
    const file = `${await Bun.$`mktemp -d`.text().then((text) => text.trim())}/scans.ndjson`
    await Bun.write(
      file,
      [cleanScan(mint, { scannedAt: at(10 * DAY_MINUTES) }), cleanScan(mint, { scannedAt: at(5) })]
        .map((scan) => JSON.stringify(scan))
        .join("\n")
    )
    expect((await runCli(["import", file], deployment.env)).code).toBe(0)
    const dry = await runCli(["prune-scans", "--dry-run"], deployment.env)
    expect({ code: dry.code, out: dry.stdout.replace(/before \S+/, "before T").replace(/[\d.]+ s$/m, "S s") }).toEqual({
      code: 0,
      out:
        "would delete 0 scans taken before T (7 days kept); kept 1 older ones: the latest scan of each mint and the 24 hours before it; 1 batch, S s\n" +
        "1 of them not yet evaluated for watch alerts (the server's evaluator does it): run it again later\n"
    })
    const run = await runCli(["prune-scans", "--keep-days", "30"], deployment.env)
    expect({ code: run.code, out: run.stdout.split(";")[0] }).toEqual({
      code: 0,
      out: `deleted 0 scans taken before ${run.stdout.split(" ")[5]} (30 days kept)`
    })
  }, 120_000)
})
