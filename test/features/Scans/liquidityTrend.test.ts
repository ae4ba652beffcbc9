import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { PEAK_24H, ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { ScansRepoMemory } from "../../../src/features/Scans/ScansRepoMemory.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { databaseKind, partitionIndexes, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// Model 2.0 reads the liquidity trend across a mint's scan history: the latest scan carries the highest
// liquidity of the 24 hours before it, and a drop of half or more caps the score (liquidity_drop).
const decode = Schema.decodeUnknownSync(ScanEvidence)
const scanAt = (mint: string, minutes: number, liquidityUsd: number) =>
  decode(
    cleanScan(mint, {
      scannedAt: minutesAgo(minutes),
      liquidity: { liquidityUsd, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 2 }
    })
  )

const LATEST_PLAN = `select s.id, ${PEAK_24H} from (select id, mint, scanned_at from scans where mint = 'x' order by scanned_at desc, id desc limit 1) s`

const trend = (run: ReturnType<typeof runtimeFor<ScansRepo, never>>["it"]) => {
  run(
    "a drop of 70% from the 24 h high is read with the latest scan and caps it; scans older than 24 h do not count",
    () =>
      Effect.gen(function* () {
        const [pulled, steady] = [newAddress(), newAddress()]
        yield* ScansRepo.record([
          scanAt(pulled, 26 * 60, 900_000), // older than 24 h before the latest: not counted
          scanAt(pulled, 20 * 60, 200_000),
          scanAt(pulled, 5, 60_000),
          scanAt(steady, 60, 100_000),
          scanAt(steady, 5, 90_000)
        ])
        const latest = Option.getOrThrow(yield* ScansRepo.latest(pulled))
        expect(latest.evidence.liquidity.peak24hUsd).toBe(200_000)
        const assessment = assessToken(latest.evidence)
        expect(assessment.flags).toContain("liquidity_drop")
        expect(assessment.hardCaps).toContain("Liquidity Pull:20")
        const many = yield* ScansRepo.latestMany([pulled, steady] as never)
        expect(many.get(pulled)?.evidence.liquidity.peak24hUsd).toBe(200_000)
        expect(assessToken(many.get(steady)!.evidence).flags).not.toContain("liquidity_drop")
      })
  )
}

describe(`liquidity trend on ${databaseKind}`, () => {
  const { it } = runtimeFor(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))
  trend(it)

  it("scans stored before the liquidity column count from their evidence, beside those with the column", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [older, newer] = [newAddress(), newAddress()]
      yield* ScansRepo.record([
        scanAt(older, 20 * 60, 700_000),
        scanAt(older, 10 * 60, 300_000),
        scanAt(older, 5, 100_000),
        scanAt(newer, 20 * 60, 300_000),
        scanAt(newer, 10 * 60, 700_000),
        scanAt(newer, 5, 100_000)
      ])
      // As stored before sql/0008: no liquidity column on the earliest scan of each mint.
      yield* sql`update scans set liquidity_usd = null where mint in (${older}, ${newer}) and scanned_at < now() - interval '15 hours'`
      const peaks = yield* ScansRepo.latestMany([older, newer] as never)
      expect([
        peaks.get(older)?.evidence.liquidity.peak24hUsd,
        peaks.get(newer)?.evidence.liquidity.peak24hUsd
      ]).toEqual([700_000, 700_000])
      const plan = yield* sql<{ "QUERY PLAN": string }>`explain ${sql.literal(LATEST_PLAN)}`.pipe(
        Effect.map((rows) => rows.map((row) => row["QUERY PLAN"]).join("\n"))
      )
      // The trend reads the liquidity from the latest-scan index, the evidence only of scans without it (on
      // the partitioned history, sql/0018, through the day partitions' copies of the index).
      const partial = yield* partitionIndexes(sql, "scans_without_liquidity")
      expect({ seqScan: plan.includes("Seq Scan"), partial: partial.some((name) => plan.includes(name)) }).toEqual({
        seqScan: false,
        partial: true
      })
    }))
})

describe("liquidity trend in the in-memory repository", () => {
  const { it } = runtimeFor(ScansRepoMemory)
  trend(it)
})
