import { LATEST_TRENDS } from "../../src/features/Scans/ScansRepo.ts"

// The service's statements, same text (src/features/Accounts/Accounts.ts AUTHENTICATE, src/features/Accounts/KeyCache.ts
// REVALIDATE_KEYS, src/features/Accounts/Quota.ts CHARGE_CALLS and CONFIRM, src/features/Scans/ScansRepo.ts
// latestScanStatement); @effect/sql numbers the interpolations $1, $2, ... in order.
export { AUTHENTICATE } from "../../src/features/Accounts/Accounts.ts"
export { FRESH_MS, REVALIDATE_KEYS, REVALIDATE_MS } from "../../src/features/Accounts/KeyCache.ts"
export { CHARGE_CALLS, chargeCallsParameters, CONFIRM } from "../../src/features/Accounts/QuotaSql.ts"

export const LATEST_SCAN = `
    select s.id, s.mint, s.evidence, ${LATEST_TRENDS} from (
      select id, mint, evidence, scanned_at, price_usd from scans
      where mint = $1
      order by scanned_at desc, id desc
      limit 1
    ) s`
