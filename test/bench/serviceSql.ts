import type { Client } from "pg"
import { LATEST_COLUMNS } from "../../src/features/Scans/ScansRepo.ts"
import latestScansMigration from "../../sql/0014_latest_scans.sql" with { type: "text" }

// The service's statements, same text (src/features/Accounts/Accounts.ts AUTHENTICATE, src/features/Accounts/KeyCache.ts
// REVALIDATE_KEYS, src/features/Accounts/Quota.ts CHARGE_CALLS and CONFIRM, src/features/Scans/ScansRepo.ts
// latestScanStatement); @effect/sql numbers the interpolations $1, $2, ... in order.
export { AUTHENTICATE } from "../../src/features/Accounts/Accounts.ts"
export { FRESH_MS, REVALIDATE_KEYS, REVALIDATE_MS } from "../../src/features/Accounts/KeyCache.ts"
export { CHARGE_CALLS, chargeCallsParameters, CONFIRM } from "../../src/features/Accounts/QuotaSql.ts"

export const LATEST_SCAN = `select ${LATEST_COLUMNS} from latest_scans where mint = $1`

/** The cold part of a batch (ScansRepo latestScansStatement): one probe for many mints. */
export const LATEST_SCANS = `select ${LATEST_COLUMNS} from latest_scans where mint = any($1::text[])`

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
