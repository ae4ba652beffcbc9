import { describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, ManagedRuntime, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { entryBytesOf, LatestScanCache, latestScanCacheWith } from "../../../src/features/Scans/LatestScanCache.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// The in-process cache without notifications, as on the embedded database: scans written since the last
// look are polled for. Entries here live one second (SCAN_CACHE_TTL_SECONDS=1), then are answered for at
// most one more second while a background read refreshes them.
const { run, runtime } = runtimeFor(
  latestScanCacheWith({ size: 3, ttlSeconds: 1, notifications: false }).pipe(
    Layer.provideMerge(ScansRepo.Default),
    Layer.provideMerge(TestDatabase)
  )
)

const record = (mint: Address, minutes: number) =>
  run(ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes), symbol: `M${minutes}` }))]))
const peekSymbol = (mint: Address) =>
  run(
    Effect.map(LatestScanCache, (cache) => {
      const scan = cache.peek(mint)
      return scan === undefined
        ? "not in memory"
        : scan === null
          ? "never scanned"
          : (scan.evidence.symbol ?? "no symbol")
    })
  )
const latest = (mint: Address) => Effect.flatMap(LatestScanCache, (cache) => cache.latest(mint))
const latestSymbol = async (mint: Address) =>
  Option.getOrElse(
    Option.map(await run(latest(mint)), (scan) => scan.evidence.symbol ?? "no symbol"),
    () => "none"
  )
