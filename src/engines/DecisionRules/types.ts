import type { Array as Arr } from "effect"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import type { RiskLevel, TokenAssessment } from "../TokenScoring/types.ts"
import type { Limitation } from "./limitations.ts"
import type { PressureLevel } from "./model.ts"
import type { RuleHit, WatchMetrics, WatchRule } from "./watchRules.ts"

export type { Limitation, PressureLevel, RuleHit, WatchMetrics }

export type PreTradeDecisionValue = "proceed" | "proceed_with_caution" | "review_required" | "reject"
export type PreTradeAction = "execute" | "execute_reduced_size" | "human_review" | "do_not_trade"
type TradeSide = "buy" | "sell"

interface TraderWallet {
  readonly riskLevel: RiskLevel
  readonly hasEvidence: boolean
}

export interface PreTradeInput {
  readonly evidence: ScanEvidence
  readonly assessment: TokenAssessment
  readonly evidenceAgeSeconds: number
  readonly side: TradeSide
  readonly sizeUsd: number | null
  readonly maxEvidenceAgeSeconds: number | null
  readonly wallet: TraderWallet | null
}

export interface PreTradeDecision {
  readonly decision: PreTradeDecisionValue
  readonly confidence: number
  readonly horizon: string
  readonly risk: RiskLevel
  readonly edge_summary: string
  readonly invalidation: ReadonlyArray<string>
  readonly recommended_action: PreTradeAction
  readonly next_check_after_seconds: number
  readonly reasons: ReadonlyArray<string>
  readonly limitations: ReadonlyArray<Limitation>
}

export type MonitorDecisionValue = "hold" | "tighten" | "reduce" | "exit" | "review_required"

export type PressureSignalName =
  | "liquidity_drain"
  | "sell_pressure"
  | "drawdown"
  | "holder_concentration"
  | "new_hard_caps"
  | "deployer_activity"

export interface PressureSignal {
  readonly signal: PressureSignalName
  readonly level: PressureLevel
  readonly value: number | null
  readonly detail: string
}

export interface MonitorInput {
  // Oldest first; the last one is the latest scan.
  readonly history: Arr.NonEmptyReadonlyArray<ScanEvidence>
  readonly assessment: TokenAssessment
  readonly entryAssessment: TokenAssessment | null
  readonly evidenceAgeSeconds: number
  readonly entryPriceUsd: number | null
  readonly entryTime: string | null
  readonly sizeUsd: number | null
  readonly watchRules: ReadonlyArray<WatchRule> | null
  readonly maxEvidenceAgeSeconds: number | null
}

export interface MonitorDecision {
  readonly decision: MonitorDecisionValue
  readonly confidence: number
  readonly risk: RiskLevel
  readonly pressure: ReadonlyArray<PressureSignal>
  readonly watch_rules_hit: ReadonlyArray<RuleHit>
  readonly next_check_after_seconds: number
  readonly summary: string
  readonly invalidation: ReadonlyArray<string>
  readonly reasons: ReadonlyArray<string>
  readonly limitations: ReadonlyArray<Limitation>
}
