import type { SqlClient, Statement } from "@effect/sql"
import { Effect } from "effect"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"

// Statements on `scans` that other features run inside their own statements or transactions (the Deployer's
// launches, the demo seed, the watch-alert evaluator): Scans owns the table, so its SQL is written here.

/** One row, `present`: whether any scan is stored. */
export const anyScanStatement = (sql: SqlClient.SqlClient) =>
  sql<{ present: boolean }>`select exists (select 1 from scans) as present`

/** A scalar subquery's body: the highest scan id stored (0 when none). */
export const newestScanIdStatement = (sql: SqlClient.SqlClient) => sql`select coalesce(max(id), 0) from scans`

/**
 * The highest scan id below which every insert is settled, taken under a brief SHARE lock of `scans` that waits
 * for the inserts in flight (ids come from a sequence, so a lower id can commit after a higher one). Fails
 * with SQLSTATE 55P03 when a long write holds the table past the 1 s lock timeout.
 */
export const settledNewestScanId = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`set local lock_timeout = '1s'`
      yield* sql`lock table scans in share mode`
      const rows = yield* sql<{ id: string }>`select coalesce(max(id), 0)::text as id from scans`
      return rows[0]!.id as string | undefined
    })
  )

/** The scan of `mint` just before (`scannedAt`, `id`), if any. */
export const previousScanStatement = (sql: SqlClient.SqlClient, mint: string, scannedAt: Date, id: string) =>
  sql<{ id: string; evidence: ScanEvidence }>`
    select id::text as id, evidence from scans
    where mint = ${mint} and (scanned_at, id) < (${scannedAt}, ${id}::bigint)
    order by scanned_at desc, id desc limit 1`

/** Scans with ids in (`from`, `upTo`] whose mint is among `mints` (a relation with a `mint` column), by id. */
export const scansAfterStatement = (
  sql: SqlClient.SqlClient,
  range: { readonly from: string; readonly upTo: string; readonly limit: number },
  mints: Statement.Fragment
) =>
  sql<{ id: string; mint: string; scanned_at: Date; evidence: ScanEvidence }>`
    select s.id::text as id, s.mint, s.scanned_at, s.evidence from scans s
    where s.id > ${range.from}::bigint and s.id <= ${range.upTo}::bigint
      and exists (select 1 from (${mints}) w where w.mint = s.mint)
    order by s.id limit ${range.limit}`

// The liquidity a scan observed, as the scoring reads it (pool figure, else market figure).
const liquidityOf = (sql: SqlClient.SqlClient) =>
  sql.literal(
    "coalesce((evidence -> 'liquidity' ->> 'liquidityUsd')::float8, (evidence -> 'market' ->> 'liquidityUsd')::float8)"
  )

/** Every mint whose scans name `deployer`: its first scan, scan count, peak liquidity and latest evidence. */
export const launchesStatement = (sql: SqlClient.SqlClient, deployer: string) =>
  sql<{ mint: string; evidence: ScanEvidence; first_seen: Date; peak: number | null; scans: string }>`
    select latest.mint, latest.evidence, history.first_seen, history.peak, history.scans
    from (select distinct mint from scans where deployer = ${deployer}) launched
    cross join lateral (
      select min(scanned_at) as first_seen, count(*) as scans,
        max(${liquidityOf(sql)}) as peak
      from scans where scans.mint = launched.mint
    ) history
    cross join lateral (
      select mint, evidence from scans where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
    ) latest
    order by history.first_seen desc, latest.mint`

/** The rule that calls a launch rugged from its liquidity (Deployer/History.ts holds the figures). */
export interface RugRule {
  readonly peakLiquidityUsd: number
  readonly remainingShare: number
  readonly remainingUsd: number
}

/** Launch, rug and honeypot counts of each deployer, from the latest scan of each of their mints. */
export const deployerRecordsStatement = (sql: SqlClient.SqlClient, deployers: ReadonlyArray<string>, rug: RugRule) =>
  sql<{ deployer: string; launches: string; rugged: string; honeypots: string }>`
    select launched.deployer, count(*) as launches,
      count(*) filter (where latest.evidence ->> 'outcome' = 'rugged' or (
        history.peak >= ${rug.peakLiquidityUsd} and latest.liquidity < history.peak * ${rug.remainingShare}
        and latest.liquidity < ${rug.remainingUsd})) as rugged,
      count(*) filter (where (latest.evidence -> 'trading' ->> 'isHoneypot')::boolean) as honeypots
    from (select distinct deployer, mint from scans where deployer = any(${deployers}::text[])) launched
    cross join lateral (
      select max(${liquidityOf(sql)}) as peak from scans where scans.mint = launched.mint
    ) history
    cross join lateral (
      select evidence, ${liquidityOf(sql)} as liquidity from scans
      where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
    ) latest
    group by launched.deployer`

/** A relation (mint): of these mints, those with a scan stored at or after `since`. */
export const scannedSinceStatement = (sql: SqlClient.SqlClient, mints: ReadonlyArray<string>, since: Date) =>
  sql`select distinct s.mint from scans s where s.mint = any(${mints}::text[]) and s.scanned_at >= ${since}`

/** A relation (mint, deployer): the deployer the latest scan of each of these mints names, where it names one. */
export const latestDeployersStatement = (sql: SqlClient.SqlClient, mints: ReadonlyArray<string>) =>
  sql`select mint, deployer from (
      select distinct on (s.mint) s.mint, s.deployer from scans s
      where s.mint = any(${mints}::text[]) order by s.mint, s.scanned_at desc, s.id desc
    ) latest where deployer is not null`
