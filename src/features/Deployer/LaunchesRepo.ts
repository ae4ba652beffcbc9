import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { DeployerRecord } from "../../engines/WalletScoring/index.ts"
import { deployerRecordsStatement, launchesStatement } from "../Scans/ScanStatements.ts"
import { RUG_PEAK_LIQUIDITY_USD, RUG_REMAINING_SHARE, RUG_REMAINING_USD } from "./History.ts"

const iso = (value: Date | string): string => new Date(value).toISOString()

// Launches read from token scans (through the statements of Scans/ScansRepo.ts, which owns `scans`): every
// mint whose scans name a deployer, with its latest scan.
export class LaunchesRepo extends Effect.Service<LaunchesRepo>()("LaunchesRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return repository({
      launchesOf: (deployer: string) =>
        launchesStatement(sql, deployer).pipe(
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
          : deployerRecordsStatement(sql, deployers, {
              peakLiquidityUsd: RUG_PEAK_LIQUIDITY_USD,
              remainingShare: RUG_REMAINING_SHARE,
              remainingUsd: RUG_REMAINING_USD
            }).pipe(
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
