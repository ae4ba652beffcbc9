import { describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PgClient as Pg } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { LatestScanCache, latestScanCacheWith } from "../../../src/features/Scans/LatestScanCache.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { readReplicaFallbacks } from "../../../src/platform/Observability/Metrics.ts"
import { TestDatabase, testDatabaseUrl } from "../../support/database.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// A read replica (DATABASE_READ_URL) whose reads fail the way a standby's do: a read cancelled by a conflict
// with recovery (SQLSTATE 40001), a read stopped by statement_timeout (57014). Each is answered by the
// primary, and reads go back to the replica once it answers (Scans/LatestScanReplica.ts). The replica here is
// a schema of the test database whose latest_scans is a view of the primary's that fails on demand, and hides
// the mints the test lists (so a read answered from it is told apart). Notifications need PostgreSQL.

const url = testDatabaseUrl
describe.skipIf(url === undefined)("latest-scan cache on a read replica whose reads fail", () => {
  const runtime = ManagedRuntime.make(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))
  const run = <A, E>(effect: Effect.Effect<A, E, ScansRepo | SqlClient.SqlClient | PgClient.PgClient>) =>
    runtime.runPromise(effect)
  const sql = <A extends object>(statement: string) =>
    run(Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe<A>(statement)))
  const record = (mint: Address, symbol: string) =>
    run(ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(5), symbol }))]))

  test("a read cancelled (40001) or timed out (57014) on the replica is answered by the primary; the replica is read again once it answers", async () => {
    const primary = (await sql<{ schema: string }>("select current_schema() as schema"))[0]!.schema
    const replicaSchema = `${primary}_failing`
    await sql(`create schema ${replicaSchema}`)
    await sql(`create table ${replicaSchema}.mode (failure text)`)
    await sql(`insert into ${replicaSchema}.mode values (null)`)
    await sql(`create table ${replicaSchema}.hidden (mint text primary key)`)
    await sql(`create function ${replicaSchema}.answers() returns boolean language plpgsql as $$
      declare failure text := (select m.failure from ${replicaSchema}.mode m);
      begin
        if failure = 'sleep' then perform pg_sleep(5); end if;
        if failure is not null then raise exception 'canceling statement due to conflict with recovery' using errcode = failure; end if;
        return true;
      end $$`)
    await sql(`create view ${replicaSchema}.latest_scans as select * from ${primary}.latest_scans
      where ${replicaSchema}.answers() and mint not in (select h.mint from ${replicaSchema}.hidden h)`)
    const setFailure = (failure: string | null) =>
      sql(`update ${replicaSchema}.mode set failure = ${failure === null ? "null" : `'${failure}'`}`)
    const separator = url!.includes("?") ? "&" : "?"
    const replicaRuntime = ManagedRuntime.make(
      Pg.layer({
        url: Redacted.make(
          `${url}${separator}options=${encodeURIComponent(`-c search_path=${replicaSchema} -c statement_timeout=300`)}`
        ),
        maxConnections: 2
      })
    )
    const replica = await replicaRuntime.runPromise(SqlClient.SqlClient)
    const cache = ManagedRuntime.make(
      latestScanCacheWith({
        size: 100,
        ttlSeconds: 60,
        notifications: true,
        replica,
        replicaRetryAfter: "100 millis"
      }).pipe(
        Layer.provide(ScansRepo.Default),
        Layer.provide(Layer.succeedContext(await runtime.runtime().then((r) => r.context)))
      )
    )
    const symbolOf = async (mint: Address) =>
      Option.match(await cache.runPromise(Effect.flatMap(LatestScanCache, (scans) => scans.latest(mint))), {
        onNone: () => "none",
        onSome: (scan) => scan.evidence.symbol ?? "no symbol"
      })
    const template = newAddress()
    await record(template, "T")
    // A row on the primary, written without a notification, that the replica hides: "none" came from the replica.
    const readsReplica = async () => {
      const mint = newAddress()
      await sql(`insert into ${replicaSchema}.hidden values ('${mint}')`)
      await sql(
        `insert into ${primary}.latest_scans
         select (jsonb_populate_record(null::${primary}.latest_scans, to_jsonb(l) || jsonb_build_object('mint', '${mint}'))).*
         from ${primary}.latest_scans l where mint = '${template}'`
      )
      return (await symbolOf(mint)) === "none"
    }
    const untilReadsReplica = async () => {
      for (let i = 0; i < 200; i++) {
        if (await readsReplica()) return true
        await Bun.sleep(25)
      }
      return false
    }
    const fallbacks = async () => (await readReplicaFallbacks.get()).values.reduce((sum, v) => sum + v.value, 0)
    try {
      expect(await untilReadsReplica()).toBe(true)
      for (const failure of ["40001", "sleep"]) {
        await setFailure(failure)
        const before = await fallbacks()
        const mint = newAddress()
        await record(mint, failure)
        expect(await symbolOf(mint)).toBe(failure)
        expect(await readsReplica()).toBe(false) // the primary answered the row the replica hides
        expect(await fallbacks()).toBeGreaterThan(before)
        await setFailure(null)
        expect(await untilReadsReplica()).toBe(true)
      }
    } finally {
      await cache.dispose()
      await replicaRuntime.dispose()
      await sql(`drop schema ${replicaSchema} cascade`)
      await runtime.dispose()
    }
  }, 60_000)
})
