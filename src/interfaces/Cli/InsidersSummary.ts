import { clusterRiskOf, clusterSummaryOf, type InsidersV2 } from "../../domain/EvidenceInsiders.ts"
import type { Fact } from "../../domain/EvidenceV2.ts"

// `risk-api scan --print` prints the evidence as one JSON line on stdout; beside it, on stderr, the
// insiders block as a person reads it: the clusters, the launch buyers, the deployer's holding and its
// cluster's (dev sold %), and what the stage cost. Each fact not observed says why.

const pct = (value: number) => `${Math.round(value * 100) / 100}%`

const factLine = <A>(name: string, fact: Fact<A>, text: (value: A) => string): string =>
  fact.status === "observed" ? `${name}: ${text(fact.value)}` : `${name}: ${fact.status} (${fact.reason})`

const soldText = (sold: number | null) => (sold === null ? "held none" : `sold ${pct(sold)}`)

/** The insiders block in a few lines of text. */
export const insidersSummaryOf = (insiders: InsidersV2): ReadonlyArray<string> => {
  const clusters =
    insiders.clusters.status === "observed"
      ? insiders.clusters.value.length === 0
        ? ["clusters: none"]
        : [
            `clusters: ${insiders.clusters.value.length}`,
            ...insiders.clusters.value.map((cluster) => `  - ${clusterRiskOf(clusterSummaryOf(cluster))}`)
          ]
      : [factLine("clusters", insiders.clusters, () => "")]
  const holding = insiders.deployerHolding
  const cluster = holding.status === "observed" ? holding.value.cluster : undefined
  const { funderCalls, funderBudget, launchCalls, walletsRead, walletsCached } = insiders.provenance
  return [
    "insiders:",
    ...clusters.map((line) => `  ${line}`),
    `  ${factLine(
      "launch buyers",
      insiders.launchBuyers,
      (launch) =>
        `creation slot ${launch.creationSlot}: ${launch.sameSlotCount} bought ${pct(launch.sameSlotPct)} in it,` +
        ` ${launch.sniperCount} snipers ${pct(launch.sniperPct)} in the ${launch.windowSlots} slots after`
    )}`,
    `  ${factLine(
      "dev holding",
      holding,
      (value) => `${pct(value.initialPct)} at launch, ${pct(value.currentPct)} now, ${soldText(value.soldPct)}`
    )}`,
    ...(cluster === undefined
      ? []
      : [
          `  ${factLine(
            "dev cluster",
            cluster,
            (value) =>
              `the deployer and ${value.memberCount} launch buyer${value.memberCount === 1 ? "" : "s"} it funded: ` +
              `${pct(value.initialPct)} at launch, ${pct(value.currentPct)} now, ${soldText(value.soldPct)}`
          )}`
        ]),
    `  cost: ${(launchCalls ?? 0) + funderCalls} of ${funderBudget} calls (launch window ${launchCalls ?? 0}, ` +
      `funders ${funderCalls}: ${walletsRead} wallets read, ${walletsCached} from the funder table)`
  ]
}
