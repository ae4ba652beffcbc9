import { Schema } from "effect"
import { Address, AddressInput } from "../../domain/Address.ts"
import { Meta } from "../Accounts/Meta.ts"

const Int = Schema.Number.pipe(Schema.int())
// Bounds the contract declares for what the server writes, true by construction (scores are clamped, counts
// counted): stated for clients and proxies, not re-checked on every encode (a refinement per field doubled the
// token-risk packet's encode time).
const Score = Int.annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 100 } })
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
const Num = Schema.NullOr(Schema.Number)
const Observed = <S extends Schema.Schema.Any>(schema: S) => Schema.NullOr(schema)

export const TokenRiskRequest = Schema.Struct({
  address: AddressInput("Mint address (base58, 32 bytes).")
}).annotations({ identifier: "TokenRiskRequest", parseOptions: { onExcessProperty: "error" } })

export const TokenRiskPacket = Schema.Struct({
  address: Address,
  name: Observed(Schema.String),
  symbol: Observed(Schema.String),
  safetyScore: Score.annotations({ description: "0 to 100, higher is safer." }),
  riskScore: Score.annotations({ description: "100 - safetyScore." }),
  riskLevel: Schema.Literal("low", "medium", "high", "critical").annotations({
    description: "low: score >= 80; medium: 60-79; high: 30-59; critical: < 30."
  }),
  recommendedAction: Schema.Literal("proceed", "monitor", "caution", "avoid").annotations({
    description: "proceed (low), monitor (medium), caution (high), avoid (critical)."
  }),
  summary: Schema.String,
  modelVersion: Schema.String,
  confidence: Schema.Struct({
    label: Schema.Literal("high", "medium", "low"),
    score: Score.annotations({ description: "0 to 100: evidence completeness, scan depth and age." })
  }),
  facets: Schema.Struct({
    contract: Score,
    liquidity: Score,
    ownership: Score,
    deployer: Score,
    market: Score,
    maturity: Score,
    metadata: Score,
    aml: Score
  }).annotations({ description: "Sub-scores 0 to 100, higher is safer." }),
  hardCaps: Schema.Array(Schema.String).annotations({
    description: "`<Cap Name>:<max score>` for each cap that applied."
  }),
  risks: Schema.Array(Schema.String),
  market: Schema.Struct({
    liquidityUsd: Num,
    marketCap: Num,
    volume24h: Num,
    priceChange5m: Num,
    priceChange1h: Num,
    priceChange6h: Num,
    priceChange24h: Num,
    buyCount24h: Observed(Count),
    sellCount24h: Observed(Count),
    tradeCount24h: Observed(Count)
  }).annotations({ description: "Market figures of the scan; null when not observed." }),
  evidence: Schema.Struct({
    isHoneypot: Observed(Schema.Boolean),
    lpLocked: Observed(Schema.Boolean),
    lpLockPercentage: Num,
    buyTax: Num.annotations({
      description: "Effective buy tax in percent: the Token-2022 transfer fee plus the simulated trading tax."
    }),
    sellTax: Num.annotations({
      description: "Effective sell tax in percent: the Token-2022 transfer fee plus the simulated trading tax."
    }),
    transferFeePct: Schema.optional(Num).annotations({
      description: "The transfer fee part of both taxes (the higher of the current and a scheduled fee)."
    }),
    top10HolderPct: Num.annotations({
      description: "Top-10 holders' share; pool, locker, burn and exchange accounts excluded."
    }),
    excludedHolderPct: Schema.optional(
      Schema.NullOr(
        Schema.Struct({
          pool: Schema.Number,
          locker: Schema.Number,
          burn: Schema.Number,
          exchange: Schema.Number
        })
      )
    ).annotations({
      description: "Supply held by accounts that are not holders, by kind, among the largest accounts."
    }),
    issuerVerified: Schema.optional(Schema.Boolean).annotations({
      description: "The mint is on the curated issuer-verified list."
    }),
    listed: Schema.optional(
      Schema.Array(
        Schema.Struct({
          list: Schema.String.pipe(Schema.maxLength(100)),
          source: Schema.String.pipe(Schema.maxLength(500))
        })
      ).pipe(Schema.maxItems(50))
    ).annotations({ description: "Community lists that include the mint (not issuer verification)." }),
    deployerAddress: Observed(Schema.String),
    scanSource: Schema.String,
    scannedAt: Schema.String
  }).annotations({ description: "Key evidence of the latest scan; null when not observed." }),
  scoreBreakdown: Schema.Array(Schema.Struct({ name: Schema.String, points: Int, reason: Schema.String })),
  sources: Schema.Array(Schema.String)
}).annotations({
  identifier: "TokenRiskPacket",
  description: "Scored evidence for a mint, from its latest cached scan."
})
export type TokenRiskPacket = typeof TokenRiskPacket.Type

export const TokenRiskResponse = Schema.Struct({ data: TokenRiskPacket, meta: Meta }).annotations({
  identifier: "TokenRiskResponse",
  description: "The token risk packet, and meta with the quota after this call."
})
