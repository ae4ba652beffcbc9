import { describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { MigrationsLive, migratorThrough } from "../../../src/platform/Sql/Migrations.ts"
import { databaseKind, TestDatabaseUnmigrated } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"

// sql/0020: the v2 document is written compressed (evidence_v2_zstd) and read back whole; documents written
// before it, as jsonb in evidence_v2, stay readable; a scan moved out of scans_default into its new day keeps it.
const DAY_MS = 86_400_000
const encodeV2 = Schema.encodeSync(ScanEvidenceV2)
const encodeView = Schema.encodeSync(ScanEvidence)

/** A scanner's v2 document (not an upgraded v1 one: read back through the upgrade, it would differ). */
const scannerDocument = (mint: string, msFromNow: number): ScanEvidenceV2 => ({
  ...upgradeV1(
    Schema.decodeUnknownSync(ScanEvidence)(
      cleanScan(mint, { scannedAt: new Date(Date.now() + msFromNow).toISOString() })
    )
  ),
  provenance: { scanner: "risk-api-scanner/test", slot: 300_000_000, rpcCalls: 41, durationMs: 250, partial: [] }
})

const migrated = (layer: typeof MigrationsLive) => Effect.scoped(Layer.build(layer))

describe(`sql/0020 compressed scan documents on ${databaseKind}`, () => {
  const { it } = runtimeFor(TestDatabaseUnmigrated)

  it(
    "reads documents stored before it and after it, and keeps them when a scan moves into its day",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* migrated(migratorThrough("0019_latest_verdicts"))
        const repo = ScansRepo.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)))
        const [before, after, ahead] = [newAddress(), newAddress(), newAddress()]
        // What the release before sql/0020 wrote for a scanner's scan: the view and the document as jsonb.
        const old = scannerDocument(before, -3_600_000)
        yield* sql`
        insert into scans (mint, scanned_at, evidence, evidence_v2, evidence_hash)
        values (${before}, ${old.scannedAt}, ${JSON.stringify(encodeView(scoringView(old)))}::jsonb,
          ${JSON.stringify(encodeV2(old))}::jsonb, md5(${before}))`

        yield* migrated(MigrationsLive)

        const fresh = scannerDocument(after, 0)
        // Dated 5 days ahead: no day partition covers it yet, so it goes to scans_default.
        const later = scannerDocument(ahead, 5 * DAY_MS)
        const documents = yield* Effect.provide(
          Effect.gen(function* () {
            expect(yield* ScansRepo.record([fresh, later])).toEqual({ inserted: 2, duplicates: 0 })
            const aheadDay = new Date(Date.now() + 5 * DAY_MS).toISOString().slice(0, 10)
            yield* sql`select scans_ensure_partitions(${aheadDay}::date, ${aheadDay}::date)`
            const read = (mint: Address) => Effect.map(ScansRepo.latestDocument(mint), Option.getOrThrow)
            return { before: yield* read(before), after: yield* read(after), ahead: yield* read(ahead) }
          }),
          repo
        )
        expect(encodeV2(documents.before)).toEqual(encodeV2(old))
        expect(encodeV2(documents.after)).toEqual(encodeV2(fresh))
        expect(encodeV2(documents.ahead)).toEqual(encodeV2(later))

        const stored = yield* sql<{ mint: string; jsonb: boolean; compressed: boolean; part: string }>`
        select mint, evidence_v2 is not null as jsonb, evidence_v2_zstd is not null as compressed,
          tableoid::regclass::text as part
        from scans where mint in (${before}, ${after}, ${ahead}) order by scanned_at`
        expect(stored.map(({ part: _, ...row }) => row)).toEqual([
          { mint: before, jsonb: true, compressed: false },
          { mint: after, jsonb: false, compressed: true },
          { mint: ahead, jsonb: false, compressed: true }
        ])
        expect(stored[2]!.part).not.toBe("scans_default")
      }),
    // It builds the schema itself (migrations through 0019, then the rest), which the layer's 120 s do not cover.
    30_000
  )
})
