import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { DeployerRecord } from "../../engines/WalletScoring/index.ts"
import { RUG_PEAK_LIQUIDITY_USD, RUG_REMAINING_SHARE, RUG_REMAINING_USD } from "./History.ts"

const iso = (value: Date | string): string => new Date(value).toISOString()

// Launches read from token scans: every mint whose scans name a deployer, with its latest scan.
export class LaunchesRepo extends Effect.Service<LaunchesRepo>()("LaunchesRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // The liquidity a scan observed, as the scoring reads it (pool figure, else market figure).
    const liquidityOf = sql.literal(
      "coalesce((evidence -> 'liquidity' ->> 'liquidityUsd')::float8, (evidence -> 'market' ->> 'liquidityUsd')::float8)"
    )

    return repository({
      launchesOf: (deployer: string) =>
        sql<{ mint: string; evidence: ScanEvidence; first_seen: Date; peak: number | null; scans: string }>`
          select latest.mint, latest.evidence, history.first_seen, history.peak, history.scans
          from (select distinct mint from scans where deployer = ${deployer}) launched
          cross join lateral (
            select min(scanned_at) as first_seen, count(*) as scans,
              max(${liquidityOf}) as peak
            from scans where scans.mint = launched.mint
          ) history
          cross join lateral (
            select mint, evidence from scans where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
          ) latest
          order by history.first_seen desc, latest.mint`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              mint: row.mint,
              firstSeenAt: iso(row.first_seen),
              latest: row.evidence, // stored in decoded form (see ScanCache)
              peakLiquidityUsd: row.peak === null ? null : Number(row.peak),
              scanCount: Number(row.scans)
            }))
          )
        ),
      /** Launch, rug and honeypot counts of each deployer, from the latest scan of each of their mints. */
      deployerRecords: (deployers: ReadonlyArray<string>) =>
        deployers.length === 0
          ? Effect.succeed(new Map<string, DeployerRecord>())
          : sql<{ deployer: string; launches: string; rugged: string; honeypots: string }>`
              select launched.deployer, count(*) as launches,
                count(*) filter (where latest.evidence ->> 'outcome' = 'rugged' or (
                  history.peak >= ${RUG_PEAK_LIQUIDITY_USD} and latest.liquidity < history.peak * ${RUG_REMAINING_SHARE}
                  and latest.liquidity < ${RUG_REMAINING_USD})) as rugged,
                count(*) filter (where (latest.evidence -> 'trading' ->> 'isHoneypot')::boolean) as honeypots
              from (select distinct deployer, mint from scans where deployer = any(${deployers}::text[])) launched
              cross join lateral (
                select max(${liquidityOf}) as peak from scans where scans.mint = launched.mint
              ) history
              cross join lateral (
                select evidence, ${liquidityOf} as liquidity from scans
                where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
              ) latest
              group by launched.deployer`.pipe(
              Effect.map(
                (rows) =>
                  new Map(
                    rows.map((row) => [
                      row.deployer,
                      {
                        launches: Number(row.launches),
                        rugged: Number(row.rugged),
                        honeypots: Number(row.honeypots)
                      }
                    ])
                  )
              )
            )
    })
  })
}) {}

/** No launches: for tests of routes that are not about deployers. */
export const LaunchesEmpty = Layer.succeed(
  LaunchesRepo,
  LaunchesRepo.make({
    launchesOf: () => Effect.succeed([]),
    deployerRecords: () => Effect.succeed(new Map())
  })
)