const keep = (mint: Address) => run(Effect.zipRight(latest(mint), latest(mint)))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe(`latest-scan cache on ${databaseKind}`, () => {
  test("a mint is kept from its second read; a scan written by another process is seen within a poll", async () => {
    const mint = newAddress()
    await record(mint, 10)
    expect(await peekSymbol(mint)).toBe("not in memory")
    expect(await latestSymbol(mint)).toBe("M10")
    expect(await peekSymbol(mint)).toBe("not in memory") // kept from its second read on
    expect(await latestSymbol(mint)).toBe("M10")
    expect(await peekSymbol(mint)).toBe("M10")
    await record(mint, 5) // as another process's import: this cache is not told
    const written = performance.now()
    let symbol = await latestSymbol(mint)
    while (symbol === "M10" && performance.now() - written < 900) {
      await sleep(10)
      symbol = await latestSymbol(mint)
    }
    expect(symbol).toBe("M5") // well before the entry's own second was up
  })

  test("an entry past its time is answered for one more second while a single read refreshes it", async () => {
    const mint = newAddress()
    await keep(mint)
    await sleep(1_050)
    expect(await peekSymbol(mint)).toBe("never scanned") // expired: answered, refresh started
    await sleep(1_050)
    // Without the refresh the entry would be more than a second past its time, and gone.
    expect(await peekSymbol(mint)).toBe("never scanned")
  })

  test("an entry not asked about within the grace second is gone", async () => {
    const mint = newAddress()
    await keep(mint)
    expect(await peekSymbol(mint)).toBe("never scanned")
    await sleep(2_100)
    expect(await peekSymbol(mint)).toBe("not in memory")
  })

  test("one pass over many mints keeps none of them (a crawler does not flush the hot set)", async () => {
    const hot = newAddress()
    await keep(hot)
    const footprint = () => run(Effect.map(LatestScanCache, (cache) => cache.footprint!()))
    const before = await footprint()
    const once = Array.from({ length: 10 }, () => newAddress())
    const scanned = Array.from({ length: 10 }, () => newAddress())
    for (const mint of scanned) await record(mint, 3)
    for (const mint of [...once, ...scanned]) await run(latest(mint))
    // Scanned mints read once are not kept; unknown ones only as brief never-scanned marks, outside the store.
    expect(await Promise.all(scanned.map(peekSymbol))).toEqual(Array(10).fill("not in memory"))
    expect(await Promise.all(once.map(peekSymbol))).toEqual(Array(10).fill("never scanned"))
    expect(await footprint()).toEqual(before)
    expect(await peekSymbol(hot)).toBe("never scanned")
  })

  test("memory holds at most SCAN_CACHE_SIZE mints, oldest out first", async () => {
    const mints = [newAddress(), newAddress(), newAddress(), newAddress()]
    for (const mint of mints) await keep(mint)
    expect(await Promise.all(mints.map(peekSymbol))).toEqual([
      "not in memory",
      "never scanned",
      "never scanned",
      "never scanned"
    ])
  })

  test("memory holds at most SCAN_CACHE_MAX_BYTES of entries, measured when stored, oldest out first", async () => {
    const database = Context.pick(SqlClient.SqlClient, PgClient.PgClient)((await runtime.runtime()).context)
    const mints = Array.from({ length: 6 }, () => newAddress())
    for (const mint of mints) await record(mint, 3)
    const scans = await run(Effect.forEach(mints, (mint) => Effect.map(ScansRepo.latest(mint), Option.getOrThrow)))
    const sizes = scans.map((scan) => entryBytesOf(scan))
    // Room for three scanned mints (their evidence is about 1.8 KB of JSON: about 4.9 KB an entry).
    const maxBytes = sizes[3]! + sizes[4]! + sizes[5]! + 10
    const cacheOf = (bound: number) =>
      ManagedRuntime.make(
        latestScanCacheWith({ size: 1_000, ttlSeconds: 60, notifications: false, maxBytes: bound }).pipe(
          Layer.provide(ScansRepo.Default),
          Layer.provide(Layer.succeedContext(database))
        )
      )
    const cache = cacheOf(maxBytes)
    const small = cacheOf(sizes[0]! - 1) // less than one scanned mint: only never-scanned mints fit
    try {
      const footprint = () => cache.runPromise(Effect.map(LatestScanCache, (scans) => scans.footprint!()))
      const held = () =>
        cache.runPromise(Effect.map(LatestScanCache, (scans) => mints.map((mint) => scans.peek(mint) !== undefined)))
      for (const mint of mints) await cache.runPromise(Effect.zipRight(latest(mint), latest(mint)))
      expect(await held()).toEqual([false, false, false, true, true, true])
      expect(await footprint()).toEqual({ entries: 3, bytes: sizes[3]! + sizes[4]! + sizes[5]! })
      expect(sizes.every((size) => size > 4_000 && size < 6_000)).toBe(true)
      // A scan larger than the whole bound is answered but not kept; it evicts nothing.
      const never = newAddress()
      for (const mint of [mints[0]!, never]) await small.runPromise(Effect.zipRight(latest(mint), latest(mint)))
      const smallHeld = await small.runPromise(
        Effect.map(LatestScanCache, (scans) => [scans.peek(mints[0]!), scans.peek(never), scans.footprint!()])
      )
      expect(smallHeld).toEqual([undefined, null, { entries: 1, bytes: entryBytesOf(undefined) }])
    } finally {
      await cache.dispose()
      await small.dispose()
    }
  })

  test("concurrent reads of the same cold mints share database reads, single and batch alike", async () => {
    const reads = { latest: 0, latestMany: 0, latestVerdicts: 0 }
    // The same database as the rest of this file (starting another embedded one would cost seconds).
    const database = Context.pick(SqlClient.SqlClient, PgClient.PgClient)((await runtime.runtime()).context)
    const counting = Layer.effect(
      ScansRepo,
      Effect.map(ScansRepo, (sql) =>
        ScansRepo.make({
          ...sql,
          latest: (mint: Address) =>
            Effect.zipRight(
              Effect.sync(() => reads.latest++),
              sql.latest(mint)
            ),
          latestMany: (mints: ReadonlyArray<Address>) =>
            Effect.zipRight(
              Effect.sync(() => reads.latestMany++),
              sql.latestMany(mints)
            ),
          latestVerdicts: (mints: ReadonlyArray<Address>) =>
            Effect.zipRight(
              Effect.sync(() => reads.latestVerdicts++),
              sql.latestVerdicts(mints)
            )
        })
      )
    ).pipe(Layer.provide(ScansRepo.Default))
    const cache = ManagedRuntime.make(
      latestScanCacheWith({ size: 100, ttlSeconds: 60, notifications: false }).pipe(
        Layer.provide(counting),
        Layer.provide(Layer.succeedContext(database))
      )
    )
    try {
      const mints = Array.from({ length: 5 }, () => newAddress())
      for (const mint of mints) await record(mint, 3)
      await cache.runPromise(
        Effect.all(
          Array.from({ length: 20 }, () => Effect.flatMap(LatestScanCache, (scans) => scans.latestMany(mints))),
          { concurrency: "unbounded" }
        )
      )
      await cache.runPromise(
        Effect.all(
          Array.from({ length: 20 }, () => latest(mints[0]!)),
          { concurrency: "unbounded" }
        )
      )
      // 20 batches, one query (of verdicts: a first read is not kept); then 20 checks, one query.
      expect(reads).toEqual({ latest: 1, latestMany: 0, latestVerdicts: 1 })
      // Read a second time, the batch's mints are read whole (in the same statement) and kept: a third batch
      // makes no query, and answers from the whole scans.
      for (let i = 0; i < 2; i++) {
        const found = await cache.runPromise(Effect.flatMap(LatestScanCache, (scans) => scans.latestMany(mints)))
        expect([...found.values()].every((scan) => "evidence" in scan)).toBe(true)
      }
      expect(reads).toEqual({ latest: 1, latestMany: 0, latestVerdicts: 2 })
    } finally {
      await cache.dispose()
    }
  })

  test("a never-scanned mint is remembered briefly: asked again it makes no query, until a scan of it arrives", async () => {
    let reads = 0
    const database = Context.pick(SqlClient.SqlClient, PgClient.PgClient)((await runtime.runtime()).context)
    const counting = Layer.effect(
      ScansRepo,
      Effect.map(ScansRepo, (sql) =>
        ScansRepo.make({
          ...sql,
          latest: (mint: Address) =>
            Effect.zipRight(
              Effect.sync(() => reads++),
              sql.latest(mint)
            ),
          latestMany: (mints: ReadonlyArray<Address>) =>
            Effect.zipRight(
              Effect.sync(() => reads++),
              sql.latestMany(mints)
            ),
          latestVerdicts: (mints: ReadonlyArray<Address>) =>
            Effect.zipRight(
              Effect.sync(() => reads++),
              sql.latestVerdicts(mints)
            )
        })
      )
    ).pipe(Layer.provide(ScansRepo.Default))
    const cache = ManagedRuntime.make(
      latestScanCacheWith({ size: 100, ttlSeconds: 60, notifications: false }).pipe(
        Layer.provide(counting),
        Layer.provide(Layer.succeedContext(database))
      )
    )
    try {
      const [unknown, other] = [newAddress(), newAddress()]
      const symbolOf = (mint: Address) =>
        cache.runPromise(
          Effect.map(latest(mint), (found) =>
            Option.getOrElse(
              Option.map(found, (scan) => scan.evidence.symbol),
              () => "none"
            )
          )
        )
      expect(await symbolOf(unknown)).toBe("none")
      for (let i = 0; i < 5; i++) expect(await symbolOf(unknown)).toBe("none")
      const many = await cache.runPromise(
        Effect.flatMap(LatestScanCache, (scans) => scans.latestMany([unknown, other]))
      )
      expect({ reads, found: many.size }).toEqual({ reads: 2, found: 0 }) // the first check, then `other` alone
      await record(unknown, 1) // as another process's scan: the poll drops the mark
      const written = performance.now()
      let symbol = await symbolOf(unknown)
      while (symbol === "none" && performance.now() - written < 2_000) {
        await sleep(20)
        symbol = await symbolOf(unknown)
      }
      expect(symbol).toBe("M1")
      expect(reads).toBe(3)
    } finally {
      await cache.dispose()
    }
  })
})
