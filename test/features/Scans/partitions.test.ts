import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { LaunchesRepo } from "../../../src/features/Deployer/LaunchesRepo.ts"
import { ScanRetention } from "../../../src/features/Scans/ScanRetention.ts"
import { previousScanStatement } from "../../../src/features/Scans/ScanStatements.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { WebhookRetentionFloor } from "../../../src/features/Webhooks/RetentionFloor.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"

// The scan history partitioned by UTC day (sql/0018): every insert finds a partition, partitions are made
// ahead, and retention drops a day out of the window whole while every answer about a mint stays as it was.
const decode = Schema.decodeUnknownSync(ScanEvidence)
const DAY_MS = 86_400_000
const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString()
const scanAt = (mint: string, msFromNow: number, options: { liquidityUsd?: number; deployer?: string } = {}) =>
  decode(
    cleanScan(mint, {
      scannedAt: at(msFromNow),
      liquidity: {
        liquidityUsd: options.liquidityUsd ?? 100_000,
        lpLocked: true,
        lpLockPercentage: 100,
        lpLockExpiresAt: null,
        poolCount: 2
      },
      ...(options.deployer === undefined
        ? {}
        : {
            deployer: { address: options.deployer, priorLaunches: 1, priorRugs: 0, priorHoneypots: 0, flagged: false }
          })
    })
  )

/** The partition of a UTC day `days` from today. */
const dayPartition = (days: number) =>
  `scans_p${new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`

const partitionOf = (mint: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ part: string }>`select tableoid::regclass::text as part from scans where mint = ${mint} order by scanned_at`
  ).pipe(Effect.map((rows) => rows.map((row) => row.part)))

const exists = (table: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ found: boolean }>`select to_regclass(${table}) is not null as found`
  ).pipe(Effect.map((rows) => rows[0]!.found))

const ensure = (fromDays: number, toDays: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ made: number }>`
      select scans_ensure_partitions((now() at time zone 'UTC')::date + ${fromDays}::int,
        (now() at time zone 'UTC')::date + ${toDays}::int) as made`
  ).pipe(Effect.map((rows) => Number(rows[0]!.made)))

const evaluated = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`update webhook_scan_cursor set last_scan_id = (select coalesce(max(id), 0) from scans) where id = 1`
)

/** Everything a reader can ask about a mint's history: what must not change when old partitions go. */
const answersAbout = (mint: Address, deployer: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const latest = Option.getOrThrow(yield* ScansRepo.latest(mint))
    const [row] = yield* sql<{ id: string; scanned_at: Date }>`
      select id::text as id, scanned_at from scans where mint = ${mint} order by scanned_at desc, id desc limit 1`
    return {
      latest,
      many: (yield* ScansRepo.latestMany([mint])).get(mint),
      history: yield* ScansRepo.history(mint, { since: null, limit: 100 }),
      document: Option.getOrThrow(yield* ScansRepo.latestDocument(mint)),
      previous: (yield* previousScanStatement(sql, mint, row!.scanned_at, row!.id)).map((scan) => scan.id),
      launches: yield* LaunchesRepo.launchesOf(deployer),
      records: yield* LaunchesRepo.deployerRecords([deployer])
    }
  })

