import { Schema } from "effect"
import { WatchRuleSchema } from "../../engines/DecisionRules/index.ts"
import { WatchIdInput } from "../Watches/Schemas.ts"
import { Meta } from "../Accounts/Meta.ts"
import { AddressInput } from "../../domain/Address.ts"

const Int = Schema.Number.pipe(Schema.int())
// Bounds the contract declares for what the server writes, true by construction (scores are clamped, counts
// counted): stated for clients and proxies, not re-checked on every encode (a refinement per field doubled the
// token-risk packet's encode time).
const Score = Int.annotations({ jsonSchema: { type: "integer", minimum: 0, maximum: 100 } })
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
const PositiveUsd = Schema.Number.pipe(Schema.positive(), Schema.finite(), Schema.lessThanOrEqualTo(1e12))
const MaxAge = Int.pipe(Schema.between(1, 7 * 86_400)).annotations({
  description: "Oldest evidence the caller accepts, seconds (default 3600); older evidence gives review_required."
})
const Risk = Schema.Literal("low", "medium", "high", "critical")
const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Limitations = Schema.Array(Schema.String).annotations({
  description:
    "cache_only_v0, not_financial_advice, does_not_execute_trades, top_trader_flow_not_live_yet, " +
    "wallet_profile_may_be_missing (no wallet evidence was used), stale_evidence, single_scan_history, entry_price_missing."
})

const DecisionToken = Schema.Struct({
  mint: Schema.String,
  symbol: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  safety_score: Score,
  liquidity_usd: Schema.NullOr(Schema.Number),
  volume_24h: Schema.NullOr(Schema.Number),
  market_cap: Schema.NullOr(Schema.Number),
  scanned_at: Schema.String
}).annotations({ identifier: "DecisionToken" })

export const PreTradeRequest = Schema.Struct({
  mint: AddressInput("Mint address (base58, 32 bytes)."),
  side: Schema.Literal("buy", "sell"),
  sizeUsd: Schema.optional(PositiveUsd).annotations({
    description: "Trade size in USD; judged against pool liquidity."
  }),
  wallet: Schema.optional(AddressInput("Trader wallet to screen (base58, 32 bytes).")),
  maxEvidenceAgeSeconds: Schema.optional(MaxAge)
}).annotations({ identifier: "PreTradeRequest", ...strict })

const PreTradePacket = Schema.Struct({
  decision: Schema.Literal("proceed", "proceed_with_caution", "review_required", "reject").annotations({
    description: "See docs/decision-engine.md for the rules, first match wins."
  }),
  confidence: Schema.Number.pipe(Schema.between(0, 1)),
  horizon: Schema.String,
  risk: Risk,
  edge_summary: Schema.String.annotations({
    description: "Quotes score, risk level, liquidity, 24 h volume, deployer evidence and hard caps."
  }),
  invalidation: Schema.Array(Schema.String).annotations({ description: "Conditions that would flip the decision." }),
  recommended_action: Schema.Literal("execute", "execute_reduced_size", "human_review", "do_not_trade").annotations({
    description:
      "execute (proceed), execute_reduced_size (proceed_with_caution), human_review (review_required), do_not_trade (reject)."
  }),
  next_check_after_seconds: Count,
  evidence_age_seconds: Count,
  cache_status: Schema.Literal("latest_cached_scan"),
  reasons: Schema.Array(Schema.String).annotations({ description: "The rules that decided it." }),
  sources: Schema.Array(Schema.String),
  limitations: Limitations,
  token: DecisionToken
}).annotations({ identifier: "PreTradeDecision" })

const DecisionMeta = Schema.extend(
  Meta,
  Schema.Struct({
    agentRequestId: Schema.String.annotations({ description: "Second identifier of this decision, for agent logs." }),
    modelVersion: Schema.String.annotations({ description: "Version of the decision rules." })
  })
).annotations({ identifier: "DecisionMeta" })

export const PreTradeResponse = Schema.Struct({ data: PreTradePacket, meta: DecisionMeta }).annotations({
  identifier: "PreTradeResponse",
  description: "Cache-only decision from the latest token packet; no live scan, no execution."
})

export const MonitorRequest = Schema.Struct({
  mint: AddressInput("Mint address of the position."),
  entryPriceUsd: Schema.optional(PositiveUsd),
  entryTime: Schema.optional(
    Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time", maxLength: 35 } })
  ).annotations({
    description:
      "ISO 8601 date-time (e.g. 2026-11-23T12:00:00Z), not in the future; pressure is measured from the scan at entry."
  }),
  sizeUsd: Schema.optional(PositiveUsd),
  watchId: Schema.optional(WatchIdInput("watchId")).annotations({
    description: "A watch of this account for the same mint; its rules are evaluated. Not a uuid: 400 invalid_request."
  }),
  maxEvidenceAgeSeconds: Schema.optional(MaxAge)
}).annotations({ identifier: "MonitorPositionRequest", ...strict })

const MonitorPacket = Schema.Struct({
  decision: Schema.Literal("hold", "tighten", "reduce", "exit", "review_required"),
  confidence: Schema.Number.pipe(Schema.between(0, 1)),
  risk: Risk,
  summary: Schema.String,
  pressure: Schema.Array(
    Schema.Struct({
      signal: Schema.Literal(
        "liquidity_drain",
        "sell_pressure",
        "drawdown",
        "holder_concentration",
        "new_hard_caps",
        "deployer_activity"
      ),
      level: Schema.Literal("none", "low", "medium", "high"),
      value: Schema.NullOr(Schema.Number),
      detail: Schema.String
    })
  ).annotations({ description: "All six pressure signals from the scan history since entry." }),
  watch_rules_hit: Schema.Array(
    Schema.Struct({
      rule: WatchRuleSchema,
      value: Schema.NullOr(Schema.Number),
      hit: Schema.Boolean,
      detail: Schema.String
    })
  ).annotations({ description: "Each rule of the watch, evaluated on the latest scan; empty without a watch." }),
  next_check_after_seconds: Count.annotations({ description: "Shortens as pressure rises." }),
  evidence_age_seconds: Count,
  scans_considered: Count,
  invalidation: Schema.Array(Schema.String),
  reasons: Schema.Array(Schema.String),
  cache_status: Schema.Literal("latest_cached_scan"),
  sources: Schema.Array(Schema.String),
  limitations: Limitations,
  token: DecisionToken
}).annotations({ identifier: "MonitorPositionDecision" })

export const MonitorResponse = Schema.Struct({ data: MonitorPacket, meta: DecisionMeta }).annotations({
  identifier: "MonitorPositionResponse"
})
