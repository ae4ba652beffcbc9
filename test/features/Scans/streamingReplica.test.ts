import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { LatestScanCache, latestScanCacheWith } from "../../../src/features/Scans/LatestScanCache.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { MigrationsLive } from "../../../src/platform/Sql/Migrations.ts"
import { testDatabaseUrl } from "../../support/database.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import {
  type StreamingReplica,
  startStreamingReplica,
  streamingReplicaUnavailable
} from "../../support/streamingReplica.ts"

// The latest-scan cache on a real streaming replica (DATABASE_READ_URL): a primary and a replica made for
// this file (test/support/streamingReplica.ts), the replica's replay paused to make it lag on purpose. Run
// with the PostgreSQL tests (TEST_DATABASE_URL), where the server programs are installed.

const skip = testDatabaseUrl === undefined || streamingReplicaUnavailable !== undefined
if (testDatabaseUrl !== undefined && streamingReplicaUnavailable !== undefined)
  console.log(`streaming replica tests skipped: ${streamingReplicaUnavailable}`)

describe.skipIf(skip)("latest-scan cache on a streaming replica", () => {
  let cluster: StreamingReplica
  beforeAll(async () => {
    cluster = await startStreamingReplica()
  }, 120_000)
  afterAll(() => cluster?.stop())

  test("reads the replica; a scan the replica has not replayed is answered from the primary once notified", async () => {
    const primary = ManagedRuntime.make(
      ScansRepo.Default.pipe(
        Layer.provideMerge(
          Layer.provideMerge(MigrationsLive, PgClient.layer({ url: Redacted.make(cluster.primaryUrl) }))
        )
      )
    )
    const replicaClient = ManagedRuntime.make(
      PgClient.layer({ url: Redacted.make(cluster.replicaUrl), maxConnections: 2 })
    )
    const onPrimary = <A extends object>(statement: string) =>
      primary.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)))
    const onReplica = <A extends object>(statement: string) =>
      replicaClient.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)))
    const record = (mint: Address, minutes: number) =>
      primary.runPromise(
        ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes), symbol: `M${minutes}` }))])
      )
    const replayed = async () => {
      const lsn = (await onPrimary<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn"))[0]?.lsn
      for (let i = 0; i < 500; i++) {
        const [row] = await onReplica<{ done: boolean }>(`select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`)
        if (row?.done === true) return
        await Bun.sleep(20)
      }
      throw new Error("the replica did not catch up in 10 s")
    }
    const pause = async () => {
      await onReplica("select pg_wal_replay_pause()")
      for (let i = 0; i < 500; i++) {
        const [row] = await onReplica<{ state: string }>("select pg_get_wal_replay_pause_state() as state")
        if (row?.state === "paused") return
        await Bun.sleep(20)
      }
      throw new Error("the replica's replay did not pause in 10 s")
    }
    const resume = () => onReplica("select pg_wal_replay_resume()")

    await primary.runtime()
    const template = newAddress()
    await record(template, 60)
    await replayed()
    // A scan written before the cache listens: its notification is never heard, and the replica lags.
    await pause()
    const missed = newAddress()
    await record(missed, 50)
    const replica = await replicaClient.runPromise(SqlClient.SqlClient)
    const cache = ManagedRuntime.make(
      latestScanCacheWith({ size: 100, ttlSeconds: 60, notifications: true, replica }).pipe(
        Layer.provide(ScansRepo.Default),
        Layer.provide(Layer.succeedContext(await primary.runtime().then((r) => r.context)))
      )
    )
    const symbolOf = async (mint: Address) =>
      Option.match(await cache.runPromise(Effect.flatMap(LatestScanCache, (scans) => scans.latest(mint))), {
        onNone: () => "none",
        onSome: (scan) => scan.evidence.symbol ?? "no symbol"
      })
    const symbolsOf = async (mints: ReadonlyArray<Address>) => {
      const found = await cache.runPromise(Effect.flatMap(LatestScanCache, (scans) => scans.latestMany(mints)))
      return mints.map((mint) => {
        const scan = found.get(mint)
        return scan === undefined ? "none" : (("evidence" in scan ? scan.evidence.symbol : scan.verdict.symbol) ?? "")
      })
    }
    // Within 2 s (the notification's way from the primary), the cache answers `symbol` for the mint.
    const answers = async (mint: Address, symbol: string) => {
      for (let i = 0; i < 200 && (await symbolOf(mint)) !== symbol; i++) await Bun.sleep(10)
      return symbolOf(mint)
    }
    // With replay paused, a row written on the primary without a notification (as no writer of ours does) is
    // on the primary only: the cache answering "none" for it read the replica.
    const readsReplica = async () => {
      const mint = newAddress()
      await onPrimary(
        `insert into latest_scans
         select (jsonb_populate_record(null::latest_scans, to_jsonb(l) || jsonb_build_object('mint', '${mint}'))).*
         from latest_scans l where mint = '${template}'`
      )
      return (await symbolOf(mint)) === "none"
    }
    try {
      // The cache reads the primary until its listener is confirmed and the replica has replayed the
      // primary's WAL as of then, so the scan whose notification it missed is answered.
      expect(await symbolOf(missed)).toBe("M50")
      expect(await readsReplica()).toBe(false)
      await resume()
      let onReplica = false
      for (let i = 0; i < 100 && !onReplica; i++) {
        await pause()
        onReplica = await readsReplica()
        await resume()
        if (!onReplica) await Bun.sleep(100)
      }
      expect(onReplica).toBe(true)

      const held = newAddress()
      await record(held, 30)
      await replayed()
      expect([await symbolOf(held), await symbolOf(held)]).toEqual(["M30", "M30"]) // kept from the second read
      await pause()
      // Scanned again while the replica lags: answered from the primary, never the replica's older scan.
      await record(held, 20)
      expect(await answers(held, "M20")).toBe("M20")
      // Never scanned, remembered so, then scanned: answered, single and in a batch.
      const fresh = newAddress()
      const batched = [newAddress(), newAddress()]
      expect([await symbolOf(fresh), ...(await symbolsOf(batched))]).toEqual(["none", "none", "none"])
      await record(fresh, 10)
      for (const mint of batched) await record(mint, 10)
      expect(await answers(fresh, "M10")).toBe("M10")
      let batch = await symbolsOf(batched)
      for (let i = 0; i < 200 && batch.includes("none"); i++) {
        await Bun.sleep(10)
        batch = await symbolsOf(batched)
      }
      expect(batch).toEqual(["M10", "M10"])
      expect(await readsReplica()).toBe(true) // still reading the (paused) replica for everything else
      await resume()
      await replayed()
      expect([await symbolOf(held), await symbolOf(fresh)]).toEqual(["M20", "M10"])
    } finally {
      await resume().catch(() => undefined)
      await cache.dispose()
      await replicaClient.dispose()
      await primary.dispose()
    }
  }, 90_000)
})
