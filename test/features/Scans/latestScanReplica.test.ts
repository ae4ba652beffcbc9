import { describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { LatestScanCache, latestScanCacheWith } from "../../../src/features/Scans/LatestScanCache.ts"
import { notificationPayloads, parseNotification, probePayload } from "../../../src/features/Scans/ScanNotifications.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { TestDatabase, testDatabaseUrl } from "../../support/database.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// The latest-scan cache reading a replica (DATABASE_READ_URL) that lags behind the primary. The replica here
// is a second schema of the test database holding its own latest_scans, which this test brings up to date by
// hand (what replay does); so reads of it lag for as long as the test says. Notifications need PostgreSQL.

describe("scan notifications", () => {
  test("carry each mint's latest scan id, in payloads PostgreSQL accepts (under 8000 bytes)", () => {
    const mints = Array.from({ length: 250 }, () => newAddress())
    const ids = new Map(mints.map((mint, i) => [mint, String(9_000_000_000_000_000_000n + BigInt(i))]))
    ids.delete(mints[3]!) // a mint whose latest row was not written: no id
    const payloads = notificationPayloads([...mints, mints[0]!], ids)
    expect(payloads.length).toBe(3)
    expect(Math.max(...payloads.map((p) => new TextEncoder().encode(p).length))).toBeLessThan(8000)
    const heard = payloads.flatMap((p) => parseNotification(p)?.mints ?? [])
    expect(heard.map((m) => m.mint)).toEqual(mints)
    expect(heard[3]?.id).toBeUndefined()
    expect(heard[4]?.id).toBe(9_000_000_000_000_000_004n)
  })

  test("an older writer's payload (mints only) is read as mints without ids; a probe as a probe", () => {
    const mint = newAddress()
    expect(parseNotification(JSON.stringify([mint]))).toEqual({ mints: [{ mint, id: undefined }], probe: undefined })
    expect(parseNotification(probePayload("n1"))).toEqual({ mints: [], probe: "n1" })
    for (const malformed of ["not json", "{}", "[1]", '[{"ids":[]},{"ids":[]}]']) {
      expect(parseNotification(malformed)).toBeUndefined()
    }
  })
})

const url = testDatabaseUrl
describe.skipIf(url === undefined)("latest-scan cache on a lagging read replica", () => {
  const runtime = ManagedRuntime.make(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))
  const run = <A, E>(effect: Effect.Effect<A, E, ScansRepo | SqlClient.SqlClient | PgClient.PgClient>) =>
    runtime.runPromise(effect)
  const sql = <A extends object>(statement: string) =>
    run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe<A>(statement)))
  const record = (mint: Address, minutes: number) =>
    run(ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(minutes), symbol: `M${minutes}` }))]))

  test("a mint scanned since the replica's state is read from the primary, then from the replica once it has caught up", async () => {
    const primary = (await sql<{ schema: string }>("select current_schema() as schema"))[0]!.schema
    const replicaSchema = `${primary}_replica`
    await sql(`create schema ${replicaSchema}`)
    await sql(`create table ${replicaSchema}.latest_scans (like ${primary}.latest_scans including all)`)
    // Replay up to now: the replica's latest_scans becomes the primary's.
    const replay = () =>
      sql(
        `delete from ${replicaSchema}.latest_scans; insert into ${replicaSchema}.latest_scans select * from ${primary}.latest_scans`
      )
    const separator = url!.includes("?") ? "&" : "?"
    const replicaLayer = PgClient.layer({
      url: Redacted.make(`${url}${separator}options=${encodeURIComponent(`-c search_path=${replicaSchema}`)}`),
      maxConnections: 2
    })
    const replicaRuntime = ManagedRuntime.make(replicaLayer)
    const replica = await replicaRuntime.runPromise(SqlClient.SqlClient)
    const cache = ManagedRuntime.make(
      latestScanCacheWith({ size: 100, ttlSeconds: 60, notifications: true, replica }).pipe(
        Layer.provide(ScansRepo.Default),
        Layer.provide(Layer.succeedContext(await runtime.runtime().then((r) => r.context)))
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
    try {
      // Once the listener is confirmed, reads go to the replica: a row only the replica has is answered.
      const kept = newAddress()
      await record(kept, 30)
      await replay()
      const onlyOnReplica = async () => {
        const mint = newAddress()
        await sql(
          `insert into ${replicaSchema}.latest_scans
           select (jsonb_populate_record(null::${replicaSchema}.latest_scans, to_jsonb(p) || jsonb_build_object('mint', '${mint}'))).*
           from ${primary}.latest_scans p where mint = '${kept}'`
        )
        return symbolOf(mint)
      }
      let seen = await onlyOnReplica()
      for (let i = 0; i < 200 && seen === "none"; i++) {
        await Bun.sleep(25)
        seen = await onlyOnReplica()
      }
      expect(seen).toBe("M30")

      // A held mint rescanned while the replica lags: the notification drops it, and the replica's answer
      // (the scan before) is not the notified one, so the primary answers, and that is what is kept.
      expect([await symbolOf(kept), await symbolOf(kept)]).toEqual(["M30", "M30"])
      await record(kept, 20)
      const notified = async (mint: Address, symbol: string) => {
        for (let i = 0; i < 200 && (await symbolOf(mint)) !== symbol; i++) await Bun.sleep(10)
        return symbolOf(mint)
      }
      expect(await notified(kept, "M20")).toBe("M20")

      // A mint remembered as never scanned, then scanned while the replica lags: never answered as unscanned
      // again once the notification is in, single or in a batch.
      const fresh = newAddress()
      const inBatch = newAddress()
      expect([await symbolOf(fresh), ...(await symbolsOf([inBatch]))]).toEqual(["none", "none"])
      await record(fresh, 10)
      await record(inBatch, 10)
      expect(await notified(fresh, "M10")).toBe("M10")
      let batch = await symbolsOf([inBatch, kept])
      for (let i = 0; i < 200 && batch[0] === "none"; i++) {
        await Bun.sleep(10)
        batch = await symbolsOf([inBatch, kept])
      }
      expect(batch).toEqual(["M10", "M20"])
      expect(await symbolOf(fresh)).toBe("M10") // and stays so: the replica's "none" was never kept

      // Caught up: the replica answers again (a row changed on the replica alone is what is read).
      await replay()
      const later = newAddress()
      await record(later, 5)
      await replay()
      await sql(
        `update ${replicaSchema}.latest_scans set evidence = jsonb_set(evidence, '{symbol}', '"R5"') where mint = '${later}'`
      )
      expect(await notified(later, "R5")).toBe("R5")
    } finally {
      await cache.dispose()
      await replicaRuntime.dispose()
      await sql(`drop schema ${replicaSchema} cascade`)
      await runtime.dispose()
    }
  }, 60_000)
})
