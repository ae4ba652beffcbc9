import { describe, expect } from "bun:test"
import { ScanRequestsMemory, ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { latestScanStatement, ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { ScansRepoMemory } from "../../../src/features/Scans/ScansRepoMemory.ts"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "@effect/sql"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// The SQL repositories and their in-memory doubles must behave the same: one suite, both layers.
const suite = (name: string, layer: Layer.Layer<ScansRepo | ScanRequestsRepo>) =>
  describe(name, () => {
    const { it } = runtimeFor(layer)

    it("latest is none for a mint never scanned", () =>
      Effect.gen(function* () {
        const found = yield* ScansRepo.latest(newAddress())
        expect(Option.isNone(found)).toBe(true)
      }))

    it("latest returns the scan with the newest scannedAt, whatever the insert order", () =>
      Effect.gen(function* () {
        const mint = newAddress()
        yield* ScansRepo.record([
          decodeScan(cleanScan(mint, { scannedAt: minutesAgo(5), symbol: "MID" })),
          decodeScan(cleanScan(mint, { scannedAt: minutesAgo(1), symbol: "NEW" })),
          decodeScan(cleanScan(mint, { scannedAt: minutesAgo(60), symbol: "OLD" }))
        ])
        yield* ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(30), symbol: "LATE" }))])
        const latest = yield* ScansRepo.latest(mint)
        expect(Option.map(latest, (scan) => scan.evidence.symbol)).toEqual(Option.some("NEW"))
      }))

    it("record is idempotent: the same scan twice is stored once", () =>
      Effect.gen(function* () {
        const scan = decodeScan(cleanScan(newAddress()))
        const first = yield* ScansRepo.record([scan, scan])
        const second = yield* ScansRepo.record([scan])
        expect([first, second]).toEqual([
          { inserted: 1, duplicates: 1 },
          { inserted: 0, duplicates: 1 }
        ])
      }))

    it("latestMany answers only the scanned mints, each with its latest scan", () =>
      Effect.gen(function* () {
        const [a, b, never] = [newAddress(), newAddress(), newAddress()]
        yield* ScansRepo.record([
          decodeScan(cleanScan(a, { scannedAt: minutesAgo(10), symbol: "A1" })),
          decodeScan(cleanScan(a, { scannedAt: minutesAgo(2), symbol: "A2" })),
          decodeScan(cleanScan(b, { symbol: "B" }))
        ])
        const found = yield* ScansRepo.latestMany([a, b, never])
        expect([...found].map(([mint, scan]) => [mint, scan.evidence.symbol]).sort()).toEqual(
          [
            [a, "A2"],
            [b, "B"]
          ].sort()
        )
      }))

    it("history: the scan at entry and every later one, oldest first; the most recent when no entry", () =>
      Effect.gen(function* () {
        const mint = newAddress()
        const at = (minutes: number, symbol: string) =>
          decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes), symbol }))
        yield* ScansRepo.record([at(50, "T50"), at(40, "T40"), at(30, "T30"), at(20, "T20"), at(10, "T10")])
        const symbols = (scans: ReadonlyArray<{ evidence: { symbol: string | null } }>) =>
          scans.map((scan) => scan.evidence.symbol)
        expect(symbols(yield* ScansRepo.history(mint, { since: minutesAgo(35), limit: 100 }))).toEqual([
          "T40",
          "T30",
          "T20",
          "T10"
        ])
        expect(symbols(yield* ScansRepo.history(mint, { since: minutesAgo(90), limit: 100 }))).toEqual([
          "T50",
          "T40",
          "T30",
          "T20",
          "T10"
        ])
        expect(symbols(yield* ScansRepo.history(mint, { since: null, limit: 2 }))).toEqual(["T20", "T10"])
        expect(symbols(yield* ScansRepo.history(newAddress(), { since: null, limit: 5 }))).toEqual([])
      }))

    it("a repeated scan request returns the same pending request with its count raised", () =>
      Effect.gen(function* () {
        const mint = newAddress()
        const first = yield* ScanRequestsRepo.request(mint)
        const second = yield* ScanRequestsRepo.request(mint)
        expect({ sameId: second.id === first.id, count: second.requestCount }).toEqual({ sameId: true, count: 2 })
        const pending = yield* ScanRequestsRepo.pending(10_000)
        expect(pending.filter((request) => request.mint === mint).length).toBe(1)
      }))
  })

suite("in-memory services", Layer.mergeAll(ScansRepoMemory, ScanRequestsMemory))

const sqlLayer = Layer.mergeAll(ScansRepo.Default, ScanRequestsRepo.Default).pipe(Layer.provideMerge(TestDatabase))
suite(`SQL services on ${databaseKind}`, sqlLayer)

describe(`SQL-only behaviour on ${databaseKind}`, () => {
  const { it } = runtimeFor(sqlLayer)

  it("importing a newer scan completes the pending request; an older one does not", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      yield* ScanRequestsRepo.request(mint)
      yield* ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(60) }))])
      const stillPending = (yield* ScanRequestsRepo.pending(10_000)).some((request) => request.mint === mint)
      yield* ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: new Date(Date.now() + 1000).toISOString() }))])
      const afterNewer = (yield* ScanRequestsRepo.pending(10_000)).some((request) => request.mint === mint)
      expect({ stillPending, afterNewer }).toEqual({ stillPending: true, afterNewer: false })
    }))

  it(
    "the latest-scan lookup is a primary-key probe of latest_scans, not a scan of the history",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const mints = Array.from({ length: 300 }, () => newAddress())
        yield* ScansRepo.record(
          mints.flatMap((mint) =>
            [1, 2, 3, 4, 5, 6, 7, 8].map((hours) => decodeScan(cleanScan(mint, { scannedAt: minutesAgo(hours * 60) })))
          )
        )
        yield* sql`analyze latest_scans`
        const plan = yield* sql<{ "QUERY PLAN": string }>`explain ${latestScanStatement(sql, mints[7]!)}`
        const text = plan.map((row) => row["QUERY PLAN"]).join("\n")
        expect({ usesIndex: text.includes("latest_scans_pkey"), seqScan: text.includes("Seq Scan") }).toEqual({
          usesIndex: true,
          seqScan: false
        })
      }),
    60_000
  )
})
