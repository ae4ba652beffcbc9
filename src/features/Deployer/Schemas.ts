import { Schema } from "effect"
import { Meta } from "../Accounts/Meta.ts"

const Int = Schema.Number.pipe(Schema.int())
// Bounds the contract declares for what the server writes, true by construction (scores are clamped, counts
// counted): stated for clients and proxies, not re-checked on every encode (a refinement per field doubled the
// token-risk packet's encode time).
const Score = Int.annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 100 } })
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
const Num = Schema.NullOr(Schema.Number)

export const HistoryQuery = Schema.Struct({
  // On the wire: decimal digits only, read as an integer from 1 to 200 (documented as an integer parameter).
  limit: Schema.optionalWith(
    Schema.String.pipe(
      Schema.pattern(/^[0-9]{1,3}$/),
      Schema.compose(Schema.NumberFromString),
      Schema.int(),
      Schema.between(1, 200)
    ).annotations({ jsonSchema: { type: "integer", format: "int32", minimum: 1, maximum: 200, default: 50 } }),
    { default: () => 50 }
  ).annotations({ description: "Launches per page, 1 to 200 (default 50)." }),
  cursor: Schema.optional(
    Schema.String.pipe(Schema.maxLength(200)).annotations({ jsonSchema: { pattern: "^[A-Za-z0-9_-]*$" } })
  ).annotations({
    description: "`page.nextCursor` of the previous page."
  })
}).annotations({ parseOptions: { onExcessProperty: "error" } })

export const LaunchRecord = Schema.Struct({
  mint: Schema.String,
  name: Schema.NullOr(Schema.String),
  symbol: Schema.NullOr(Schema.String),
  firstSeenAt: Schema.String.annotations({ description: "Time of the first scan of the mint." }),
  lastScannedAt: Schema.String,
  scanCount: Count,
  safetyScore: Score.annotations({ description: "From the latest scan." }),
  verdict: Schema.Literal("block", "warn", "ok"),
  isHoneypot: Schema.NullOr(Schema.Boolean),
  lpLocked: Schema.NullOr(Schema.Boolean),
  liquidityUsd: Num,
  peakLiquidityUsd: Num.annotations({ description: "Highest liquidity in any scan of the mint." }),
  outcome: Schema.Literal("active", "rugged", "abandoned", "unknown").annotations({
    description:
      "First rule that matches: the scanner reported rugged or abandoned; rugged when liquidity peaked at >= $10,000 " +
      "and is now below 10% of the peak and below $1,000; abandoned when 24 h volume < $100 and the token was older " +
      "than 7 days at its latest scan; unknown when its latest scan is older than 30 days; otherwise active."
  }),
  outcomeReason: Schema.String
}).annotations({ identifier: "LaunchRecord" })

const DeployerSummary = Schema.Struct({
  launchCount: Count,
  ruggedCount: Count,
  honeypotCount: Count.annotations({ description: "Launches whose latest scan is a honeypot." }),
  abandonedCount: Count,
  ruggedRate: Schema.Number,
  honeypotRate: Schema.Number,
  medianSafetyScore: Schema.NullOr(Score),
  firstLaunchAt: Schema.NullOr(Schema.String),
  lastLaunchAt: Schema.NullOr(Schema.String),
  launchesLast24h: Count,
  launchesLast7d: Count,
  launchesLast30d: Count,
  riskLevel: Schema.Literal("none", "low", "medium", "high", "critical").annotations({
    description:
      "First rule that matches: none without launches; critical with >= 2 rugged or honeypot launches; high with 1, " +
      "or a median safety score < 30; medium with a median < 60, >= 5 launches in 24 h, or most launches abandoned; " +
      "otherwise low."
  }),
  riskReason: Schema.String
}).annotations({ identifier: "DeployerSummary", description: "Over all launches, not only this page." })

export const DeployerHistoryResponse = Schema.Struct({
  data: Schema.Struct({
    deployer: Schema.String,
    summary: DeployerSummary,
    launches: Schema.Array(LaunchRecord).annotations({ description: "Newest first." }),
    page: Schema.Struct({
      limit: Count,
      nextCursor: Schema.NullOr(Schema.String).annotations({
        description: "Pass as `cursor` for the next page; null on the last."
      })
    })
  }),
  meta: Meta
}).annotations({ identifier: "DeployerHistoryResponse" })
