import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import type { Client } from "pg"
import { assessToken } from "../../src/engines/TokenScoring/index.ts"
import { LATEST_COLUMNS, ScansRepo } from "../../src/features/Scans/ScansRepo.ts"
import { storedVerdictOf } from "../../src/features/Scans/ScanVerdict.ts"
import latestScansMigration from "../../sql/0014_latest_scans.sql" with { type: "text" }

// The service's statements, same text (src/features/Accounts/Accounts.ts AUTHENTICATE, src/features/Accounts/KeyCache.ts
// REVALIDATE_KEYS, src/features/Accounts/Quota.ts CHARGE_CALLS and CONFIRM, src/features/Scans/ScansRepo.ts
// latestScanStatement); @effect/sql numbers the interpolations $1, $2, ... in order.
export { AUTHENTICATE } from "../../src/features/Accounts/Accounts.ts"
export { FRESH_MS, REVALIDATE_KEYS, REVALIDATE_MS } from "../../src/features/Accounts/KeyCache.ts"
export { CHARGE_CALLS, chargeCallsParameters, CONFIRM } from "../../src/features/Accounts/QuotaSql.ts"

export const LATEST_SCAN = `select ${LATEST_COLUMNS} from latest_scans where mint = $1`

// The cold part of a batch (ScansRepo latestVerdictsStatement, the read of the cold mints the cache will not
// keep, and of those it will keep, $3): one probe for many mints, $2 the scoring model's version.
export { LATEST_VERDICTS } from "../../src/features/Scans/ScansRepo.ts"
export { MODEL_VERSION } from "../../src/engines/TokenScoring/index.ts"

/**
 * latest_scans for a history written in bulk (the bench's INSERT ... SELECT bypasses ScansRepo.record): the
 * backfill of sql/0014, as the migration runs it on an existing history. Returns its seconds.
 */
export const fillLatestScans = async (client: Client): Promise<number> => {
  const started = performance.now()
  await client.query("begin")
  await client.query("delete from latest_scans")
  await client.query(latestScansMigration.slice(latestScansMigration.indexOf("lock table scans")))
  await client.query("commit")
  return (performance.now() - started) / 1000
}

/**
 * The assessments and verdicts (sql/0019) the writer stores with each latest row (ScansRepo.record) for rows
 * the backfill left without one: each mint read as the service reads it, scored, stored, 1,000 at a time.
 * Returns its seconds.
 */
export const fillAssessments = async (client: Client, url: string): Promise<number> => {
  const started = performance.now()
  const mints = (
    await client.query<{ mint: string }>("select mint from latest_scans where assessment is null")
  ).rows.map((row) => row.mint)
  await Effect.runPromise(
    Effect.gen(function* () {
      const repo = yield* ScansRepo
      for (let i = 0; i < mints.length; i += 1_000) {
        const found = yield* repo.latestMany(mints.slice(i, i + 1_000) as never)
        const rows = [...found].map(([mint, scan]) => {
          const assessment = assessToken(scan.evidence)
          return { mint, id: scan.id, assessment, verdict: storedVerdictOf(scan.evidence, assessment) }
        })
        yield* Effect.promise(() =>
          client.query(
            `update latest_scans l set assessment = t.assessment::json, verdict = t.verdict::json
             from unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) as t(mint, scan_id, assessment, verdict)
             where l.mint = t.mint and l.scan_id = t.scan_id`,
            [
              rows.map((row) => row.mint),
              rows.map((row) => row.id),
              rows.map((row) => JSON.stringify(row.assessment)),
              rows.map((row) => JSON.stringify(row.verdict))
            ]
          )
        )
      }
    }).pipe(
      Effect.provide(
        ScansRepo.Default.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
      ),
      Effect.orDie
    )
  )
  return (performance.now() - started) / 1000
}
