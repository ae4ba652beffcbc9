// Every number of the scoring model lives here, so that docs/scoring-model.md and the tests can be
// checked against one source. Changing any of them changes MODEL_VERSION.

export const MODEL_VERSION = "token-risk-1.0.0"

export const FACETS = ["contract", "liquidity", "ownership", "deployer", "market", "maturity", "metadata", "aml"] as const
export type Facet = (typeof FACETS)[number]

// A facet starts at 100 and loses twice the points of its own rules, so a single strong finding shows in it.
export const FACET_PENALTY_MULTIPLIER = 2

// A tier fires on the first entry whose threshold the value meets; entries run from most to least severe.
export interface Tier {
  readonly threshold: number
  readonly points: number
}

export interface HardCap {
  readonly name: string
  readonly ceiling: number
}

export const CAPS = {
  honeypot: { name: "Honeypot", ceiling: 5 },
  rugged: { name: "Rugged", ceiling: 5 },
  nonTransferable: { name: "Non-Transferable", ceiling: 10 },
  extremeTax: { name: "Extreme Tax", ceiling: 10 },
  serialRugger: { name: "Serial Rugger", ceiling: 20 },
  serialHoneypotDeployer: { name: "Serial Honeypot Deployer", ceiling: 20 },
  noMarket: { name: "No Market", ceiling: 20 },
  abandoned: { name: "Abandoned", ceiling: 25 },
  defaultFrozen: { name: "Default Frozen", ceiling: 25 }
} as const satisfies Record<string, HardCap>

// Powers an issuer keeps over holders. A verified issuer (e.g. a regulated stablecoin) keeps them by design,
// so they cost it only the reduced points and raise no flag.
export interface IssuerControlPoints {
  readonly points: number
  readonly verifiedPoints: number
}

export const ISSUER_CONTROL = {
  mintAuthority: { points: -20, verifiedPoints: -3 },
  freezeAuthority: { points: -20, verifiedPoints: -3 },
  permanentDelegate: { points: -30, verifiedPoints: -5 },
  transferHook: { points: -10, verifiedPoints: -3 },
  mintCloseAuthority: { points: -5, verifiedPoints: -1 },
  defaultFrozen: { points: -20, verifiedPoints: -3 }
} as const satisfies Record<string, IssuerControlPoints>

export const HONEYPOT_POINTS = -60
export const NON_TRANSFERABLE_POINTS = -40

// Thresholds in percent (taxes) and basis points (transfer fee). The top tier also applies the Extreme Tax cap.
export const EXTREME_TAX_PCT = 50
export const SELL_TAX_TIERS: ReadonlyArray<Tier> = [
  { threshold: 50, points: -45 },
  { threshold: 25, points: -35 },
  { threshold: 10, points: -20 },
  { threshold: 5, points: -12 },
  { threshold: 1, points: -5 }
]
export const BUY_TAX_TIERS: ReadonlyArray<Tier> = [
  { threshold: 25, points: -25 },
  { threshold: 10, points: -15 },
  { threshold: 5, points: -8 },
  { threshold: 1, points: -3 }
]
export const TRANSFER_FEE_BPS_TIERS: ReadonlyArray<Tier> = [
  { threshold: 5_000, points: -45 },
  { threshold: 1_000, points: -30 },
  { threshold: 500, points: -20 },
  { threshold: 100, points: -10 },
  { threshold: 1, points: -5 }
]

// Liquidity in USD: liquidity.liquidityUsd, else market.liquidityUsd. Below-tiers run from the lowest threshold up.
export const NO_MARKET_POINTS = -40
export const LIQUIDITY_USD_TIERS: ReadonlyArray<Tier> = [
  { threshold: 3_000, points: -30 },
  { threshold: 10_000, points: -15 }
]
// LP unlocked must outweigh every lock finding together (partial lock + expiring), or unlocking could raise a score.
export const LP_UNLOCKED_POINTS = -30
export const LP_LOCKED_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 50, points: -15 },
  { threshold: 90, points: -6 }
]
export const LP_LOCK_EXPIRY_WINDOW_HOURS = 7 * 24
export const LP_LOCK_EXPIRING_POINTS = -12

// Percent of supply. Pool, locker and burn accounts are excluded from the holder rules.
export const CONCENTRATION_EXCLUDED_KINDS = ["pool", "locker", "burn"] as const
export const TOP10_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 80, points: -30 },
  { threshold: 50, points: -20 },
  { threshold: 30, points: -10 }
]
export const SINGLE_HOLDER_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 50, points: -20 },
  { threshold: 20, points: -10 }
]
export const CREATOR_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 20, points: -15 },
  { threshold: 5, points: -7 }
]
export const BUNDLED_LAUNCH_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 30, points: -20 },
  { threshold: 10, points: -10 }
]
export const INSIDER_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 20, points: -15 },
  { threshold: 5, points: -7 }
]

// Counts of earlier tokens by the same deployer. The top tier also applies the serial cap.
export const PRIOR_RUG_TIERS: ReadonlyArray<Tier> = [
  { threshold: 2, points: -35 },
  { threshold: 1, points: -25 }
]
export const PRIOR_HONEYPOT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 2, points: -30 },
  { threshold: 1, points: -20 }
]
export const SERIAL_OFFENCE_COUNT = 2

export const TOKEN_AGE_HOURS_TIERS: ReadonlyArray<Tier> = [
  { threshold: 1, points: -20 },
  { threshold: 24, points: -12 },
  { threshold: 7 * 24, points: -5 }
]
export const HOLDER_COUNT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 50, points: -10 },
  { threshold: 200, points: -4 }
]

export const WASH_VOLUME_TO_LIQUIDITY = 50
export const WASH_TRADING_POINTS = -15
export const TRADES_PER_TRADER = 25
export const TRADES_PER_TRADER_MIN_TRADES = 50
export const LOW_ORGANIC_VOLUME_POINTS = -10
// Largest absolute price change, in percent, across the 5m, 1h, 6h and 24h windows.
export const VOLATILITY_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 100, points: -12 },
  { threshold: 50, points: -6 }
]
export const SELL_PRESSURE_SHARE = 0.7
export const SELL_PRESSURE_MIN_TRADES = 20
export const SELL_PRESSURE_POINTS = -8
export const MARKET_CAP_USD_TIERS: ReadonlyArray<Tier> = [
  { threshold: 10_000, points: -10 },
  { threshold: 50_000, points: -5 }
]

export const MUTABLE_METADATA_POINTS = -5
export const MISSING_NAME_OR_SYMBOL_POINTS = -10
export const COPYCAT_POINTS = -25

export const DEPLOYER_FLAGGED_POINTS = -20
export const FLAGGED_HOLDER_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 20, points: -25 },
  { threshold: 5, points: -15 }
]
export const FLAGGED_HOLDER_ANY_POINTS = -8

export const RUGGED_POINTS = -80
export const ABANDONED_POINTS = -30

// Safety score at or above each threshold; below the last one the level is critical.
export const RISK_LEVEL_THRESHOLDS = { low: 80, medium: 60, high: 30 } as const