describe(`scan history partitions on ${databaseKind}`, () => {
  const { it } = runtimeFor(
    Layer.mergeAll(
      ScanRetention.Default.pipe(Layer.provide(WebhookRetentionFloor)),
      ScansRepo.Default,
      LaunchesRepo.Default
    ).pipe(Layer.provideMerge(TestDatabase))
  )

  it("the days from yesterday to two days ahead have their partitions once migrations have run", () =>
    Effect.gen(function* () {
      for (const day of [-1, 0, 1, 2])
        expect({ day, found: yield* exists(dayPartition(day)) }).toEqual({ day, found: true })
      expect(yield* exists(dayPartition(3))).toBe(false)
      expect(yield* ensure(-1, 2)).toBe(0)
    }))

  it("a scan dated tomorrow goes to its day; one dated past the partitions made goes to the default partition, and into its own day once that is made", () =>
    Effect.gen(function* () {
      const [soon, later] = [newAddress(), newAddress()]
      expect(yield* ScansRepo.record([scanAt(soon, DAY_MS)])).toEqual({ inserted: 1, duplicates: 0 })
      expect(yield* partitionOf(soon)).toEqual([dayPartition(1)])

      const far = scanAt(later, 40 * DAY_MS)
      expect(yield* ScansRepo.record([far])).toEqual({ inserted: 1, duplicates: 0 })
      expect(yield* partitionOf(later)).toEqual(["scans_default"])
      const before = Option.getOrThrow(yield* ScansRepo.latest(later))

      expect(yield* ensure(40, 40)).toBe(1)
      expect(yield* partitionOf(later)).toEqual([dayPartition(40)])
      expect(Option.getOrThrow(yield* ScansRepo.latest(later))).toEqual(before)
      // Still one scan: re-recording it is a duplicate in its new partition.
      expect(yield* ScansRepo.record([far])).toEqual({ inserted: 0, duplicates: 1 })
    }))

  it("retention drops the days out of the window whole; every mint's latest verdict, history and launches answer as before", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      expect(yield* ensure(-12, 0)).toBe(11) // yesterday to two days ahead exist already
      const deployer = newAddress()
      const [active, stale] = [newAddress(), newAddress()]
      yield* ScansRepo.record([
        scanAt(active, -11 * DAY_MS, { deployer, liquidityUsd: 900_000 }),
        scanAt(active, -10 * DAY_MS, { deployer }),
        scanAt(active, -3_600_000, { deployer }),
        // Not scanned for 10 days: its latest scan and the 4 hours before it (its liquidity trend) stay.
        scanAt(stale, -12 * DAY_MS, { deployer, liquidityUsd: 700_000 }),
        scanAt(stale, -10 * DAY_MS - 4 * 3_600_000, { deployer, liquidityUsd: 800_000 }),
        // A scanner's scan (its v2 document stored, sql/0020): the document moves with the scan too.
        {
          ...upgradeV1(scanAt(stale, -10 * DAY_MS, { deployer, liquidityUsd: 200_000 })),
          provenance: {
            scanner: "risk-api-scanner/test",
            slot: 300_000_000,
            rpcCalls: 41,
            durationMs: 250,
            partial: []
          }
        }
      ])
      yield* evaluated
      const staleBefore = yield* answersAbout(stale, deployer)
      expect(staleBefore.latest.evidence.liquidity.peak24hUsd).toBe(800_000)
      expect(staleBefore.history.length).toBe(3)
      expect(staleBefore.document.provenance.scanner).toBe("risk-api-scanner/test")
      expect(staleBefore.launches.map((launch) => launch.mint).sort()).toEqual([active, stale].sort())
      const activeLatest = Option.getOrThrow(yield* ScansRepo.latest(active))

      const dry = yield* Effect.flatMap(ScanRetention, (retention) =>
        retention.prune({ keepDays: 7, batchSize: 100, dryRun: true })
      )
      expect(yield* exists(dayPartition(-12))).toBe(true)
      const report = yield* Effect.flatMap(ScanRetention, (retention) =>
        retention.prune({ keepDays: 7, batchSize: 100, dryRun: false })
      )
      const counts = {
        deleted: report.deleted,
        kept: report.kept,
        dropped: report.partitionsDropped,
        batches: report.batches
      }
      // Days -12 to -8 end before the cutoff (now - 7 days): five partitions, none walked by DELETE.
      expect(counts).toEqual({ deleted: 3, kept: 2, dropped: 5, batches: 0 })
      expect({ deleted: dry.deleted, kept: dry.kept, dropped: dry.partitionsDropped }).toEqual({
        deleted: 3,
        kept: 2,
        dropped: 5
      })
      for (const day of [-12, -11, -10, -9, -8])
        expect({ day, found: yield* exists(dayPartition(day)) }).toEqual({ day, found: false })
      expect(yield* exists(dayPartition(-7))).toBe(true)

      // The stale mint's kept scans moved to the default partition; its answers are the same.
      expect(yield* partitionOf(stale)).toEqual(["scans_default", "scans_default"])
      const staleAfter = yield* answersAbout(stale, deployer)
      expect({ ...staleAfter, history: staleAfter.history.length, launches: undefined, records: undefined }).toEqual({
        ...staleBefore,
        history: 2,
        launches: undefined,
        records: undefined
      })
      expect(staleAfter.history).toEqual(staleBefore.history.slice(1))
      expect(staleAfter.records).toEqual(staleBefore.records)
      expect(Option.getOrThrow(yield* ScansRepo.latest(active))).toEqual(activeLatest)
      expect(yield* partitionOf(active)).toEqual([dayPartition(0)])

      // What went is summed up for whole-history readers, as the DELETE did.
      const pruned = yield* sql<{ mint: string; peak: number; scans: string }>`
        select mint, peak_liquidity_usd as peak, scans from scans_pruned where mint in (${active}, ${stale}) order by scans desc`
      expect(pruned.map((row) => [row.mint, Number(row.peak), Number(row.scans)])).toEqual([
        [active, 900_000, 2],
        [stale, 700_000, 1]
      ])

      // Running it again finds nothing more.
      const again = yield* Effect.flatMap(ScanRetention, (retention) =>
        retention.prune({ keepDays: 7, batchSize: 100, dryRun: false })
      )
      expect({ deleted: again.deleted, dropped: again.partitionsDropped }).toEqual({ deleted: 0, dropped: 0 })
    }))
})
