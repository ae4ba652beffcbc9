import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { MigrationsLive, migratorThrough } from "../../../src/platform/Sql/Migrations.ts"
import { databaseKind, TestDatabaseUnmigrated } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"

// sql/0018 on a history written before it: the table is attached as scans_legacy (no copy), ids and every
// scan kept, a scan dated ahead moved into its day, and writes after it numbered after the old ones.
const decode = Schema.decodeUnknownSync(ScanEvidence)
const DAY_MS = 86_400_000
const scanAt = (mint: string, msFromNow: number) =>
  decode(cleanScan(mint, { scannedAt: new Date(Date.now() + msFromNow).toISOString() }))

const migrated = (layer: typeof MigrationsLive) => Effect.scoped(Layer.build(layer))

describe(`sql/0018 converting a history on ${databaseKind}`, () => {
  const { it } = runtimeFor(TestDatabaseUnmigrated)

  it(
    "keeps every scan and id, attaches the old table whole, and writes after it go to day partitions",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* migrated(migratorThrough("0017_write_charges"))
        const [mint, ahead] = [newAddress(), newAddress()]
        const request = crypto.randomUUID()
        yield* sql`insert into scan_requests (id, mint, requested_at) values (${request}, ${mint}, now() - interval '4 days')`
        // What the release before sql/0018 wrote: its record (insert, latest_scans, completing the request).
        const old = ScansRepo.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))
        const recordBefore = (scans: ReadonlyArray<ScanEvidence>) =>
          sql`
          insert into scans (mint, scanned_at, evidence, evidence_hash)
          select mint, scanned_at, evidence::jsonb, md5(evidence)
          from unnest(${scans.map((s) => s.mint)}::text[], ${scans.map((s) => s.scannedAt)}::timestamptz[],
            ${scans.map((s) => JSON.stringify(Schema.encodeSync(ScanEvidence)(s)))}::text[]) as t(mint, scanned_at, evidence)`
        yield* recordBefore([scanAt(mint, -3 * DAY_MS), scanAt(mint, -3_600_000), scanAt(ahead, 2 * DAY_MS)])
        yield* sql`update scan_requests set status = 'completed', completed_by_scan = (select min(id) from scans)`
        const before = yield* sql<{ id: string; mint: string; at: string }>`
        select id::text as id, mint, scanned_at::text as at from scans order by id`

        yield* migrated(MigrationsLive)

        const after = yield* sql<{ id: string; mint: string; at: string; part: string }>`
        select id::text as id, mint, scanned_at::text as at, tableoid::regclass::text as part from scans order by id`
        expect(after.map(({ part: _, ...row }) => row)).toEqual([...before])
        const aheadDay = `scans_p${new Date(Date.now() + 2 * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "")}`
        expect(after.map((row) => row.part)).toEqual(["scans_legacy", "scans_legacy", aheadDay])
        const [kind] = yield* sql<{
          kind: string
        }>`select relkind::text as kind from pg_class where oid = 'scans'::regclass`
        expect(kind!.kind).toBe("p")
        const [completed] = yield* sql<{ scan: string }>`
        select completed_by_scan::text as scan from scan_requests where id = ${request}`
        expect(completed!.scan).toBe(before[0]!.id)

        // The service writes through the new table: ids after the old ones; today's scan still in the converted
        // table, whose range ends at tomorrow's partition.
        const written = yield* Effect.provide(
          Effect.gen(function* () {
            const fresh = scanAt(mint, 0)
            const result = yield* ScansRepo.record([fresh])
            return { result, latest: Option.getOrThrow(yield* ScansRepo.latest(mint as Address)) }
          }),
          old
        )
        expect(written.result).toEqual({ inserted: 1, duplicates: 0 })
        expect(BigInt(written.latest.id)).toBeGreaterThan(BigInt(before.at(-1)!.id))
        const [part] = yield* sql<{ part: string }>`
        select tableoid::regclass::text as part from scans where id = ${written.latest.id}::bigint`
        expect(part!.part).toBe("scans_legacy")
      }),
    // It runs the migrations itself (before and after the conversion), which the layer's 120 s do not cover.
    30_000
  )
})
