import { describe, expect } from "bun:test"
import { Effect, Layer, Option, Stream } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { importMarketFigures } from "../../../src/features/Market/Import.ts"
import { MarketFiguresRepo } from "../../../src/features/Market/MarketFiguresRepo.ts"
import { Transactions } from "../../../src/platform/Sql/Transactions.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { minutesAgo, newAddress } from "../../support/fixtures.ts"

// `risk-api import-market` below the CLI: lines validated with their line numbers, one row per mint (the
// latest observation), and nothing written when a line is invalid unless the caller skips invalid lines.

const { it } = runtimeFor(
  Layer.mergeAll(MarketFiguresRepo.Default, Transactions.Default).pipe(Layer.provideMerge(TestDatabase))
)

const line = (mint: string, minutes: number, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    mint,
    observedAt: minutesAgo(minutes),
    volume24hUsd: 125_000.5,
    trades24h: 310,
    priceChange24hPct: -12.5,
    source: "feed-a",
    ...overrides
  })

const run = (lines: ReadonlyArray<string>, skipInvalid = false) =>
  importMarketFigures(Stream.fromIterable(lines), { skipInvalid })

const stored = (mint: string) => Effect.map(MarketFiguresRepo.latest(mint as Address), Option.getOrNull)

describe(`market feed import on ${databaseKind}`, () => {
  it("stores one row per mint with its figures and source; re-importing changes nothing", () =>
    Effect.gen(function* () {
      const [a, b] = [newAddress(), newAddress()]
      const at = minutesAgo(10)
      const lines = [
        line(a, 10, { observedAt: at }),
        "",
        line(b, 5, { volume24hUsd: 0, trades24h: 0, priceChange24hPct: 300 })
      ]
      const first = yield* run(lines)
      expect(first).toEqual({ lines: 3, inserted: 2, duplicates: 0, invalid: 0, errors: [], written: true })
      expect(yield* stored(a)).toEqual({
        mint: a,
        observedAt: at,
        volume24hUsd: 125_000.5,
        trades24h: 310,
        priceChange24hPct: -12.5,
        source: "feed-a"
      })
      expect(yield* stored(b)).toMatchObject({ volume24hUsd: 0, trades24h: 0, priceChange24hPct: 300 })
      expect(yield* run(lines)).toMatchObject({ inserted: 0, duplicates: 2, written: true })
    }))

  it("keeps the latest observation: a newer line replaces, an older one does not, a same-time correction does", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      const at = minutesAgo(30)
      yield* run([line(mint, 30, { observedAt: at })])
      expect(yield* run([line(mint, 40, { trades24h: 1 })])).toMatchObject({ inserted: 0, duplicates: 1 })
      expect((yield* stored(mint))?.trades24h).toBe(310)
      expect(yield* run([line(mint, 30, { observedAt: at, trades24h: 311 })])).toMatchObject({
        inserted: 1,
        duplicates: 0
      })
      expect((yield* stored(mint))?.trades24h).toBe(311)
      // Several lines for one mint in one file: the latest observed wins, wherever it stands.
      const newest = minutesAgo(2)
      const report = yield* run([
        line(mint, 3, { source: "b" }),
        line(mint, 2, { observedAt: newest, source: "c" }),
        line(mint, 20, { source: "a" })
      ])
      expect(report).toMatchObject({ inserted: 1, duplicates: 2 })
      expect(yield* stored(mint)).toMatchObject({ observedAt: newest, source: "c" })
    }))

  it("an invalid line writes nothing and every invalid line is reported with its number and reason", () =>
    Effect.gen(function* () {
      const [good, other] = [newAddress(), newAddress()]
      const report = yield* run([
        line(good, 5),
        '{"mint": ',
        line(other, 5, { volume24hUsd: "12" }),
        line(other, 5, { extra: 1 }),
        line("0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl", 5),
        JSON.stringify({ mint: other, observedAt: minutesAgo(5), volume24hUsd: 1, trades24h: 1, source: "feed-a" }),
        line(other, 5, { volume24hUsd: -1 }),
        line(other, 5, { trades24h: 1.5 }),
        line(other, 5, { priceChange24hPct: -101 }),
        line(other, -60),
        line(other, 5, { source: "" }),
        "[]",
        line(other, 5, { volume24hUsd: 1 }).replace('"volume24hUsd":1', '"volume24hUsd":1e999')
      ])
      expect({ ...report, errors: [] }).toEqual({
        lines: 13,
        inserted: 0,
        duplicates: 0,
        invalid: 12,
        errors: [],
        written: false
      })
      const reasons = new Map(report.errors.map((error) => [error.line, error.reason]))
      expect([...reasons.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
      expect(reasons.get(2)).toStartWith("not JSON (")
      expect(reasons.get(3)).toBe('volume24hUsd: Expected number, actual "12"')
      expect(reasons.get(4)).toStartWith('extra: is unexpected, expected: "mint" | "observedAt"')
      expect(reasons.get(5)).toStartWith("mint: not a Solana address (base58 of 32 bytes)")
      expect(reasons.get(6)).toBe("priceChange24hPct: is missing")
      expect(reasons.get(7)).toBe("volume24hUsd: Expected a non-negative number, actual -1")
      expect(reasons.get(8)).toBe("trades24h: Expected an integer, actual 1.5")
      expect(reasons.get(9)).toBe("priceChange24hPct: Expected a number greater than or equal to -100, actual -101")
      expect(reasons.get(10)).toMatch(/^observedAt: .* is in the future$/)
      expect(reasons.get(11)).toBe('source: Expected a string at least 1 character(s) long, actual ""')
      expect(reasons.get(12)).toBe("Expected MarketFeedLine, actual []")
      expect(reasons.get(13)).toBe("volume24hUsd: Expected a finite number, actual Infinity")
      expect(yield* stored(good)).toBeNull()
    }))

  it("an invalid line after batches already stored rolls them back", () =>
    Effect.gen(function* () {
      const mints = Array.from({ length: 1_200 }, () => newAddress())
      const report = yield* run([...mints.map((mint) => line(mint, 5)), "{}"])
      expect([report.written, report.invalid, report.errors[0]?.line]).toEqual([false, 1, 1_201])
      expect([yield* stored(mints[0]!), yield* stored(mints[1_199]!)]).toEqual([null, null])
    }))

  it("with skipInvalid the valid lines are stored and the invalid ones still reported", () =>
    Effect.gen(function* () {
      const good = newAddress()
      const report = yield* run([line(good, 5), "nope"], true)
      expect(report).toMatchObject({ lines: 2, inserted: 1, invalid: 1, written: true, errors: [{ line: 2 }] })
      expect((yield* stored(good))?.source).toBe("feed-a")
    }))
})
