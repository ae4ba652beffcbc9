import type { ScanEvidence } from "../../../domain/ScanEvidence.ts"
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
// The deployer's cluster (itself and the launch buyers it funded) is measured the same way when observed, and
// the larger sale of the two counts: a dev that sells through its wallets shows in the cluster's figure.
interface DevSoldFigure {
  readonly sold: number
  readonly initial: number | null
  readonly cluster: boolean
}

const devSoldFigureOf = (deployer: ScanEvidence["deployer"]): DevSoldFigure | undefined => {
  const figures: Array<DevSoldFigure> = []
  const add = (sold: number | null | undefined, initial: number | null | undefined, cluster: boolean) => {
    if (sold === null || sold === undefined) return
    if (initial !== null && initial !== undefined && initial < DEV_SOLD_MIN_INITIAL_PCT) return
    figures.push({ sold, initial: initial ?? null, cluster })
  }
  add(deployer.soldPct, deployer.initialPct, false)
  add(deployer.clusterSoldPct, deployer.clusterInitialPct, true)
  return figures.reduce<DevSoldFigure | undefined>(
    (best, figure) => (best === undefined || figure.sold > best.sold ? figure : best),
    undefined
  )
}

export const devSold: Rule = ({ evidence, tokenAgeHours }) => {
  const figure = devSoldFigureOf(evidence.deployer)
  const tier = figure === undefined ? undefined : tierAtLeast(figure.sold, DEV_SOLD_PCT_TIERS)
  if (figure === undefined || tier === undefined) return null
  const { sold, initial } = figure
  const young = tokenAgeHours === null || tokenAgeHours < DEV_SOLD_YOUNG_HOURS
  const field = figure.cluster ? "deployer.clusterSoldPct" : "deployer.soldPct"
  const initialField = figure.cluster ? "deployer.clusterInitialPct" : "deployer.initialPct"
  const holding = figure.cluster ? "their launch holding" : "its launch holding"
  const of = initial === null ? holding : `${holding} of ${formatPct(initial)} of supply`
  return finding({
    rule: "dev_sold",
    facet: "deployer",
    points: tier.points,
    reason: `${field} ${formatPct(sold)} >= ${tier.threshold}%${initial === null ? "" : ` of ${initialField} ${formatPct(initial)}`}`,
    risk: figure.cluster
      ? `Deployer and the launch buyers it funded sold ${formatPct(sold)} of ${of}`
      : `Deployer sold ${formatPct(sold)} of ${of}`,
    flag: "dev_sold",
    cap: young && sold >= DEV_SOLD_CAP_PCT ? CAPS.devSold : null
  })
}
