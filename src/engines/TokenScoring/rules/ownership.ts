import {
  BUNDLED_LAUNCH_PCT_TIERS,
  CAPS,
  CREATOR_PCT_TIERS,
  type Facet,
  type HardCap,
  INSIDER_PCT_TIERS,
  LAUNCH_CAPTURE_PCT,
  SINGLE_HOLDER_PCT_TIERS,
  SNIPER_PCT_TIERS,
  type Tier,
  TOP10_PCT_TIERS
} from "../model.ts"
import type { Flag } from "../flags.ts"
import { formatPct, type Observed, tierAtLeast } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

interface ShareRule {
  readonly rule: string
  readonly facet: Facet
  readonly flag: Flag
  readonly tiers: ReadonlyArray<Tier>
  readonly measure: (observed: Observed) => number | null
  readonly label: string
  readonly risk: (pct: string) => string
  readonly cap?: (observed: Observed) => HardCap | null
}

// A rule on a share of supply: fires on the first tier the share reaches.
const shareRule =
  (spec: ShareRule): Rule =>
  (observed) => {
    const pct = spec.measure(observed)
    const tier = pct === null ? undefined : tierAtLeast(pct, spec.tiers)
    if (pct === null || tier === undefined) return null
    return finding({
      rule: spec.rule,
      facet: spec.facet,
      points: tier.points,
      reason: `${spec.label} ${formatPct(pct)} >= ${tier.threshold}%`,
      risk: spec.risk(formatPct(pct)),
      flag: spec.flag,
      cap: spec.cap?.(observed) ?? null
    })
  }

export const top10Concentration = shareRule({
  rule: "top10_concentration",
  facet: "ownership",
  flag: "top10_concentration",
  tiers: TOP10_PCT_TIERS,
  measure: (observed) => observed.top10Pct,
  label: "top-10 holders (pool, locker, burn, exchange excluded)",
  risk: (pct) => `Top 10 holders own ${pct} of supply`
})

export const singleHolderConcentration = shareRule({
  rule: "single_holder_concentration",
  facet: "ownership",
  flag: "single_holder_concentration",
  tiers: SINGLE_HOLDER_PCT_TIERS,
  measure: (observed) => observed.largestHolderPct,
  label: "largest holder (pool, locker, burn, exchange excluded)",
  risk: (pct) => `One wallet owns ${pct} of supply`
})

export const creatorHolding = shareRule({
  rule: "creator_holding",
  facet: "ownership",
  flag: "creator_holding",
  tiers: CREATOR_PCT_TIERS,
  measure: (observed) => observed.evidence.holders.creatorPct,
  label: "holders.creatorPct",
  risk: (pct) => `Creator still holds ${pct} of supply`
})

// 2.1: bundled and sniped supply together: a ring that splits its buys across the creation slot and the
// slots after it is one capture. Either rule that fires carries the cap.
const launchCaptureCap = ({ launchCapturePct }: Observed): HardCap | null =>
  launchCapturePct !== null && launchCapturePct >= LAUNCH_CAPTURE_PCT ? CAPS.launchCapture : null

export const bundledLaunch = shareRule({
  rule: "bundled_launch",
  facet: "ownership",
  flag: "bundled_launch",
  tiers: BUNDLED_LAUNCH_PCT_TIERS,
  measure: (observed) => observed.evidence.holders.bundledLaunchPct,
  label: "holders.bundledLaunchPct",
  risk: (pct) => `Bundled launch: linked wallets bought ${pct} of supply in the launch block`,
  cap: launchCaptureCap
})

export const snipedLaunch = shareRule({
  rule: "sniped_launch",
  facet: "ownership",
  flag: "sniped_launch",
  tiers: SNIPER_PCT_TIERS,
  measure: (observed) => observed.evidence.holders.sniperPct ?? null,
  label: "holders.sniperPct",
  risk: (pct) =>
    `Sniped launch: wallets other than the deployer bought ${pct} of supply in the slots right after launch`,
  cap: launchCaptureCap
})

export const insiderHolding = shareRule({
  rule: "insider_holding",
  facet: "ownership",
  flag: "insider_holding",
  tiers: INSIDER_PCT_TIERS,
  measure: (observed) => observed.insiderPct,
  label: "insider holders",
  risk: (pct) => `Insider wallets hold ${pct} of supply`
})
