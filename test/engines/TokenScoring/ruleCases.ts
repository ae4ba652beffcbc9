import * as Model from "../../../src/engines/TokenScoring/model.ts"
import type { Flag } from "../../../src/engines/TokenScoring/flags.ts"
import type { Tier } from "../../../src/engines/TokenScoring/model.ts"
import { type EvidencePatch, hoursAfterScan, WALLETS } from "./fixtures.ts"

// One case: evidence that should make `rule` fire with `points` (and `flag`, and `cap` when given).
export interface RuleCase {
  readonly title: string
  readonly rule: string
  readonly flag: Flag | null
  readonly points: number
  readonly cap?: string
  readonly evidence: EvidencePatch
}

// Evidence that should leave `rule` silent: just under its mildest threshold, or not observed.
export interface SilentCase {
  readonly title: string
  readonly rule: string
  readonly evidence: EvidencePatch
}

interface TieredRule {
  readonly rule: string
  readonly flag: Flag
  readonly tiers: ReadonlyArray<Tier>
  readonly patch: (value: number) => EvidencePatch
  readonly cap?: (value: number) => string | undefined
}

// "at least" tiers fire at their threshold; the mildest is silent just below it.
const atLeastCases = (
  spec: TieredRule & { readonly under: number }
): { fires: Array<RuleCase>; silent: Array<SilentCase> } => ({
  fires: spec.tiers.map((tier) => {
    const cap = spec.cap?.(tier.threshold)
    return {
      title: `${spec.rule} at ${tier.threshold}`,
      rule: spec.rule,
      flag: spec.flag,
      points: tier.points,
      evidence: spec.patch(tier.threshold),
      ...(cap === undefined ? {} : { cap })
    }
  }),
  silent: [{ title: `${spec.rule} at ${spec.under}`, rule: spec.rule, evidence: spec.patch(spec.under) }]
})

// "below" tiers fire just under their threshold (value `just(threshold)`); the mildest is silent at its threshold.
const belowCases = (spec: TieredRule & { readonly just: (threshold: number) => number }) => {
  const mildest = spec.tiers[spec.tiers.length - 1]?.threshold ?? 0
  return {
    fires: spec.tiers.map(
      (tier): RuleCase => ({
        title: `${spec.rule} at ${spec.just(tier.threshold)}`,
        rule: spec.rule,
        flag: spec.flag,
        points: tier.points,
        evidence: spec.patch(spec.just(tier.threshold))
      })
    ),
    silent: [{ title: `${spec.rule} at ${mildest}`, rule: spec.rule, evidence: spec.patch(mildest) }]
  }
}

const minusOne = (threshold: number): number => threshold - 1

const tenHolders = (pct: number): EvidencePatch => ({
  holders: {
    top: WALLETS.slice(0, 5).flatMap((address) => [
      { address, pct, kind: "holder" as const },
      { address, pct, kind: "holder" as const }
    ])
  }
})

