import { Schema } from "effect"
import { Address } from "./Address.ts"
import { Count, Fact, Percent } from "./EvidenceFacts.ts"

// Insiders (issue 27): who holds a new token through linked wallets, who bought at launch, what the deployer
// kept. Optional: evidence scanned before the funders stage, or with it off, has no block.
export const InsiderCluster = Schema.Struct({
  funder: Schema.NullOr(Address).annotations({
    description: "The wallet that first funded the members (directly or through one fresh wallet); null for same_slot."
  }),
  reason: Schema.Literal("common_funder", "deployer_funded", "same_slot"),
  members: Schema.Array(Schema.Struct({ owner: Address, pct: Percent })).pipe(Schema.maxItems(100)),
  pct: Percent.annotations({ description: "Supply the members hold now, in percent." })
}).annotations({ identifier: "InsiderCluster" })
export type InsiderCluster = typeof InsiderCluster.Type

const LaunchBuyers = Schema.Struct({
  creationSlot: Count,
  sameSlotPct: Percent.annotations({
    description: "Supply bought in the creation slot by wallets other than the deployer."
  }),
  sameSlotCount: Count,
  sniperPct: Percent.annotations({ description: "Supply bought in the windowSlots slots after the creation slot." }),
  sniperCount: Count,
  windowSlots: Count
}).annotations({ identifier: "LaunchBuyers" })

const DeployerCluster = Schema.Struct({
  memberCount: Count.annotations({
    description:
      "Launch-window buyers whose first funder is the deployer (directly or through one fresh wallet), the deployer not counted."
  }),
  initialPct: Percent.annotations({
    description: "The deployer's initial holding plus what those buyers bought in the launch window."
  }),
  currentPct: Percent.annotations({ description: "What the deployer and those buyers hold now." }),
  soldPct: Schema.NullOr(Percent).annotations({
    description:
      "Share of the cluster's initial holding it no longer holds (dev sold % of the cluster); null when it held none."
  })
}).annotations({ identifier: "DeployerClusterHolding" })

const DeployerHolding = Schema.Struct({
  initialPct: Percent.annotations({ description: "The deployer's net holding at the end of the launch window." }),
  currentPct: Percent,
  soldPct: Schema.NullOr(Percent).annotations({
    description: "Share of its initial holding the deployer no longer holds; null when it held none."
  }),
  cluster: Schema.optionalWith(Fact(DeployerCluster), { exact: true }).annotations({
    description:
      "The deployer with the wallets it funded that bought in the launch window: not observed when any launch buyer's first funder or current holding was not read. Absent in evidence older than this field."
  })
}).annotations({ identifier: "DeployerHolding" })
export type DeployerClusterHolding = typeof DeployerCluster.Type

export const InsidersV2 = Schema.Struct({
  clusters: Fact(Schema.Array(InsiderCluster).pipe(Schema.maxItems(50))),
  launchBuyers: Fact(LaunchBuyers),
  deployerHolding: Fact(DeployerHolding),
  provenance: Schema.Struct({
    funderCalls: Count.annotations({ description: "RPC calls the funders stage made (both hops)." }),
    funderBudget: Count.annotations({
      description: "RPC calls the whole stage may make: the launch window's transactions first, the funders after."
    }),
    launchCalls: Schema.optionalWith(Count, { exact: true }).annotations({
      description:
        "RPC calls the launch window's transactions took from the same budget (the first one is the deployer stage's)."
    }),
    walletsRead: Count.annotations({ description: "Wallets whose first funder this scan read." }),
    walletsCached: Count.annotations({ description: "Wallets whose first funder came from the funder table." }),
    launchTransactions: Count.annotations({ description: "Launch-window transactions read." })
  })
}).annotations({ identifier: "InsidersV2" })
export type InsidersV2 = typeof InsidersV2.Type

/** A cluster as the scoring view keeps it (ScanEvidence's holders.clusters): who funded it, how many, how much. */
export const ClusterSummary = Schema.Struct({
  reason: InsiderCluster.fields.reason,
  funder: Schema.NullOr(Address),
  memberCount: Count,
  pct: Percent
}).annotations({ identifier: "InsiderClusterSummary" })
export type ClusterSummary = typeof ClusterSummary.Type

export const clusterSummaryOf = (cluster: InsiderCluster): ClusterSummary => ({
  reason: cluster.reason,
  funder: cluster.funder,
  memberCount: cluster.members.length,
  pct: cluster.pct
})

const pctText = (pct: number): string => `${Math.round(pct * 100) / 100}%`

/**
 * The risk naming one cluster, the one wording: the token risk packet's `risks` and the insiders route's
 * clusters (features/Insiders) both read it from here.
 */
export const clusterRiskOf = (cluster: ClusterSummary): string => {
  const wallets = `${cluster.memberCount} wallet${cluster.memberCount === 1 ? "" : "s"}`
  const holds = cluster.memberCount === 1 ? "holds" : "hold"
  switch (cluster.reason) {
    case "deployer_funded":
      return `Deployer-funded cluster of ${wallets} holds ${pctText(cluster.pct)} of supply (funder ${cluster.funder})`
    case "common_funder":
      return `Cluster of ${wallets} funded by one wallet holds ${pctText(cluster.pct)} of supply (funder ${cluster.funder})`
    case "same_slot":
      return `${wallets} that bought in the creation slot ${holds} ${pctText(cluster.pct)} of supply`
  }
}
