import { describe, expect } from "bun:test"
import { Effect, Layer, Option, Stream } from "effect"
import { importScans } from "../../src/importer/importScans.ts"
import { ScanCache, ScanCacheSql } from "../../src/services/ScanCache.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, minutesAgo, newAddress } from "../support/fixtures.ts"

const { it } = runtimeFor(ScanCacheSql.pipe(Layer.provideMerge(TestDatabase)))
const lines = (...text: ReadonlyArray<string>) => Stream.fromIterable(text)

describe(`NDJSON import on ${databaseKind}`, () => {
  it("stores valid lines, reports each invalid line with its number and reason", () =>
    Effect.gen(function*() {
      const [a, b] = [newAddress(), newAddress()]
      const report = yield* importScans(lines(
        JSON.stringify(cleanScan(a)),
        "{not json",
        "",
        JSON.stringify({ ...cleanScan(b), mint: "0xdeadbeef" }),
        JSON.stringify({ ...cleanScan(b), trading: { isHoneypot: "yes", buyTax: 0, sellTax: 0 } }),
        JSON.stringify({ ...cleanScan(b), surprise: 1 }),
        JSON.stringify(cleanScan(b, { scannedAt: minutesAgo(3) }))
      ))
      expect({ lines: report.lines, inserted: report.inserted, duplicates: report.duplicates, invalid: report.invalid })
        .toEqual({ lines: 7, inserted: 2, duplicates: 0, invalid: 4 })
      expect(report.errors.map((error) => error.line)).toEqual([2, 4, 5, 6])
      expect(report.errors[0]!.reason).toStartWith("not JSON")
      expect(report.errors[1]!.reason).toStartWith("mint: ")
      expect(report.errors[2]!.reason).toContain("trading.isHoneypot")
      expect(report.errors[3]!.reason).toContain("surprise")
      expect(Option.isSome(yield* ScanCache.latest(b))).toBe(true)
    }))

  it("a NUL character or a scan dated in the future is a line error; the rest of the batch is stored", () =>
    Effect.gen(function*() {
      const [a, b, c] = [newAddress(), newAddress(), newAddress()]
      const report = yield* importScans(lines(
        JSON.stringify(cleanScan(a, { name: "Evil\u0000Token" })),
        JSON.stringify(cleanScan(b, { scannedAt: new Date(Date.now() + 3_600_000).toISOString() })),
        JSON.stringify(cleanScan(c))
      ))
      expect({ inserted: report.inserted, lines: report.errors.map((error) => error.line) }).toEqual({ inserted: 1, lines: [1, 2] })
      expect(report.errors[0]!.reason).toContain("NUL")
      expect(report.errors[1]!.reason).toStartWith("scannedAt: ")
      expect(report.errors[1]!.reason).toContain("in the future")
      expect(Option.isSome(yield* ScanCache.latest(c))).toBe(true)
    }))

  it("re-importing the same lines changes nothing", () =>
    Effect.gen(function*() {
      const file = [JSON.stringify(cleanScan(newAddress())), JSON.stringify(cleanScan(newAddress()))]
      const first = yield* importScans(lines(...file))
      const second = yield* importScans(lines(...file))
      expect([first.inserted, second.inserted, second.duplicates]).toEqual([2, 0, 2])
    }))

  it("the same scan with its keys reordered or defaults spelled out is still a duplicate", () =>
    Effect.gen(function*() {
      const mint = newAddress()
      const minimal = { mint, scannedAt: minutesAgo(2), symbol: "MIN" }
      const spelled = { symbol: "MIN", scanDepth: "full", source: "cached_scan", scannedAt: minimal.scannedAt, mint }
      const report = yield* importScans(lines(JSON.stringify(minimal), JSON.stringify(spelled)))
      expect([report.inserted, report.duplicates]).toEqual([1, 1])
    }))

  it("a large file is imported in batches", () =>
    Effect.gen(function*() {
      const many = Array.from({ length: 1_201 }, () => JSON.stringify(cleanScan(newAddress())))
      const report = yield* importScans(lines(...many))
      expect([report.inserted, report.invalid]).toEqual([1_201, 0])
    }), 60_000)
})