const tiered = [
  atLeastCases({
    rule: "buy_tax",
    flag: "buy_tax",
    tiers: Model.BUY_TAX_TIERS,
    under: 0.99,
    patch: (pct) => ({ trading: { buyTax: pct } })
  }),
  atLeastCases({
    rule: "sell_tax",
    flag: "sell_tax",
    tiers: Model.SELL_TAX_TIERS,
    under: 0.99,
    patch: (pct) => ({ trading: { sellTax: pct } }),
    cap: (pct) =>
      pct >= Model.EXTREME_TAX_PCT
        ? "Extreme Tax:10"
        : pct >= Model.SEVERE_TAX_PCT
          ? "Severe Tax:29"
          : pct >= Model.HIGH_TAX_PCT
            ? "High Tax:59"
            : undefined
  }),
  belowCases({
    rule: "low_liquidity",
    flag: "low_liquidity",
    tiers: Model.LIQUIDITY_USD_TIERS,
    just: minusOne,
    patch: (usd) => ({ liquidity: { liquidityUsd: usd }, market: { liquidityUsd: usd } })
  }),
  belowCases({
    rule: "lp_partially_locked",
    flag: "lp_partially_locked",
    tiers: Model.LP_LOCKED_PCT_TIERS,
    just: minusOne,
    patch: (pct) => ({ liquidity: { lpLockPercentage: pct } })
  }),
  atLeastCases({
    rule: "top10_concentration",
    flag: "top10_concentration",
    tiers: Model.TOP10_PCT_TIERS,
    under: 29.9,
    patch: (pct) => tenHolders(pct / 10)
  }),
  atLeastCases({
    rule: "single_holder_concentration",
    flag: "single_holder_concentration",
    tiers: Model.SINGLE_HOLDER_PCT_TIERS,
    under: 19.9,
    patch: (pct) => ({ holders: { top: [{ address: WALLETS[1], pct, kind: "holder" }] } })
  }),
  atLeastCases({
    rule: "creator_holding",
    flag: "creator_holding",
    tiers: Model.CREATOR_PCT_TIERS,
    under: 4.9,
    patch: (pct) => ({ holders: { creatorPct: pct } })
  }),
  atLeastCases({
    rule: "bundled_launch",
    flag: "bundled_launch",
    tiers: Model.BUNDLED_LAUNCH_PCT_TIERS,
    under: 9.9,
    patch: (pct) => ({ holders: { bundledLaunchPct: pct } }),
    cap: (pct) => (pct >= Model.LAUNCH_CAPTURE_PCT ? "Launch Capture:59" : undefined)
  }),
  atLeastCases({
    rule: "sniped_launch",
    flag: "sniped_launch",
    tiers: Model.SNIPER_PCT_TIERS,
    under: 9.9,
    patch: (pct) => ({ holders: { bundledLaunchPct: 0, sniperPct: pct } }),
    cap: (pct) => (pct >= Model.LAUNCH_CAPTURE_PCT ? "Launch Capture:59" : undefined)
  }),
  atLeastCases({
    rule: "dev_sold",
    flag: "dev_sold",
    tiers: Model.DEV_SOLD_PCT_TIERS,
    under: 49.9,
    // The clean token is a year old: the points without the Dev Sold cap.
    patch: (pct) => ({ deployer: { initialPct: 10, soldPct: pct } })
  }),
  atLeastCases({
    rule: "insider_holding",
    flag: "insider_holding",
    tiers: Model.INSIDER_PCT_TIERS,
    under: 4.9,
    patch: (pct) => ({ holders: { top: [{ address: WALLETS[2], pct, kind: "insider" }] } })
  }),
  atLeastCases({
    rule: "deployer_prior_rugs",
    flag: "deployer_prior_rugs",
    tiers: Model.PRIOR_RUG_TIERS,
    under: 0,
    patch: (count) => ({ deployer: { priorRugs: count } }),
    cap: (count) => (count >= 2 ? "Serial Rugger:20" : undefined)
  }),
  atLeastCases({
    rule: "deployer_prior_honeypots",
    flag: "deployer_prior_honeypots",
    tiers: Model.PRIOR_HONEYPOT_TIERS,
    under: 0,
    patch: (count) => ({ deployer: { priorHoneypots: count } }),
    cap: (count) => (count >= 2 ? "Serial Honeypot Deployer:20" : undefined)
  }),
  belowCases({
    rule: "new_token",
    flag: "new_token",
    tiers: Model.TOKEN_AGE_HOURS_TIERS,
    just: (hours) => hours - 0.5,
    patch: (hours) => ({ createdAt: hoursAfterScan(-hours) })
  }),
  belowCases({
    rule: "few_holders",
    flag: "few_holders",
    tiers: Model.HOLDER_COUNT_TIERS,
    just: minusOne,
    patch: (count) => ({ holders: { holderCount: count } })
  }),
  atLeastCases({
    rule: "positions_unlocked",
    flag: "lp_unlocked",
    tiers: Model.POSITIONS_CREATOR_PCT_TIERS,
    under: 19.9,
    // A Whirlpool-only token: no LP mint, its positions read.
    patch: (pct) => ({ liquidity: { lpLocked: null, lpLockPercentage: null, positionsCreatorPct: pct } }),
    cap: (pct) => (pct >= Model.POSITIONS_PULLABLE_PCT ? "Pullable Liquidity:59" : undefined)
  }),
  atLeastCases({
    rule: "extreme_volatility",
    flag: "extreme_volatility",
    tiers: Model.VOLATILITY_PCT_TIERS,
    under: 49.9,
    patch: (pct) => ({ market: { priceChange1h: -pct } })
  }),
  belowCases({
    rule: "micro_market_cap",
    flag: "micro_market_cap",
    tiers: Model.MARKET_CAP_USD_TIERS,
    just: minusOne,
    patch: (usd) => ({ market: { marketCap: usd } })
  }),
  atLeastCases({
    rule: "flagged_holders",
    flag: "flagged_holders",
    tiers: Model.FLAGGED_HOLDER_PCT_TIERS,
    under: 0,
    patch: (pct) => ({ aml: { flaggedHolderPct: pct } })
  })
]

