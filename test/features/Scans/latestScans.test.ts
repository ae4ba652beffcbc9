import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, Option } from "effect"
import { ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { assessToken, assessTokenOnce } from "../../../src/engines/TokenScoring/index.ts"
import backfill from "../../../sql/0014_latest_scans.sql" with { type: "text" }
import verdictBackfill from "../../../sql/0019_latest_verdicts.sql" with { type: "text" }
import { riskCheckOf } from "../../../src/features/RiskCheck/Answer.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// latest_scans (sql/0014): one row per mint, the mint's newest scan with its 24 h trends, written by
// ScansRepo.record in the scan's own transaction; the cold lookup reads it, not the history.

const layer = Layer.mergeAll(ScansRepo.Default, ScanRequestsRepo.Default).pipe(Layer.provideMerge(TestDatabase))

const scanAt = (mint: string, minutes: number, symbol: string, liquidityUsd = 100_000) =>
  decodeScan(
    cleanScan(mint, {
      scannedAt: minutesAgo(minutes),
      symbol,
      liquidity: { liquidityUsd, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 2 }
    })
  )

interface LatestRow {
  readonly scan_id: string
  readonly symbol: string
  readonly peak: number | null
}

const latestRow = (mint: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LatestRow>`
      select scan_id::text as scan_id, evidence->>'symbol' as symbol, peak_24h_usd as peak
      from latest_scans where mint = ${mint}`.pipe(Effect.map((rows) => rows[0]))
  )

describe(`latest_scans on ${databaseKind}`, () => {
  const { it } = runtimeFor(layer)

  it("record writes the mint's row with its newest scan; an older scan recorded later does not replace it", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      expect(yield* latestRow(mint)).toBeUndefined()
      yield* ScansRepo.record([scanAt(mint, 5, "NEW", 60_000)])
      const first = yield* latestRow(mint)
      expect(first).toMatchObject({ symbol: "NEW", peak: null })
      // An older scan within the day before the latest: the row stays on the newer scan, and its peak gains it.
      yield* ScansRepo.record([scanAt(mint, 10 * 60, "OLDER", 200_000)])
      expect(yield* latestRow(mint)).toEqual({ scan_id: first!.scan_id, symbol: "NEW", peak: 200_000 })
      yield* ScansRepo.record([scanAt(mint, 1, "NEWEST", 50_000)])
      const newest = yield* latestRow(mint)
      expect(newest).toMatchObject({ symbol: "NEWEST", peak: 200_000 })
      expect(Number(newest!.scan_id)).toBeGreaterThan(Number(first!.scan_id))
      const read = Option.getOrThrow(yield* ScansRepo.latest(mint))
      expect([read.id, read.evidence.symbol, read.evidence.liquidity.peak24hUsd]).toEqual([
        newest!.scan_id,
        "NEWEST",
        200_000
      ])
    }))

  it("a scan write that fails leaves the mint's row as it was (the row is written in the scan's transaction)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mint = newAddress()
      yield* ScansRepo.record([scanAt(mint, 30, "KEPT")])
      const before = yield* latestRow(mint)
      // The last statement of record (completing the mint's pending request) fails, after the row's upsert.
      yield* ScanRequestsRepo.request(mint)
      yield* sql.unsafe(`
        create or replace function refuse_completion() returns trigger language plpgsql as $$
        begin raise exception 'refused for the test'; end $$`)
      yield* sql.unsafe(`
        create trigger refuse_completion before update on scan_requests
        for each row when (new.mint = '${mint}') execute function refuse_completion()`)
      // Newer than the request, so it completes it.
      const failed = yield* Effect.exit(ScansRepo.record([scanAt(mint, -1 / 60, "LOST")]))
      yield* sql`drop trigger refuse_completion on scan_requests`
      expect(Exit.isFailure(failed)).toBe(true)
      expect(yield* latestRow(mint)).toEqual(before)
      const stored = yield* sql<{ n: string }>`select count(*)::text as n from scans where mint = ${mint}`
      expect(stored[0]!.n).toBe("1")
    }))

  it("latestMany reads the rows of many mints in one statement, the same answers as one by one", () =>
    Effect.gen(function* () {
      const mints = Array.from({ length: 12 }, () => newAddress())
      yield* ScansRepo.record(
        mints.flatMap((mint, i) => [scanAt(mint, 90, `A${i}`, 300_000), scanAt(mint, 2, `B${i}`)])
      )
      const never = newAddress()
      const many = yield* ScansRepo.latestMany([...mints, never])
      const single = yield* Effect.forEach(mints, (mint) => Effect.map(ScansRepo.latest(mint), Option.getOrThrow))
      expect(many.has(never)).toBe(false)
      expect(mints.map((mint) => many.get(mint))).toEqual(single)
      expect(single.map((scan) => scan.evidence.liquidity.peak24hUsd)).toEqual(Array(12).fill(300_000))
    }))

  it("migration 0014's backfill from the history gives the rows record wrote", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mints = Array.from({ length: 5 }, () => newAddress())
      yield* ScansRepo.record(
        mints.flatMap((mint, i) => [scanAt(mint, 20 * 60, `X${i}`, 500_000 + i), scanAt(mint, 3, `Y${i}`)])
      )
      yield* ScansRepo.record(mints.map((mint, i) => scanAt(mint, 26 * 60, `Z${i}`, 900_000))) // older than a day
      const rows = sql<{ mint: string; scan_id: string; peak: number | null; price: number | null }>`
        select mint, scan_id::text as scan_id, peak_24h_usd as peak, price_24h_before_usd as price
        from latest_scans where mint = any(${mints}::text[]) order by mint`
      const written = yield* rows
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`delete from latest_scans`
          // The migration's statements after the table's creation: the lock and the backfill.
          yield* sql.unsafe(backfill.slice(backfill.indexOf("lock table scans")))
        })
      )
      expect(yield* rows).toEqual(written)
      // Each mint's peak is its scan of 20 h before, not the one older than a day.
      expect(written.every((row) => row.peak !== null && row.peak >= 500_000 && row.peak < 500_005)).toBe(true)
    }))

  it("writers of the same mints in opposite orders wait for each other, never deadlock", () =>
    Effect.gen(function* () {
      const mints = Array.from({ length: 20 }, () => newAddress())
      for (let round = 0; round < 5; round++) {
        const batch = (order: ReadonlyArray<string>, tag: string) =>
          order.map((mint, i) => scanAt(mint, 100 - round * 10 - i / 100, `${tag}${round}`))
        yield* Effect.all([ScansRepo.record(batch(mints, "F")), ScansRepo.record(batch([...mints].reverse(), "R"))], {
          concurrency: "unbounded"
        })
      }
      const rows = yield* ScansRepo.latestMany(mints as never)
      expect(rows.size).toBe(20)
    }))

  it("the writer stores each row's assessment; a read uses it (same model version) instead of scoring again", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mint = newAddress()
      yield* ScansRepo.record([scanAt(mint, 10 * 60, "BEFORE", 400_000), scanAt(mint, 2, "NOW", 100_000)])
      const [stored] = yield* sql<{ assessment: string }>`
        select assessment::text as assessment from latest_scans where mint = ${mint}`
      const read = Option.getOrThrow(yield* ScansRepo.latest(mint))
      // The scan as read (its 24 h peak included), scored afresh: the same text, keys in the same order.
      expect(stored!.assessment).toBe(JSON.stringify(assessToken(read.evidence)))
      expect(assessToken(read.evidence).flags).toContain("liquidity_drop")
      // Used as stored: a changed score shows through; one of another model version is ignored.
      const tampered = { ...JSON.parse(stored!.assessment), safetyScore: 1 }
      yield* sql`update latest_scans set assessment = ${JSON.stringify(tampered)}::json where mint = ${mint}`
      const used = Option.getOrThrow(yield* ScansRepo.latest(mint))
      expect(assessTokenOnce(used.evidence).safetyScore).toBe(1)
      const other = { ...tampered, modelVersion: "0.0-other" }
      yield* sql`update latest_scans set assessment = ${JSON.stringify(other)}::json where mint = ${mint}`
      const ignored = Option.getOrThrow(yield* ScansRepo.latest(mint))
      expect(assessTokenOnce(ignored.evidence)).toEqual(assessToken(read.evidence))
    }))

  // sql/0019: the verdict a risk check reads, stored with the assessment; a batch's cold mints read it alone.
  it("latestVerdicts reads each row's stored verdict, which answers exactly as the whole scan does; of another model version, the whole scan", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mints = Array.from({ length: 4 }, () => newAddress())
      const never = newAddress()
      yield* ScansRepo.record(
        mints.flatMap((mint, i) => [
          scanAt(mint, 10 * 60, `B${i}`, 400_000),
          decodeScan(
            cleanScan(mint, {
              scannedAt: minutesAgo(2 + i * 90),
              symbol: i === 3 ? null : `N${i}`,
              scanDepth: i === 1 ? "partial" : "full",
              outcome: i === 2 ? "rugged" : null,
              liquidity: {
                liquidityUsd: 100_000,
                lpLocked: true,
                lpLockPercentage: 100,
                lpLockExpiresAt: null,
                poolCount: 2
              }
            })
          )
        ])
      )
      const whole = yield* ScansRepo.latestMany(mints as never)
      const verdicts = yield* ScansRepo.latestVerdicts([...mints, never] as never)
      expect(verdicts.size).toBe(4)
      const now = Date.now()
      for (const mint of mints) {
        const read = verdicts.get(mint)!
        expect("verdict" in read).toBe(true)
        expect(JSON.stringify(riskCheckOf(mint, read, now, 3))).toBe(
          JSON.stringify(riskCheckOf(mint, whole.get(mint)!, now, 3))
        )
      }
      // One of another model version is not used: the row is read whole, as latestMany reads it.
      yield* sql`update latest_scans set verdict = json_build_object('modelVersion', '0.0-other') where mint = ${mints[0]!}`
      const other = (yield* ScansRepo.latestVerdicts([mints[0]!] as never)).get(mints[0]!)!
      expect(other).toEqual(whole.get(mints[0]!)!)
    }))

  it("migration 0019's backfill gives the verdicts record wrote", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mints = Array.from({ length: 3 }, () => newAddress())
      yield* ScansRepo.record(mints.map((mint, i) => scanAt(mint, 5 + i, `V${i}`, 50_000 * (i + 1))))
      const rows = sql<{ mint: string; verdict: unknown }>`
        select mint, verdict from latest_scans where mint = any(${mints}::text[]) order by mint`
      const written = yield* rows
      expect(written.every((row) => row.verdict !== null)).toBe(true)
      yield* sql`update latest_scans set verdict = null where mint = any(${mints}::text[])`
      yield* sql.unsafe(verdictBackfill.slice(verdictBackfill.indexOf("update latest_scans")))
      expect(yield* rows).toEqual(written)
    }))
})
