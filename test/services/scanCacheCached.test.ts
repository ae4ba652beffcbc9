import { describe, expect, test } from "bun:test"
import { Effect, Layer, Option } from "effect"
import type { Address } from "../../src/domain/Address.ts"
import { ScanCache } from "../../src/services/ScanCache.ts"
import { HotScans, makeCachedScanCache } from "../../src/services/ScanCacheCached.ts"
import { databaseKind, TestDatabase } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../support/fixtures.ts"

// The in-process cache without notifications (as on the embedded database): entries live one second,
// then are answered for at most one more second while a background read refreshes them.
const { run } = runtimeFor(
  makeCachedScanCache({ size: 3, ttlSeconds: 60, notifications: false }).pipe(Layer.provideMerge(TestDatabase))
)

const record = (mint: Address, minutes: number) =>
  run(ScanCache.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes), symbol: `M${minutes}` }))]))
const peekSymbol = (mint: Address) =>
  run(Effect.map(HotScans, (hot) => {
    const scan = hot.peek(mint)
    return scan === undefined ? "not in memory" : scan === null ? "never scanned" : scan.evidence.symbol ?? "no symbol"
  }))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe(`latest-scan cache on ${databaseKind}`, () => {
  test("a read fills memory; a newer scan shows after expiry, first served stale while one read refreshes", async () => {
    const mint = newAddress()
    await record(mint, 10)
    expect(await peekSymbol(mint)).toBe("not in memory")
    expect(Option.map(await run(ScanCache.latest(mint)), (scan) => scan.evidence.symbol)).toEqual(Option.some("M10"))
    expect(await peekSymbol(mint)).toBe("not in memory") // kept from its second read on
    await run(ScanCache.latest(mint))
    expect(await peekSymbol(mint)).toBe("M10")
    await record(mint, 5) // another process's import: no notification here
    expect(await peekSymbol(mint)).toBe("M10") // until the entry's second is up
    await sleep(1_050)
    expect(await peekSymbol(mint)).toBe("M10") // expired: answered stale, refresh started
    let seen = "M10"
    for (let i = 0; i < 50 && seen === "M10"; i++) {
      await sleep(20)
      seen = await peekSymbol(mint)
    }
    expect(seen).toBe("M5")
  })

  test("an entry not asked about within the grace second is gone; never-scanned mints are remembered", async () => {
    const mint = newAddress()
    await run(ScanCache.latest(mint))
    await run(ScanCache.latest(mint))
    expect(await peekSymbol(mint)).toBe("never scanned")
    await sleep(2_100)
    expect(await peekSymbol(mint)).toBe("not in memory")
  })

  test("one pass over many mints keeps none of them (a crawler does not flush the hot set)", async () => {
    const hot = newAddress()
    await run(Effect.zipRight(ScanCache.latest(hot), ScanCache.latest(hot)))
    const once = Array.from({ length: 10 }, () => newAddress())
    for (const mint of once) await run(ScanCache.latest(mint))
    expect(await Promise.all(once.map(peekSymbol))).toEqual(Array(10).fill("not in memory"))
    expect(await peekSymbol(hot)).toBe("never scanned")
  })

  test("memory holds at most SCAN_CACHE_SIZE mints, oldest out first", async () => {
    const mints = [newAddress(), newAddress(), newAddress(), newAddress()]
    for (const mint of mints) await run(Effect.zipRight(ScanCache.latest(mint), ScanCache.latest(mint)))
    expect(await Promise.all(mints.map(peekSymbol))).toEqual(["not in memory", "never scanned", "never scanned", "never scanned"])
  })
})
