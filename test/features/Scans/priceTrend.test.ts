import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { notObserved, observed, type ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { marketOf } from "../../../src/features/Market/Merge.ts"
import { LATEST_TRENDS, ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { ScansRepoMemory } from "../../../src/features/Scans/ScansRepoMemory.ts"
import { databaseKind, partitionIndexes, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// Each scan keeps its price (scans.price_usd, sql/0010) as it keeps its liquidity; the latest scan is read
// with its 24 h price change against the earliest priced scan of the day before it, unless a market feed
// gave one.

const POOL = newAddress()

/** A scan as the scanner writes it: a pool price (or none) and no market feed. */
const scannerScan = (mint: string, minutes: number, priceUsd: number | null): ScanEvidenceV2 => {
  const base = upgradeV1(decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes) })))
  return {
    ...base,
    provenance: { ...base.provenance, scanner: "risk-api-scanner/test" },
    market: notObserved("24 h volume, trades and price changes are not readable from plain RPC"),
    liquidity: {
      ...base.liquidity,
      priceUsd:
        priceUsd === null
          ? notObserved("no pool")
          : observed({ value: priceUsd, pool: POOL, venue: "raydium-amm-v4", slot: 1 })
    }
  }
}

const trend = (it: ReturnType<typeof runtimeFor<ScansRepo, never>>["it"]) => {
  it("the latest scan reads its 24 h price change against the earliest priced scan of the day before it", () =>
    Effect.gen(function* () {
      const [fell, unpriced, alone] = [newAddress(), newAddress(), newAddress()]
      yield* ScansRepo.record([
        scannerScan(fell, 26 * 60, 10), // older than 24 h before the latest: not the reference
        scannerScan(fell, 22 * 60, null), // no price: passed over
        scannerScan(fell, 20 * 60, 2), // the reference
        scannerScan(fell, 60, 1.8),
        scannerScan(fell, 5, 1.5),
        scannerScan(unpriced, 60, 3),
        scannerScan(unpriced, 5, null),
        scannerScan(alone, 5, 4)
      ])
      const latest = Option.getOrThrow(yield* ScansRepo.latest(fell))
      expect([latest.evidence.market.priceUsd, latest.evidence.market.priceChange24h]).toEqual([1.5, -25])
      const many = yield* ScansRepo.latestMany([fell, unpriced, alone])
      expect([fell, unpriced, alone].map((mint) => many.get(mint)?.evidence.market.priceChange24h)).toEqual([
        -25,
        null,
        null
      ])
    }))

  it("a price change from a market feed or an import is kept; the history does not replace it", () =>
    Effect.gen(function* () {
      const [fed, imported] = [newAddress(), newAddress()]
      const merged = scannerScan(fed, 5, 1)
      yield* ScansRepo.record([
        scannerScan(fed, 60, 2),
        {
          ...merged,
          market: observed(
            marketOf({
              mint: fed,
              observedAt: minutesAgo(6),
              volume24hUsd: 5_000,
              trades24h: 40,
              priceChange24hPct: 7.5,
              source: "feed"
            })
          )
        },
        decodeScan(
          cleanScan(imported, { scannedAt: minutesAgo(60), market: { ...cleanScan(imported).market, priceUsd: 4 } })
        ),
        decodeScan(
          cleanScan(imported, { scannedAt: minutesAgo(5), market: { ...cleanScan(imported).market, priceUsd: 1 } })
        )
      ])
      const many = yield* ScansRepo.latestMany([fed, imported])
      expect([
        many.get(fed)?.evidence.market.priceChange24h,
        many.get(imported)?.evidence.market.priceChange24h
      ]).toEqual([7.5, 2])
      // The view still takes the price from the pools when the feed gives none.
      expect(many.get(fed)?.evidence.market).toMatchObject({ priceUsd: 1, volume24h: 5_000, tradeCount24h: 40 })
    }))

  it("v1 scans (imports) without a change of their own take part through their market price", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      const at = (minutes: number, priceUsd: number) =>
        decodeScan(
          cleanScan(mint, {
            scannedAt: minutesAgo(minutes),
            market: { ...cleanScan(mint).market, priceUsd, priceChange24h: null }
          })
        )
      yield* ScansRepo.record([at(23 * 60, 0.5), at(5, 0.75)])
      expect(Option.getOrThrow(yield* ScansRepo.latest(mint)).evidence.market.priceChange24h).toBe(50)
    }))
}

describe(`price trend on ${databaseKind}`, () => {
  const { it } = runtimeFor(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))
  trend(it)

  it("scans.price_usd holds the pool price of a v2 scan (null when not observed) and the market price of a v1 scan", () =>
    Effect.gen(function* () {
      const [pool, none, v1] = [newAddress(), newAddress(), newAddress()]
      yield* ScansRepo.record([scannerScan(pool, 5, 0.25), scannerScan(none, 5, null), decodeScan(cleanScan(v1))])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ mint: string; price_usd: number | null }>`
        select mint, price_usd from scans where mint in (${pool}, ${none}, ${v1})`
      const byMint = new Map(rows.map((row) => [row.mint, row.price_usd === null ? null : Number(row.price_usd)]))
      expect([byMint.get(pool), byMint.get(none), byMint.get(v1)]).toEqual([0.25, null, 1.2])
    }))

  it("the reference price comes from the latest-scan index, which carries the price", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const index = yield* sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'scans_latest'`
      expect(index[0]?.indexdef).toContain("INCLUDE (liquidity_usd, price_usd)")
      const statement = `select s.id, ${LATEST_TRENDS} from (select id, mint, scanned_at, price_usd from scans where mint = 'x' order by scanned_at desc, id desc limit 1) s`
      const plan = yield* sql<{ "QUERY PLAN": string }>`explain ${sql.literal(statement)}`.pipe(
        Effect.map((rows) => rows.map((row) => row["QUERY PLAN"]).join("\n"))
      )
      const latest = yield* partitionIndexes(sql, "scans_latest")
      expect({ seqScan: plan.includes("Seq Scan"), latestIndex: latest.some((name) => plan.includes(name)) }).toEqual({
        seqScan: false,
        latestIndex: true
      })
    }))
})

describe("price trend in the in-memory repository", () => {
  const { it } = runtimeFor(ScansRepoMemory)
  trend(it)
})