const issuer = Model.ISSUER_CONTROL

const single: ReadonlyArray<RuleCase> = [
  {
    title: "honeypot",
    rule: "honeypot",
    flag: "honeypot",
    points: Model.HONEYPOT_POINTS,
    cap: "Honeypot:5",
    evidence: { trading: { isHoneypot: true } }
  },
  {
    title: "non_transferable",
    rule: "non_transferable",
    flag: "non_transferable",
    points: Model.NON_TRANSFERABLE_POINTS,
    cap: "Non-Transferable:10",
    evidence: { tokenProgram: "token-2022", extensions: { nonTransferable: true } }
  },
  {
    title: "default_frozen",
    rule: "default_frozen",
    flag: "default_frozen",
    points: issuer.defaultFrozen.points,
    cap: "Default Frozen:25",
    evidence: { tokenProgram: "token-2022", extensions: { defaultAccountStateFrozen: true } }
  },
  {
    title: "mint authority",
    rule: "mint_authority_active",
    flag: "mint_authority_active",
    points: issuer.mintAuthority.points,
    cap: "Mint Authority:59",
    evidence: { mintAuthority: WALLETS[5] }
  },
  {
    title: "freeze authority",
    rule: "freeze_authority_active",
    flag: "freeze_authority_active",
    points: issuer.freezeAuthority.points,
    cap: "Freeze Authority:59",
    evidence: { freezeAuthority: WALLETS[5] }
  },
  {
    title: "permanent delegate",
    rule: "permanent_delegate",
    flag: "permanent_delegate",
    points: issuer.permanentDelegate.points,
    cap: "Permanent Delegate:25",
    evidence: { tokenProgram: "token-2022", extensions: { permanentDelegate: WALLETS[5] } }
  },
  {
    title: "transfer hook",
    rule: "transfer_hook",
    flag: "transfer_hook",
    points: issuer.transferHook.points,
    cap: "Transfer Hook:59",
    evidence: { tokenProgram: "token-2022", extensions: { transferHook: WALLETS[5] } }
  },
  {
    title: "pausable",
    rule: "pausable",
    flag: "pausable",
    points: issuer.pausable.points,
    cap: "Pausable:59",
    evidence: { tokenProgram: "token-2022", extensions: { pausableAuthority: WALLETS[5] } }
  },
  {
    title: "transfer fee (its cost is in the taxes)",
    rule: "transfer_fee",
    flag: "transfer_fee",
    points: Model.TRANSFER_FEE_POINTS,
    evidence: { tokenProgram: "token-2022", extensions: { transferFeeBps: 50 } }
  },
  {
    title: "liquidity thin for its market cap",
    rule: "thin_liquidity_for_cap",
    flag: "thin_liquidity_for_cap",
    points: Model.THIN_LIQUIDITY_FOR_CAP_POINTS,
    evidence: {
      liquidity: { liquidityUsd: 500_000 },
      market: { marketCap: (500_000 * 100) / Model.LIQUIDITY_TO_MCAP_PCT + 1 }
    }
  },
  {
    title: "liquidity halved within 24 h",
    rule: "liquidity_drop",
    flag: "liquidity_drop",
    points: Model.LIQUIDITY_DROP_POINTS,
    cap: "Liquidity Pull:20",
    evidence: { liquidity: { liquidityUsd: 500_000, peak24hUsd: 1_000_000 } }
  },
  {
    title: "impersonation of USDC",
    rule: "impersonation",
    flag: "impersonation",
    points: Model.IMPERSONATION_POINTS,
    cap: "Impersonation:20",
    evidence: { symbol: "USDC.e" }
  },
  {
    title: "thin evidence: no sell simulation and a freeze authority not ruled out",
    rule: "thin_evidence",
    flag: "thin_evidence",
    points: 0,
    cap: "Thin Evidence:59",
    evidence: { trading: { isHoneypot: null }, freezeAuthority: null, decimals: null }
  },
  {
    title: "mint close authority",
    rule: "mint_close_authority",
    flag: "mint_close_authority",
    points: issuer.mintCloseAuthority.points,
    evidence: { extensions: { mintCloseAuthority: WALLETS[5] } }
  },
  {
    title: "no pool",
    rule: "no_market",
    flag: "no_market",
    points: Model.NO_MARKET_POINTS,
    cap: "No Market:20",
    evidence: { liquidity: { poolCount: 0 } }
  },
  {
    title: "$0 liquidity",
    rule: "no_market",
    flag: "no_market",
    points: Model.NO_MARKET_POINTS,
    cap: "No Market:20",
    evidence: { liquidity: { liquidityUsd: 0 } }
  },
  {
    title: "low liquidity from market.liquidityUsd",
    rule: "low_liquidity",
    flag: "low_liquidity",
    points: -30,
    evidence: { liquidity: { liquidityUsd: null }, market: { liquidityUsd: 2_500 } }
  },
  // 2.1: LP holders not read: an unknown few can pull it (Pullable Liquidity:59).
  {
    title: "LP unlocked",
    rule: "lp_unlocked",
    flag: "lp_unlocked",
    points: Model.LP_UNLOCKED_POINTS,
    cap: "Pullable Liquidity:59",
    evidence: { liquidity: { lpLocked: false } }
  },
  {
    title: "LP lock expired",
    rule: "lp_unlocked",
    flag: "lp_unlocked",
    points: Model.LP_UNLOCKED_POINTS,
    cap: "Pullable Liquidity:59",
    evidence: { liquidity: { lpLockExpiresAt: hoursAfterScan(-2) } }
  },
  {
    title: "LP unlocked, 3 wallets hold 80% of it",
    rule: "lp_unlocked",
    flag: "lp_unlocked",
    points: Model.LP_UNLOCKED_POINTS,
    cap: "Pullable Liquidity:59",
    evidence: { liquidity: { lpLocked: false, lpTopWalletsPct: 80 } }
  },
  {
    title: "LP unlocked but widely held",
    rule: "lp_unlocked",
    flag: "lp_unlocked",
    points: Model.LP_UNLOCKED_POINTS,
    evidence: { liquidity: { lpLocked: false, lpTopWalletsPct: 12 } }
  },
  {
    title: "LP unlocked on a verified asset",
    rule: "lp_unlocked",
    flag: "lp_unlocked",
    points: Model.LP_UNLOCKED_POINTS,
    evidence: { verified: true, liquidity: { lpLocked: false } }
  },
  {
    title: "LP lock expiring",
    rule: "lp_lock_expiring",
    flag: "lp_lock_expiring",
    points: Model.LP_LOCK_EXPIRING_POINTS,
    evidence: { liquidity: { lpLockExpiresAt: hoursAfterScan(Model.LP_LOCK_EXPIRY_WINDOW_HOURS) } }
  },
  {
    title: "rugged",
    rule: "rugged",
    flag: "rugged",
    points: Model.RUGGED_POINTS,
    cap: "Rugged:5",
    evidence: { outcome: "rugged" }
  },
  {
    title: "abandoned",
    rule: "abandoned",
    flag: "abandoned",
    points: Model.ABANDONED_POINTS,
    cap: "Abandoned:25",
    evidence: { outcome: "abandoned" }
  },
  {
    title: "wash trading",
    rule: "wash_trading",
    flag: "wash_trading",
    points: Model.WASH_TRADING_POINTS,
    evidence: { market: { volume24h: 500_000 * Model.WASH_VOLUME_TO_LIQUIDITY } }
  },
  {
    title: "low organic volume",
    rule: "low_organic_volume",
    flag: "low_organic_volume",
    points: Model.LOW_ORGANIC_VOLUME_POINTS,
    evidence: { market: { tradeCount24h: 1_000, uniqueTraders24h: 1_000 / Model.TRADES_PER_TRADER } }
  },
  {
    title: "sell pressure",
    rule: "sell_pressure",
    flag: "sell_pressure",
    points: Model.SELL_PRESSURE_POINTS,
    evidence: { market: { buyCount24h: 6, sellCount24h: 14 } }
  },
  {
    title: "mutable metadata",
    rule: "mutable_metadata",
    flag: "mutable_metadata",
    points: Model.MUTABLE_METADATA_POINTS,
    evidence: { metadata: { mutable: true } }
  },
  {
    title: "blank name",
    rule: "missing_name_or_symbol",
    flag: "missing_name_or_symbol",
    points: Model.MISSING_NAME_OR_SYMBOL_POINTS,
    evidence: { name: "" }
  },
  {
    title: "blank symbol",
    rule: "missing_name_or_symbol",
    flag: "missing_name_or_symbol",
    points: Model.MISSING_NAME_OR_SYMBOL_POINTS,
    evidence: { symbol: "  " }
  },
  {
    title: "copycat",
    rule: "copycat",
    flag: "copycat",
    points: Model.COPYCAT_POINTS,
    evidence: { metadata: { copycatOf: "USDC" } }
  },
  {
    title: "copycat on a community list",
    rule: "copycat",
    flag: "copycat",
    points: Model.LISTED_COPYCAT_POINTS,
    evidence: {
      metadata: { copycatOf: "USDC" },
      listed: [{ list: "community-strict", source: "https://lists.example" }]
    }
  },
  {
    title: "the deployer's unlocked positions hold all the concentrated liquidity of a verified asset",
    rule: "positions_unlocked",
    flag: "lp_unlocked",
    points: Model.POSITIONS_CREATOR_PCT_TIERS[0]!.points,
    evidence: { verified: true, liquidity: { positionsCreatorPct: 100 } }
  },
  {
    title: "a rug in a long launch history",
    rule: "deployer_prior_rugs",
    flag: "deployer_prior_rugs",
    points: Model.RARE_RUG_POINTS,
    evidence: { deployer: { priorRugs: 3, priorLaunches: 300 } }
  },
  {
    title: "a launch split between the creation slot and the next slots: bundled + sniped >= 30",
    rule: "sniped_launch",
    flag: "sniped_launch",
    points: Model.SNIPER_PCT_TIERS[1]!.points,
    cap: "Launch Capture:59",
    evidence: { holders: { bundledLaunchPct: 15, sniperPct: 15 } }
  },
  {
    title: "a launch split between the creation slot and the next slots, bundled side",
    rule: "bundled_launch",
    flag: "bundled_launch",
    points: Model.BUNDLED_LAUNCH_PCT_TIERS[1]!.points,
    cap: "Launch Capture:59",
    evidence: { holders: { bundledLaunchPct: 15, sniperPct: 15 } }
  },
  {
    title: "dev sold 80% of its holding on a token of unknown age",
    rule: "dev_sold",
    flag: "dev_sold",
    points: Model.DEV_SOLD_PCT_TIERS[0]!.points,
    cap: "Dev Sold:59",
    evidence: { createdAt: null, deployer: { initialPct: 10, soldPct: 80 } }
  },
  {
    title: "dev sold everything, initial holding not observed",
    rule: "dev_sold",
    flag: "dev_sold",
    points: Model.DEV_SOLD_PCT_TIERS[0]!.points,
    evidence: { deployer: { initialPct: null, soldPct: 100 } }
  },
  {
    title: "deployer flagged",
    rule: "deployer_flagged",
    flag: "deployer_flagged",
    points: Model.DEPLOYER_FLAGGED_POINTS,
    evidence: { deployer: { flagged: true } }
  },
  {
    title: "one flagged holder",
    rule: "flagged_holders",
    flag: "flagged_holders",
    points: Model.FLAGGED_HOLDER_ANY_POINTS,
    evidence: { aml: { flaggedHolderCount: 1 } }
  }
]

