import { Schema } from "effect"
import { Address, AddressInput } from "../../domain/Address.ts"
import { Meta } from "../Accounts/Meta.ts"

// The insiders graph (GET /api/v1/token/{mint}/insiders): the latest scan's insiders block (clusters,
// launch buyers, the deployer's holding) and its holders, with the first funders kept in wallet_funders,
// as nodes and edges a UI can draw. Every fact says whether it was observed and where it came from.

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
const Pct = Schema.Number.pipe(Schema.between(0, 100))
const Lamports = Schema.String.pipe(Schema.pattern(/^(0|[1-9]\d{0,19})$/)).annotations({
  description: "Lamports, as decimal digits (u64)."
})

export const InsidersPath = Schema.Struct({
  mint: AddressInput("Mint address (base58, 32 bytes).")
})

const Provenance = Schema.Struct({
  source: Schema.Literal("scan", "wallet_funders").annotations({
    description:
      "scan: the mint's latest scan (its evidence v2); wallet_funders: the first-funder table the scanner keeps."
  }),
  slot: Schema.NullOr(Count).annotations({
    description: "scan: the slot the scan's reads were pinned at; wallet_funders: the slot the funder was read at."
  })
}).annotations({ identifier: "InsidersProvenance" })

/** A fact: its value when observed, otherwise why not (never guessed), and where it came from. */
const Fact = <S extends Schema.Schema.Any>(value: S) =>
  Schema.Union(
    Schema.Struct({ status: Schema.Literal("observed"), value, provenance: Provenance }),
    Schema.Struct({
      status: Schema.Literal("not_observed", "not_applicable"),
      reason: Schema.String,
      provenance: Provenance
    })
  )

const Cluster = Schema.Struct({
  id: Schema.String.annotations({ description: "The cluster's node id in `graph.nodes` (`cluster:<n>`)." }),
  reason: Schema.Literal("common_funder", "deployer_funded", "same_slot"),
  funder: Schema.NullOr(Address).annotations({
    description: "The wallet that first funded the members (directly or through one fresh wallet); null for same_slot."
  }),
  memberCount: Count,
  members: Schema.Array(Schema.Struct({ owner: Address, pct: Pct })),
  pct: Pct.annotations({ description: "Supply the members hold now, in percent." }),
  risk: Schema.String.annotations({ description: "The cluster named as the token risk packet's `risks` name it." })
}).annotations({ identifier: "InsiderClusterView" })

const LaunchBuyers = Schema.Struct({
  creationSlot: Count,
  sameSlotPct: Pct.annotations({
    description: "Supply bought in the creation slot by wallets other than the deployer."
  }),
  sameSlotCount: Count,
  sniperPct: Pct.annotations({ description: "Supply bought in the windowSlots slots after the creation slot." }),
  sniperCount: Count,
  windowSlots: Count
}).annotations({ identifier: "InsidersLaunchBuyers" })

const DeployerCluster = Schema.Struct({
  memberCount: Count.annotations({
    description:
      "Launch-window buyers the deployer funded (directly or through one fresh wallet), the deployer not counted."
  }),
  initialPct: Pct.annotations({
    description: "The deployer's initial holding plus what those buyers bought in the launch window."
  }),
  currentPct: Pct.annotations({ description: "What the deployer and those buyers hold now." }),
  soldPct: Schema.NullOr(Pct).annotations({
    description: "Share of that initial holding they no longer hold (the cluster's dev sold); null when they held none."
  })
}).annotations({ identifier: "InsidersDeployerCluster" })

const DeployerHolding = Schema.Struct({
  deployer: Schema.NullOr(Address).annotations({ description: "The deployer, when the scan observed it." }),
  initialPct: Pct.annotations({ description: "The deployer's net holding at the end of the launch window." }),
  currentPct: Pct,
  soldPct: Schema.NullOr(Pct).annotations({
    description: "Share of its initial holding the deployer no longer holds (dev sold); null when it held none."
  }),
  cluster: Schema.optionalWith(Fact(DeployerCluster), { exact: true }).annotations({
    description:
      "The deployer with the launch buyers it funded; absent when the scan predates it, not observed when a buyer was not read."
  })
}).annotations({ identifier: "InsidersDeployerHolding" })

const Node = Schema.Struct({
  id: Schema.String.annotations({
    description: "A wallet's address; `cluster:<n>` for a cluster; `launch:<slot>` for the creation slot."
  }),
  kind: Schema.Literal("deployer", "holder", "funder", "cluster", "launch"),
  address: Schema.NullOr(Address),
  pct: Schema.NullOr(Pct).annotations({
    description:
      "Supply the wallet holds now (its top-holder accounts), or a cluster's; null when not among the observed top holders."
  }),
  labels: Schema.Array(Schema.String).annotations({
    description:
      "What else is known: roles (deployer, holder, funder, cluster_member, same_slot_buyer), the holder's class " +
      "(pool, locker, burn, creator, insider, exchange) and label, a cluster's reason."
  })
}).annotations({ identifier: "InsidersNode" })

const Edge = Schema.Struct({
  kind: Schema.Literal("funded_by", "member_of", "same_slot").annotations({
    description:
      "funded_by: `from` was first funded by `to` (one SOL transfer, from wallet_funders); member_of: `from` is in " +
      "the cluster `to`; same_slot: `from` bought in the creation slot `to`."
  }),
  from: Schema.String,
  to: Schema.String,
  lamports: Schema.NullOr(Lamports).annotations({
    description: "funded_by: the first transfer's amount; null when not stored or for other kinds."
  }),
  slot: Schema.NullOr(Count).annotations({
    description: "funded_by: the slot of the first transfer; same_slot: the creation slot; null when unknown."
  }),
  signature: Schema.NullOr(Schema.String).annotations({ description: "funded_by: the funding transaction." }),
  pct: Schema.NullOr(Pct).annotations({ description: "member_of: the member's share of supply." }),
  provenance: Provenance
}).annotations({ identifier: "InsidersEdge" })

export const InsidersGraph = Schema.Struct({
  mint: Address,
  scannedAt: Schema.String.annotations({ description: "When the latest scan was made (ISO 8601 UTC)." }),
  clusters: Fact(Schema.Array(Cluster)),
  launchBuyers: Fact(LaunchBuyers),
  deployerHolding: Fact(DeployerHolding),
  graph: Schema.Struct({
    nodes: Schema.Array(Node),
    edges: Schema.Array(Edge)
  }),
  provenance: Schema.Struct({
    scanner: Schema.String.annotations({
      description: "What wrote the scan (`risk-api-scanner/<version>`, `import`)."
    }),
    slot: Schema.NullOr(Count).annotations({ description: "The slot the scan's reads were pinned at." }),
    funderCalls: Schema.NullOr(Count).annotations({
      description: "RPC calls the scan's funders stage made; null without an insiders block."
    }),
    walletsRead: Schema.NullOr(Count),
    walletsCached: Schema.NullOr(Count),
    fundersKnown: Count.annotations({ description: "Wallets of the graph whose first funder wallet_funders holds." })
  }).annotations({ identifier: "InsidersGraphProvenance" })
}).annotations({ identifier: "InsidersGraph" })
export type InsidersGraph = typeof InsidersGraph.Type

export const InsidersResponse = Schema.Struct({ data: InsidersGraph, meta: Meta }).annotations({
  identifier: "InsidersResponse",
  description: "The insiders graph of the mint's latest scan, and meta with the quota after this call."
})
