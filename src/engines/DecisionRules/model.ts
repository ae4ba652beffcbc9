import type { Flag } from "../TokenScoring/flags.ts"
import type { RiskLevel } from "../TokenScoring/types.ts"

// Every number of the decision engine lives here, so that docs/decision-engine.md and the tests can be
// checked against one source. Changing any of them changes DECISION_MODEL_VERSION.

export const DECISION_MODEL_VERSION = "decision-1.1.0"

// Lowest safety score of each risk-check verdict (src/domain/Verdict.ts): below `warn` is `block`.
export const VERDICT_FLOOR = { warn: 30, ok: 60 } as const

// The caller's maximum evidence age when it gives none: the `cold` boundary of risk-check freshness.
export const DEFAULT_MAX_EVIDENCE_AGE_SECONDS = 3600

// --- pre-trade ---

// Size against pool liquidity. In a constant-product pool half of the liquidity sits on each side, so a
// trade of s USD pays an average price impact of about 2 × s / liquidity.
export const SIZE_CAUTION_SHARE = 0.02
export const SIZE_REVIEW_SHARE = 0.1

// A partial or metadata-only scan can only have missed findings, which lower a score: a score this close
// above a verdict threshold (30 or 60) may really be below it.
export const BORDERLINE_MARGIN = 10

// A sell cannot execute on these: the simulated sell failed, the token cannot move, or there is no pool.
export const SELL_BLOCKING_FLAGS: ReadonlyArray<Flag> = ["honeypot", "non_transferable", "no_market"]

// Flags that, on a token the verdict lets through, still cost a trader money beyond market risk.
export const CAUTION_FLAGS: ReadonlyArray<Flag> = [
  "default_frozen",
  "mint_authority_active",
  "freeze_authority_active",
  "permanent_delegate",
  "transfer_hook",
  "transfer_fee",
  "buy_tax",
  "sell_tax",
  "low_liquidity",
  "lp_unlocked",
  "lp_lock_expiring",
  "single_holder_concentration",
  "bundled_launch",
  "sniped_launch",
  "insider_holding",
  "deployer_prior_rugs",
  "deployer_prior_honeypots",
  "dev_sold",
  "wash_trading",
  "extreme_volatility",
  "sell_pressure",
  "copycat",
  "deployer_flagged",
  "flagged_holders"
]

// Re-check sooner the riskier the answer; halved (not below the minimum) on a fast-moving price.
export const PRE_TRADE_NEXT_CHECK_SECONDS: Readonly<Record<RiskLevel, number>> = {
  low: 900,
  medium: 600,
  high: 300,
  critical: 120
}
export const FAST_MOVE_PCT = 20
export const MIN_NEXT_CHECK_SECONDS = 60

// --- monitor ---

export type PressureLevel = "none" | "low" | "medium" | "high"
export const PRESSURE_LEVELS: ReadonlyArray<PressureLevel> = ["none", "low", "medium", "high"]

// A signal reaches a level when its value is at or above the threshold; entries run from most severe.
export interface PressureTier {
  readonly threshold: number
  readonly level: Exclude<PressureLevel, "none">
}

const tiers = (high: number, medium: number, low: number): ReadonlyArray<PressureTier> => [
  { threshold: high, level: "high" },
  { threshold: medium, level: "medium" },
  { threshold: low, level: "low" }
]

// Percent below the highest liquidity in the history.
export const LIQUIDITY_DRAIN_PCT_TIERS = tiers(50, 25, 10)
// sells / (buys + sells) over 24 h, with at least SELL_PRESSURE_MIN_TRADES trades.
export const SELL_SHARE_TIERS = tiers(0.7, 0.6, 0.55)
export const SELL_PRESSURE_MIN_TRADES = 20
// Percent below the entry price (or the highest price in the history).
export const DRAWDOWN_PCT_TIERS = tiers(50, 25, 10)
// Percentage points gained by the top-10 share (pool, locker, burn excluded) since the first scan.
export const CONCENTRATION_GAIN_PP_TIERS = tiers(20, 10, 5)
// 1.1: percentage points gained by dev sold % (the share of its launch holding the deployer sold) since the
// first scan (unknown then counts 0): a deployer selling into the position's holders.
export const DEV_SOLD_GAIN_PP_TIERS = tiers(50, 20, 5)

// Seconds to the next check by the highest pressure level, and by the decision; the shorter one wins.
export const MONITOR_NEXT_CHECK_BY_PRESSURE: Readonly<Record<PressureLevel, number>> = {
  none: 900,
  low: 600,
  medium: 300,
  high: 60
}
export const MONITOR_NEXT_CHECK_BY_DECISION = {
  hold: 900,
  tighten: 300,
  reduce: 120,
  exit: 60,
  review_required: 60
} as const

// Pressure compares scans: with a single scan it rests on one observation, so confidence is scaled down.
export const SINGLE_SCAN_CONFIDENCE_FACTOR = 0.8