export const FIRING_CASES: ReadonlyArray<RuleCase> = [...single, ...tiered.flatMap((cases) => cases.fires)]

const notObserved: ReadonlyArray<SilentCase> = [
  { title: "isHoneypot null", rule: "honeypot", evidence: { trading: { isHoneypot: null } } },
  { title: "taxes null", rule: "sell_tax", evidence: { trading: { sellTax: null, buyTax: null } } },
  {
    title: "liquidity null",
    rule: "low_liquidity",
    evidence: { liquidity: { liquidityUsd: null, poolCount: null }, market: { liquidityUsd: null } }
  },
  {
    title: "liquidity null, no market either",
    rule: "no_market",
    evidence: { liquidity: { liquidityUsd: null, poolCount: null }, market: { liquidityUsd: null } }
  },
  { title: "lpLocked null", rule: "lp_unlocked", evidence: { liquidity: { lpLocked: null, lpLockPercentage: null } } },
  { title: "lock percentage null", rule: "lp_partially_locked", evidence: { liquidity: { lpLockPercentage: null } } },
  { title: "holders not read", rule: "top10_concentration", evidence: { holders: { top: [] } } },
  { title: "holders not read (single)", rule: "single_holder_concentration", evidence: { holders: { top: [] } } },
  { title: "creatorPct null", rule: "creator_holding", evidence: { holders: { creatorPct: null } } },
  { title: "priorRugs null", rule: "deployer_prior_rugs", evidence: { deployer: { priorRugs: null } } },
  { title: "createdAt null", rule: "new_token", evidence: { createdAt: null } },
  { title: "sniperPct null", rule: "sniped_launch", evidence: { holders: { sniperPct: null } } },
  { title: "soldPct null", rule: "dev_sold", evidence: { deployer: { initialPct: 10, soldPct: null } } },
  {
    title: "the deployer sold all of a dust holding",
    rule: "dev_sold",
    evidence: { createdAt: null, deployer: { initialPct: Model.DEV_SOLD_MIN_INITIAL_PCT - 0.01, soldPct: 100 } }
  },
  { title: "holderCount null", rule: "few_holders", evidence: { holders: { holderCount: null } } },
  { title: "volume null", rule: "wash_trading", evidence: { market: { volume24h: null } } },
  { title: "unique traders null", rule: "low_organic_volume", evidence: { market: { uniqueTraders24h: null } } },
  {
    title: "price changes null",
    rule: "extreme_volatility",
    evidence: { market: { priceChange5m: null, priceChange1h: null, priceChange6h: null, priceChange24h: null } }
  },
  { title: "sell count null", rule: "sell_pressure", evidence: { market: { sellCount24h: null } } },
  { title: "market cap null", rule: "micro_market_cap", evidence: { market: { marketCap: null } } },
  { title: "mutable null", rule: "mutable_metadata", evidence: { metadata: { mutable: null } } },
  { title: "name and symbol null", rule: "missing_name_or_symbol", evidence: { name: null, symbol: null } },
  { title: "deployer.flagged null", rule: "deployer_flagged", evidence: { deployer: { flagged: null } } },
  {
    title: "aml null",
    rule: "flagged_holders",
    evidence: { aml: { flaggedHolderCount: null, flaggedHolderPct: null } }
  },
  { title: "outcome null", rule: "rugged", evidence: { outcome: null } },
  {
    title: "concentrated positions not read",
    rule: "positions_unlocked",
    evidence: { liquidity: { lpLocked: null, lpLockPercentage: null, positionsCreatorPct: null } }
  },
  {
    title: "a scanned impersonator: the copycat label is the impersonation fact, counted once",
    rule: "copycat",
    evidence: { symbol: "USDC", name: "USD Coin", metadata: { copycatOf: "USDC" } }
  },
  { title: "few trades", rule: "sell_pressure", evidence: { market: { buyCount24h: 1, sellCount24h: 9 } } },
  {
    title: "few trades per trader",
    rule: "low_organic_volume",
    evidence: { market: { tradeCount24h: 49, uniqueTraders24h: 1 } }
  },
  {
    title: "LP burned counts as locked",
    rule: "lp_unlocked",
    evidence: { liquidity: { lpLocked: false, lpBurnedPct: Model.LP_BURNED_LOCKED_PCT } }
  },
  { title: "no 24 h history", rule: "liquidity_drop", evidence: { liquidity: { peak24hUsd: null } } },
  {
    title: "a drop under half",
    rule: "liquidity_drop",
    evidence: { liquidity: { liquidityUsd: 500_001, peak24hUsd: 1_000_000 } }
  },
  {
    title: "the real USDC",
    rule: "impersonation",
    evidence: { mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", symbol: "USDC" }
  },
  { title: "a name that only contains USD", rule: "impersonation", evidence: { symbol: "USDX", name: "USD Extra" } },
  { title: "an issuer-verified mint", rule: "impersonation", evidence: { symbol: "USDC", verified: true } },
  { title: "sell simulated", rule: "thin_evidence", evidence: { trading: { isHoneypot: false } } },
  {
    title: "no simulation but statically sellable",
    rule: "thin_evidence",
    evidence: { trading: { isHoneypot: null }, freezeAuthority: null }
  },
  {
    title: "liquidity against market cap not observed",
    rule: "thin_liquidity_for_cap",
    evidence: { market: { marketCap: null } }
  }
]

export const SILENT_CASES: ReadonlyArray<SilentCase> = [...notObserved, ...tiered.flatMap((cases) => cases.silent)]
