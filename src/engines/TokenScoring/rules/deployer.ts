import {
  CAPS,
  DEV_SOLD_CAP_PCT,
  DEV_SOLD_MIN_INITIAL_PCT,
  DEV_SOLD_PCT_TIERS,
  DEV_SOLD_YOUNG_HOURS,
  type HardCap,
  PRIOR_HONEYPOT_TIERS,
  PRIOR_RUG_TIERS,
  RARE_RUG_POINTS,
  RARE_RUG_RATE_PCT,
  RATE_MIN_LAUNCHES,
  SERIAL_OFFENCE_COUNT,
  type Tier
} from "../model.ts"
import type { Flag } from "../flags.ts"
import { formatPct, tierAtLeast } from "../observed.ts"
import { finding, type Rule } from "./rule.ts"

interface PriorOffences {
  readonly rule: string
  readonly flag: Flag
  readonly field: "priorRugs" | "priorHoneypots"
  readonly tiers: ReadonlyArray<Tier>
  readonly serialCap: HardCap
  readonly offence: string
}

const priorOffencesRule =
  (spec: PriorOffences): Rule =>
  ({ evidence }) => {
    const count = evidence.deployer[spec.field]
    const tier = count === null ? undefined : tierAtLeast(count, spec.tiers)
    if (count === null || tier === undefined) return null
    // 2.0: by rate. A rare offence in a long launch history costs little and caps nothing.
    const launches = evidence.deployer.priorLaunches
    if (launches !== null && launches >= RATE_MIN_LAUNCHES && (count / launches) * 100 < RARE_RUG_RATE_PCT) {
      return finding({
        rule: spec.rule,
        facet: "deployer",
        points: RARE_RUG_POINTS,
        reason: `deployer.${spec.field} ${count} of ${launches} launches (< ${RARE_RUG_RATE_PCT}%)`,
        risk: `Deployer launched ${count} earlier token${count === 1 ? "" : "s"} that ${spec.offence}, out of ${launches}`,
        flag: spec.flag
      })
    }
    return finding({
      rule: spec.rule,
      facet: "deployer",
      points: tier.points,
      reason: `deployer.${spec.field} ${count} >= ${tier.threshold}`,
      risk: `Deployer launched ${count} earlier token${count === 1 ? "" : "s"} that ${spec.offence}`,
      flag: spec.flag,
      cap: count >= SERIAL_OFFENCE_COUNT ? spec.serialCap : null
    })
  }

export const deployerPriorRugs = priorOffencesRule({
  rule: "deployer_prior_rugs",
  flag: "deployer_prior_rugs",
  field: "priorRugs",
  tiers: PRIOR_RUG_TIERS,
  serialCap: CAPS.serialRugger,
  offence: "rugged"
})

export const deployerPriorHoneypots = priorOffencesRule({
  rule: "deployer_prior_honeypots",
  flag: "deployer_prior_honeypots",
  field: "priorHoneypots",
  tiers: PRIOR_HONEYPOT_TIERS,
  serialCap: CAPS.serialHoneypotDeployer,
  offence: "turned out to be honeypots"
})

// 2.1: dev sold %. A deployer that sold most of a holding of some size has left the token; on a young token
// (or one of unknown age) that is the soft rug, and caps it out of `ok`. An unknown initial holding counts.
export const devSold: Rule = ({ evidence, tokenAgeHours }) => {
  const sold = evidence.deployer.soldPct ?? null
  const initial = evidence.deployer.initialPct ?? null
  const tier = sold === null ? undefined : tierAtLeast(sold, DEV_SOLD_PCT_TIERS)
  if (sold === null || tier === undefined) return null
  if (initial !== null && initial < DEV_SOLD_MIN_INITIAL_PCT) return null
  const young = tokenAgeHours === null || tokenAgeHours < DEV_SOLD_YOUNG_HOURS
  const of = initial === null ? "its launch holding" : `its launch holding of ${formatPct(initial)} of supply`
  return finding({
    rule: "dev_sold",
    facet: "deployer",
    points: tier.points,
    reason: `deployer.soldPct ${formatPct(sold)} >= ${tier.threshold}%${initial === null ? "" : ` of deployer.initialPct ${formatPct(initial)}`}`,
    risk: `Deployer sold ${formatPct(sold)} of ${of}`,
    flag: "dev_sold",
    cap: young && sold >= DEV_SOLD_CAP_PCT ? CAPS.devSold : null
  })
}
