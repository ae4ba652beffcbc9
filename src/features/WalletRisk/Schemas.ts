import { Schema } from "effect"
import { Meta } from "../Accounts/Meta.ts"
import { AddressInput } from "../../domain/Address.ts"
import { Severity } from "../../domain/WalletEvidence.ts"

const Int = Schema.Number.pipe(Schema.int())
// Bounds the contract declares for what the server writes, true by construction (scores are clamped, counts
// counted): stated for clients and proxies, not re-checked on every encode (a refinement per field doubled the
// token-risk packet's encode time).
const Score = Int.annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 100 } })
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })

export const WalletRiskRequest = Schema.Struct({
  walletAddress: AddressInput("Wallet address (base58, 32 bytes).")
}).annotations({ identifier: "WalletRiskRequest", parseOptions: { onExcessProperty: "error" } })

const WalletSignal = Schema.Struct({
  label: Schema.String.annotations({
    description:
      "adverse_label, flagged_counterparty_exposure, repeat_deployer_exposure, deployed_honeypots, deployed_rugs, … (docs/wallet-model.md)."
  }),
  severity: Severity,
  points: Int,
  detail: Schema.String,
  source: Schema.String.annotations({
    description: "Where the evidence came from: a label's source, wallet_exposures or token_scans."
  })
}).annotations({ identifier: "WalletSignal" })

const Exposure = Schema.Struct({
  counterparty_address: Schema.String,
  counterparty_label: Schema.String,
  category: Schema.String,
  direction: Schema.Literal("inbound", "outbound"),
  exposure_type: Schema.String,
  hop_distance: Count,
  exposure_amount_usd: Schema.Number,
  exposure_pct: Schema.Number,
  tx_count: Count,
  last_seen_at: Schema.String
}).annotations({ identifier: "WalletExposureRecord" })

const DeployedTokenRecord = Schema.Struct({
  address: Schema.String,
  name: Schema.NullOr(Schema.String),
  symbol: Schema.NullOr(Schema.String),
  safetyScore: Score,
  isHoneypot: Schema.NullOr(Schema.Boolean),
  lpLocked: Schema.NullOr(Schema.Boolean),
  scannedAt: Schema.String
}).annotations({ identifier: "DeployedToken" })

export const SCREENING_DISCLAIMER =
  "Risk screening from cached evidence, not a legal compliance determination. recommendedAction routes operator " +
  "review and must not be used to automate final legal decisions."

export const WalletRiskPacket = Schema.Struct({
  walletAddress: Schema.String,
  riskScore: Score.annotations({ description: "0 to 100, higher is riskier." }),
  riskLevel: Schema.Literal("low", "medium", "high", "critical").annotations({
    description: "low < 25 <= medium < 50 <= high < 75 <= critical (docs/wallet-model.md)."
  }),
  confidence: Schema.Literal("high", "medium", "low").annotations({
    description: "low when little or no evidence is cached: then the answer is not a finding of low risk."
  }),
  summary: Schema.String,
  recommendedAction: Schema.Literal("allow", "monitor", "review", "escalate").annotations({
    description:
      "For routing operator review: allow (low), monitor (medium or no evidence), review (high), escalate (critical)."
  }),
  signals: Schema.Array(WalletSignal),
  exposures: Schema.Array(Exposure),
  deployedTokens: Schema.Array(DeployedTokenRecord),
  sources: Schema.Array(Schema.String),
  modelVersion: Schema.String,
  generatedAt: Schema.String,
  disclaimer: Schema.String.annotations({ description: SCREENING_DISCLAIMER })
}).annotations({ identifier: "WalletRiskPacket", description: SCREENING_DISCLAIMER })

export const WalletRiskResponse = Schema.Struct({ data: WalletRiskPacket, meta: Meta }).annotations({
  identifier: "WalletRiskResponse",
  description: "The wallet risk packet, and meta with the quota after this call."
})
