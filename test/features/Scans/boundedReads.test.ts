import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { LATEST_TRENDS, ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"

// The latest-scan upsert reads the day-partitioned history (sql/0018) only from the inserted scans' time less
// 24 hours (ScansRepo upsertLatestStatement), and latestDocument from the newest scan's time: their answers are
// those of the unbounded reads, a scan older than the window in another day's partition included or not
// exactly as before, whatever order scans arrive in.

const HOUR = 3_600_000
const DAY = 24 * HOUR
const today = new Date()
const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate())
// The latest scan: 00:30 UTC yesterday, so the 24 h before it span two more days' partitions.
const LATEST = midnight - DAY + HOUR / 2

const scanAt = (mint: Address, at: number, liquidityUsd: number, priceUsd: number) => {
  const base = cleanScan(mint, { scannedAt: new Date(at).toISOString() })
  return decodeScan({
    ...base,
    liquidity: { ...base.liquidity, liquidityUsd },
    market: { ...base.market, priceUsd, priceChange24h: null }
  })
}

interface Trends {
  readonly id: string
  readonly peak: number | null
  readonly before: number | null
}

/** The mint's latest_scans row, and the same trends read with no bound from the history as it is now. */
const trendsOf = (mint: Address) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [stored] = yield* sql<Trends>`
      select scan_id::text as id, peak_24h_usd as peak, price_24h_before_usd as before
      from latest_scans where mint = ${mint}`
    const [unbounded] = yield* sql<Trends>`
      select s.id::text as id, peak, price_before as before from (
        select s.id, ${sql.literal(LATEST_TRENDS)} from (
          select id, mint, scanned_at, price_usd from scans where mint = ${mint} order by scanned_at desc, id desc limit 1
        ) s
      ) s`
    const number = (value: number | null | undefined) => (value === null || value === undefined ? null : Number(value))
    return {
      stored: { id: stored!.id, peak: number(stored!.peak), before: number(stored!.before) },
      unbounded: { id: unbounded!.id, peak: number(unbounded!.peak), before: number(unbounded!.before) }
    }
  })

describe(`latest-scan trends over day partitions on ${databaseKind}`, () => {
  const { it } = runtimeFor(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))

  it("a scan older than the 24 h window, in another day's partition, is not counted; one at its start is, in whatever order they arrive", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`select scans_ensure_partitions((now() at time zone 'UTC')::date - 3, (now() at time zone 'UTC')::date)`
      const mint = newAddress()
      const idOf = (at: number) =>
        sql<{
          id: string
        }>`select id::text as id from scans where mint = ${mint} and scanned_at = ${new Date(at)}`.pipe(
          Effect.map((rows) => rows[0]!.id)
        )
      const recordAt = (at: number, liquidityUsd: number, priceUsd: number) =>
        ScansRepo.record([scanAt(mint, at, liquidityUsd, priceUsd)])

      yield* recordAt(LATEST, 60_000, 2)
      const latest = yield* idOf(LATEST)
      // Recorded late, each alone: the batch's bound is its own time, older than the latest scan's window.
      yield* recordAt(LATEST - 25.5 * HOUR, 900_000, 0.5) // 23:00 three days ago: out of the window
      const outside = yield* trendsOf(mint)
      expect(outside.stored).toEqual({ id: latest, peak: null, before: null })
      yield* recordAt(LATEST - 23 * HOUR, 200_000, 1) // 01:30 two days ago: in it
      const inside = yield* trendsOf(mint)
      expect(inside.stored).toEqual({ id: latest, peak: 200_000, before: 1 })
      yield* recordAt(LATEST - 24 * HOUR, 300_000, 0.8) // 00:30 two days ago: the window's first instant
      const first = yield* trendsOf(mint)
      expect(first.stored).toEqual({ id: latest, peak: 300_000, before: 0.8 })
      // A newer scan moves the window: the scan at its old start falls out, the one 23 h before stays in.
      yield* recordAt(LATEST + HOUR, 50_000, 2.1)
      const moved = yield* trendsOf(mint)
      expect(moved.stored).toEqual({ id: yield* idOf(LATEST + HOUR), peak: 200_000, before: 1 })
      // The newest scan's document, read from its time on (latest_scans), is the newest.
      const document = Option.getOrThrow(yield* ScansRepo.latestDocument(mint))
      expect(new Date(document.scannedAt).getTime()).toBe(LATEST + HOUR)
      // Each as the unbounded read answers it.
      for (const read of [outside, inside, first, moved]) expect(read.stored).toEqual(read.unbounded)

      const partitions = yield* sql<{ part: string }>`
        select distinct tableoid::regclass::text as part from scans where mint = ${mint} order by 1`
      expect(partitions.map((row) => row.part)).toEqual(
        [3, 2, 1].map(
          (days) => `scans_p${new Date(midnight - days * DAY).toISOString().slice(0, 10).replaceAll("-", "")}`
        )
      )
    }))

  it("a batch of mints scanned at different days: each row as the unbounded read gives it", () =>
    Effect.gen(function* () {
      const [old, recent] = [newAddress(), newAddress()]
      yield* ScansRepo.record([
        scanAt(recent, LATEST - 2 * HOUR, 80_000, 1.5),
        scanAt(recent, LATEST, 40_000, 1.2),
        scanAt(old, LATEST - 2 * DAY, 10_000, 0.3),
        scanAt(old, LATEST - 2 * DAY - 30 * HOUR, 99_000, 0.1) // out of old's window
      ])
      const [a, b] = [yield* trendsOf(recent), yield* trendsOf(old)]
      expect([a.stored.peak, a.stored.before, b.stored.peak, b.stored.before]).toEqual([80_000, 1.5, null, null])
      expect([a.stored, b.stored]).toEqual([a.unbounded, b.unbounded])
    }))
})
