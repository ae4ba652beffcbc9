// Every number of the scoring model lives here, so that docs/scoring-model.md and the tests can be
// checked against one source. Changing any of them changes MODEL_VERSION.

export const MODEL_VERSION = "token-risk-2.1.1"

export const FACETS = [
  "contract",
  "liquidity",
  "ownership",
  "deployer",
  "market",
  "maturity",
  "metadata",
  "aml"
] as const
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
  defaultFrozen: { name: "Default Frozen", ceiling: 25 },
  // 2.0: a live power over holders keeps a token that no issuer vouches for out of `ok` (below 60).
  mintAuthority: { name: "Mint Authority", ceiling: 59 },
  freezeAuthority: { name: "Freeze Authority", ceiling: 59 },
  // 2.1: a delegate that can take any balance is worse than a 25% fee (Severe Tax:29): a `block`.
  permanentDelegate: { name: "Permanent Delegate", ceiling: 25 },
  transferHook: { name: "Transfer Hook", ceiling: 59 },
  pausable: { name: "Pausable", ceiling: 59 },
  highTax: { name: "High Tax", ceiling: 59 },
  severeTax: { name: "Severe Tax", ceiling: 29 },
  thinEvidence: { name: "Thin Evidence", ceiling: 59 },
  impersonation: { name: "Impersonation", ceiling: 20 },
  liquidityPull: { name: "Liquidity Pull", ceiling: 20 },
  // 2.1: LP a few wallets can withdraw at will is a standing power over every holder, like a mint authority.
  pullableLiquidity: { name: "Pullable Liquidity", ceiling: 59 },
  // 2.1: a third of the supply bought in the launch window (creation slot and the slots after it) by wallets
  // other than the deployer can be dumped on every later buyer; a dev that sold most of its holding on a young token
  // has left it (the "soft rug"). Both tokens can still be sold: `warn`, not `block`.
  launchCapture: { name: "Launch Capture", ceiling: 59 },
  devSold: { name: "Dev Sold", ceiling: 59 }
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
  defaultFrozen: { points: -20, verifiedPoints: -3 },
  pausable: { points: -15, verifiedPoints: -3 }
} as const satisfies Record<string, IssuerControlPoints>

export const HONEYPOT_POINTS = -60
export const NON_TRANSFERABLE_POINTS = -40

// 2.0: buy and sell taxes are effective round-trip costs: the Token-2022 transfer fee (in percent, the higher
// of the fee in effect and a scheduled one) plus the trading tax a simulation measured. Thresholds in percent;
// the effective sell tax applies the tax caps.
export const HIGH_TAX_PCT = 10
export const SEVERE_TAX_PCT = 25
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
// The transfer fee's own rule only names it (and its authority): its cost is in the effective taxes.
export const TRANSFER_FEE_POINTS = -2

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
// 2.1: unlocked LP is pullable at will unless it is observed to be widely held: the LP_FEW_WALLETS largest
// wallets (burn, locker and pool accounts excluded) of some pool hold under this share of its LP supply.
export const LP_FEW_WALLETS = 3
export const LP_WIDELY_HELD_PCT = 50
// 2.1: concentrated liquidity (CLMM, Whirlpool, DLMM positions) in unlocked positions the deployer or its insider
// cluster owns, in percent of the token's concentrated liquidity read: half or more is the same power as unlocked LP
// in a few wallets (the same line as LP_WIDELY_HELD_PCT) and costs its points and cap; a fifth costs what an LP
// under half locked costs.
export const POSITIONS_CREATOR_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 50, points: -30 },
  { threshold: 20, points: -15 }
]
export const POSITIONS_PULLABLE_PCT = 50
// 2.1: a token lock (a locker among the top holders) that releases within this window after the scan counts
// toward concentration: its tokens are about to be free to sell.
export const TOKEN_LOCK_RELEASE_WINDOW_HOURS = 7 * 24
// Burned LP cannot be pulled: at or above this share the LP counts as locked for good.
export const LP_BURNED_LOCKED_PCT = 95
// Liquidity against market cap, in percent: a market cap far above what can be sold into.
export const LIQUIDITY_TO_MCAP_PCT = 2
export const THIN_LIQUIDITY_FOR_CAP_POINTS = -10
// A drop of at least this share from the highest liquidity of the last 24 h is a pull in progress.
export const LIQUIDITY_DROP_PCT = 50
export const LIQUIDITY_DROP_POINTS = -40

// Percent of supply. Pool, locker, burn and labelled exchange accounts are not holders: excluded from the
// holder rules and reported apart.
export const CONCENTRATION_EXCLUDED_KINDS = ["pool", "locker", "burn", "exchange"] as const
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
// 2.1: supply bought in the slots after the creation slot (snipers). Bots race every new mint in public, so a
// sniper is weaker evidence of a ring than a same-slot buy: the bundled thresholds at the insider weights.
export const SNIPER_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 30, points: -15 },
  { threshold: 10, points: -7 }
]
// 2.1: bundled + sniped supply at or above this share (the top tier of either rule) applies the Launch Capture
// cap (a ring splitting its buys across the creation slot and the next ones is caught as one).
export const LAUNCH_CAPTURE_PCT = 30

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
// 2.0: by rate. A deployer with at least this many launches whose rugs are under this share of them gets
// only the rare-rug points, and no serial cap (3 of 300 is not 3 of 3).
export const RATE_MIN_LAUNCHES = 10
export const RARE_RUG_RATE_PCT = 5
export const RARE_RUG_POINTS = -5
// 2.1: dev sold %: the share of its launch holding the deployer sold. Only a holding of at least
// DEV_SOLD_MIN_INITIAL_PCT of supply counts (dust says nothing; unknown counts). Selling most of it on a token
// younger than DEV_SOLD_YOUNG_HOURS (or of unknown age) also applies the Dev Sold cap.
export const DEV_SOLD_PCT_TIERS: ReadonlyArray<Tier> = [
  { threshold: 80, points: -20 },
  { threshold: 50, points: -10 }
]
export const DEV_SOLD_MIN_INITIAL_PCT = 1
export const DEV_SOLD_CAP_PCT = 80
export const DEV_SOLD_YOUNG_HOURS = 24

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
// A mint on a community list the operator imported: mutable metadata and a copycat label cost less.
export const LISTED_MUTABLE_METADATA_POINTS = -2
export const LISTED_COPYCAT_POINTS = -10
// Name or symbol equal or confusable to an issuer-verified token under another mint.
export const IMPERSONATION_POINTS = -30

// 2.0: a token cannot be `ok` on thin evidence: completeness below this, or no sell path observed (no sell
// simulation and no static equivalent: see docs).
export const THIN_EVIDENCE_COMPLETENESS_PCT = 60

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
