import type { Severity } from "../../domain/WalletEvidence.ts"
import type { Tier } from "../TokenScoring/model.ts"

// Every number of the wallet model lives here, so that docs/wallet-model.md and the tests can be checked
// against one source. Changing any of them changes WALLET_MODEL_VERSION.

export const WALLET_MODEL_VERSION = "wallet-risk-1.0.0"

export const MAX_RISK_SCORE = 100

// riskScore at or above each threshold; below medium the level is low. A signal's severity is the level
// its own points would give, so the wallet's level is never below the severity of any of its signals.
export const RISK_LEVEL_THRESHOLDS = { critical: 75, high: 50, medium: 25 } as const

// adverse_label: labels on the wallet itself. info and low labels (exchange, market_maker) add no risk.
export const ADVERSE_LABEL_POINTS: Readonly<Record<Severity, number>> = {
  info: 0,
  low: 0,
  medium: 25,
  high: 50,
  critical: 100
}

// Amount weight of an exposure: max(log10(1 + usd) / log10(1 + FULL_WEIGHT_USD), pct / FULL_WEIGHT_PCT), at most 1.
export const FULL_WEIGHT_USD = 1_000_000
export const FULL_WEIGHT_PCT = 50
// Hop decay: HOP_DECAY ^ (hopDistance - 1).
export const HOP_DECAY = 0.5

// flagged_counterparty_exposure: exposure categories that are adverse in themselves, with their severity.
export const ADVERSE_EXPOSURE_CATEGORIES: Readonly<Record<string, Severity>> = {
  sanctions: "critical",
  mixer: "high",
  scam: "high",
  exploit: "high",
  fraud: "high",
  stolen_funds: "high"
}
// Base points of a flagged counterparty, by its most severe reason (info and low do not flag it).
export const COUNTERPARTY_SEVERITY_POINTS: Readonly<Record<Severity, number>> = {
  info: 0,
  low: 0,
  medium: 20,
  high: 50,
  critical: 100
}
export const FLAGGED_EXPOSURE_CAP = 90

// repeat_deployer_exposure: labels about a deployer's conduct. They are scored here, not as flagged counterparties.
export const DEPLOYER_CONDUCT_LABELS: ReadonlyArray<string> = ["rugger", "serial_rugger", "honeypot_deployer"]
export const SERIAL_OFFENCE_COUNT = 2
export const REPEAT_DEPLOYER_POINTS = { serial: 60, single: 30 } as const
// Trading with a bad deployer is grounds for review, not escalation: the cap stays below critical.
export const REPEAT_DEPLOYER_CAP = 70

// Tokens this wallet deployed, counted from their latest scans. Two bad launches together reach critical.
export const DEPLOYED_RUG_TIERS: ReadonlyArray<Tier> = [
  { threshold: 2, points: 80 },
  { threshold: 1, points: 50 }
]
export const DEPLOYED_HONEYPOT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 2, points: 80 },
  { threshold: 1, points: 50 }
]
// The risk-check `block` threshold of the token model.
export const LOW_SAFETY_SCORE = 30
export const DEPLOYED_LOW_SCORE_TIERS: ReadonlyArray<Tier> = [
  { threshold: 3, points: 30 },
  { threshold: 1, points: 10 }
]

// Confidence is high with evidence from this many sources, or with a direct high or critical finding.
export const CONFIDENT_SOURCE_COUNT = 2
