import { type Address, isSolanaAddress } from "../../domain/Address.ts"
import { clusterRiskOf, clusterSummaryOf } from "../../domain/EvidenceInsiders.ts"
import type { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import type { FunderRow } from "./FundersRepo.ts"
import type { InsidersGraph } from "./Schemas.ts"

// The insiders graph of one scan, a pure function of its v2 document and the first funders wallet_funders
// holds for its wallets. Nothing is guessed: a fact the scan did not observe stays not_observed with the
// scan's reason, a funding edge exists only where the table holds the wallet's first funder, and its amount
// is null where the table has none.

type Graph = InsidersGraph["graph"]
type GraphNode = Graph["nodes"][number]
type GraphEdge = Graph["edges"][number]
type Provenance = GraphEdge["provenance"]

const NO_BLOCK =
  "the latest scan has no insiders block (scanned before the funders stage, or with it off); a rescan observes it"

/** The wallets whose first funders the graph asks wallet_funders for: top holders and cluster members. */
export const graphWalletsOf = (document: ScanEvidenceV2): ReadonlyArray<string> => {
  const wallets = new Set<string>()
  if (document.holders.top.status === "observed")
    for (const holder of document.holders.top.value) wallets.add(holder.address)
  const clusters = document.insiders?.clusters
  if (clusters?.status === "observed")
    for (const cluster of clusters.value) {
      if (cluster.funder !== null) wallets.add(cluster.funder)
      for (const member of cluster.members) wallets.add(member.owner)
    }
  const deployer = deployerOf(document)
  if (deployer !== null) wallets.delete(deployer)
  return [...wallets]
}

/** The first funders of `rows` to ask for in turn (the second hop): not yet known, not the deployer. */
export const nextHopOf = (
  document: ScanEvidenceV2,
  asked: ReadonlyArray<string>,
  rows: ReadonlyMap<string, FunderRow>
): ReadonlyArray<string> => {
  const deployer = deployerOf(document)
  const seen = new Set(asked)
  const next = new Set<string>()
  for (const row of rows.values())
    if (row.funder !== null && row.funder !== deployer && !seen.has(row.funder)) next.add(row.funder)
  return [...next]
}

const deployerOf = (document: ScanEvidenceV2): string | null =>
  document.deployer.status === "observed" ? document.deployer.value.address : null

const factOf = <A, B>(
  fact:
    | { readonly status: "observed"; readonly value: A }
    | { readonly status: "not_observed" | "not_applicable"; readonly reason: string }
    | undefined,
  provenance: Provenance,
  map: (value: A) => B
) =>
  fact === undefined
    ? { status: "not_observed" as const, reason: NO_BLOCK, provenance }
    : fact.status === "observed"
      ? { status: "observed" as const, value: map(fact.value), provenance }
      : { status: fact.status, reason: fact.reason, provenance }

export const insidersGraphOf = (document: ScanEvidenceV2, funders: ReadonlyMap<string, FunderRow>): InsidersGraph => {
  const scan: Provenance = { source: "scan", slot: document.provenance.slot }
  const insiders = document.insiders
  const deployer = deployerOf(document)
  const clusters = insiders?.clusters.status === "observed" ? insiders.clusters.value : []
  const launch = insiders?.launchBuyers.status === "observed" ? insiders.launchBuyers.value : null
  const holding = insiders?.deployerHolding.status === "observed" ? insiders.deployerHolding.value : null

  const nodes = new Map<
    string,
    { kind: GraphNode["kind"]; address: Address | null; pct: number | null; labels: Set<string> }
  >()
  const wallet = (address: string, kind: "deployer" | "holder" | "funder", label: string) => {
    const found = nodes.get(address)
    const rank = { deployer: 0, holder: 1, funder: 2 } as const
    if (found === undefined)
      nodes.set(address, { kind, address: address as Address, pct: null, labels: new Set([label]) })
    else {
      found.labels.add(label)
      if (found.kind !== "cluster" && found.kind !== "launch" && rank[kind] < rank[found.kind]) found.kind = kind
    }
    return nodes.get(address)!
  }
  const addPct = (node: { pct: number | null }, pct: number) => {
    node.pct = Math.min(100, Math.round(((node.pct ?? 0) + pct) * 10_000) / 10_000)
  }

  if (deployer !== null) {
    const node = wallet(deployer, "deployer", "deployer")
    if (holding !== null) node.pct = holding.currentPct
  }
  const topHolders = document.holders.top.status === "observed" ? document.holders.top.value : []
  for (const holder of topHolders) {
    const node = wallet(holder.address, "holder", "holder")
    if (holder.address !== deployer || holding === null) addPct(node, holder.pct)
    if (holder.kind !== "holder") node.labels.add(holder.kind)
    if (holder.label !== null) node.labels.add(holder.label)
  }

  const edges: Array<GraphEdge> = []
  const edge = (fields: Partial<GraphEdge> & Pick<GraphEdge, "kind" | "from" | "to" | "provenance">): GraphEdge => ({
    lamports: null,
    slot: null,
    signature: null,
    pct: null,
    ...fields
  })
  const launchId = launch === null ? "launch" : `launch:${launch.creationSlot}`
  clusters.forEach((cluster, index) => {
    const id = `cluster:${index}`
    nodes.set(id, { kind: "cluster", address: null, pct: cluster.pct, labels: new Set([cluster.reason]) })
    if (cluster.funder !== null) wallet(cluster.funder, "funder", "funder")
    for (const member of cluster.members) {
      const node = wallet(member.owner, "holder", "cluster_member")
      if (node.pct === null) node.pct = member.pct
      edges.push(edge({ kind: "member_of", from: member.owner, to: id, pct: member.pct, provenance: scan }))
      if (cluster.reason === "same_slot") {
        node.labels.add("same_slot_buyer")
        edges.push(
          edge({
            kind: "same_slot",
            from: member.owner,
            to: launchId,
            slot: launch?.creationSlot ?? null,
            provenance: scan
          })
        )
      }
    }
  })
  if (clusters.some((cluster) => cluster.reason === "same_slot"))
    nodes.set(launchId, { kind: "launch", address: null, pct: null, labels: new Set(["creation_slot"]) })

  // Funding edges, breadth first from the graph's wallets: what the table holds, two hops at most.
  let known = 0
  let frontier = [...nodes.keys()].filter((id) => nodes.get(id)!.address !== null && id !== deployer)
  for (let hop = 0; hop < 2; hop++) {
    const next: Array<string> = []
    for (const from of frontier) {
      const row = funders.get(from)
      if (row === undefined) continue
      known++
      if (row.funder === null || !isSolanaAddress(row.funder)) continue
      const isNew = !nodes.has(row.funder)
      wallet(row.funder, "funder", "funder")
      edges.push(
        edge({
          kind: "funded_by",
          from,
          to: row.funder,
          lamports: row.lamports,
          slot: row.fundedSlot,
          signature: row.signature,
          provenance: { source: "wallet_funders", slot: row.readSlot }
        })
      )
      if (isNew && row.funder !== deployer) next.push(row.funder)
    }
    frontier = next
  }

  return {
    mint: document.mint,
    scannedAt: document.scannedAt,
    clusters: factOf(insiders?.clusters, scan, (value) =>
      value.map((cluster, index) => {
        const summary = clusterSummaryOf(cluster)
        return { id: `cluster:${index}`, ...summary, members: cluster.members, risk: clusterRiskOf(summary) }
      })
    ),
    launchBuyers: factOf(insiders?.launchBuyers, scan, (value) => value),
    deployerHolding: factOf(insiders?.deployerHolding, scan, ({ cluster, ...value }) => ({
      deployer: deployer as Address | null,
      ...value,
      ...(cluster === undefined ? {} : { cluster: factOf(cluster, scan, (figures) => figures) })
    })),
    graph: {
      nodes: [...nodes].map(([id, node]) => ({
        id,
        kind: node.kind,
        address: node.address,
        pct: node.pct,
        labels: [...node.labels]
      })),
      edges
    },
    provenance: {
      scanner: document.provenance.scanner,
      slot: document.provenance.slot,
      funderCalls: insiders?.provenance.funderCalls ?? null,
      walletsRead: insiders?.provenance.walletsRead ?? null,
      walletsCached: insiders?.provenance.walletsCached ?? null,
      fundersKnown: known
    }
  }
}
