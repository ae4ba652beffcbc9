import { describe, expect, test } from "bun:test"
import type { Address } from "../../../src/domain/Address.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { notObserved, observed, type ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import type { FunderRow } from "../../../src/features/Insiders/FundersRepo.ts"
import { graphWalletsOf, insidersGraphOf, nextHopOf } from "../../../src/features/Insiders/Graph.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"

// The insiders graph as a pure function of a v2 document and the funder rows: two hops of funding, amounts only
// where stored, and nothing drawn from a fact the scan did not observe.

const [deployer, intermediary, holderA, holderB, exchange, stranger] = Array.from({ length: 6 }, newAddress)
const holder = (address: Address, pct: number) => ({
  address,
  tokenAccount: null,
  amount: null,
  pct,
  kind: "holder" as const,
  label: null,
  labelSource: null
})

const documentWith = (insiders: ScanEvidenceV2["insiders"]): ScanEvidenceV2 => {
  const base = upgradeV1(decodeScan(cleanScan(newAddress())))
  return {
    ...base,
    provenance: { ...base.provenance, slot: 500 },
    deployer: observed({ address: deployer!, signature: null, slot: 100, at: null }),
    holders: {
      ...base.holders,
      top: observed([holder(holderA!, 20), holder(holderB!, 10), holder(stranger!, 5)])
    },
    ...(insiders === undefined ? {} : { insiders })
  }
}

const provenance = { funderCalls: 12, funderBudget: 40, walletsRead: 4, walletsCached: 0, launchTransactions: 3 }
const ring = documentWith({
  clusters: observed([
    {
      funder: deployer!,
      reason: "deployer_funded" as const,
      members: [
        { owner: holderA!, pct: 20 },
        { owner: holderB!, pct: 10 }
      ],
      pct: 30
    }
  ]),
  launchBuyers: notObserved("launch transactions could not be read"),
  deployerHolding: notObserved("the deployer could not be read"),
  provenance
})

const row = (wallet: string, funder: string | null, lamports: string | null, fundedSlot: number | null): FunderRow => ({
  wallet,
  funder,
  signature: funder === null ? null : `sig-${wallet.slice(0, 4)}`,
  fundedSlot,
  lamports,
  readSlot: 450
})

describe("the insiders graph", () => {
  test("a 2-hop chain: holders funded by a fresh wallet the deployer funded; an amount not stored is null", () => {
    const asked = graphWalletsOf(ring)
    expect([...asked].sort()).toEqual([holderA!, holderB!, stranger!].sort())
    const first = new Map([
      [holderA!, row(holderA!, intermediary!, "3000000000", 120)],
      [holderB!, row(holderB!, intermediary!, null, 121)],
      [stranger!, row(stranger!, exchange!, "5", 90)]
    ])
    // The second hop asks for the intermediary and the exchange (not yet asked, not the deployer).
    expect([...nextHopOf(ring, asked, first)].sort()).toEqual([intermediary!, exchange!].sort())
    const second = new Map([[intermediary!, row(intermediary!, deployer!, "9000000000", 110)]])
    const graph = insidersGraphOf(ring, new Map([...first, ...second]))
    const funded = graph.graph.edges.filter((edge) => edge.kind === "funded_by")
    expect(funded.map((edge) => [edge.from, edge.to, edge.lamports, edge.slot])).toEqual(
      expect.arrayContaining([
        [holderA!, intermediary!, "3000000000", 120],
        [holderB!, intermediary!, null, 121],
        [intermediary!, deployer!, "9000000000", 110],
        [stranger!, exchange!, "5", 90]
      ])
    )
    expect(funded).toHaveLength(4)
    expect(funded.every((edge) => edge.provenance.source === "wallet_funders" && edge.provenance.slot === 450)).toBe(
      true
    )
    const node = (id: string) => graph.graph.nodes.find((candidate) => candidate.id === id)
    expect(node(intermediary!)).toMatchObject({ kind: "funder", pct: null, labels: ["funder"] })
    expect(node(deployer!)).toMatchObject({ kind: "deployer", pct: null })
    expect(graph.provenance).toMatchObject({ slot: 500, funderCalls: 12, fundersKnown: 4 })
    // Facts the scan did not observe stay not_observed with its reason.
    expect(graph.launchBuyers).toEqual({
      status: "not_observed",
      reason: "launch transactions could not be read",
      provenance: { source: "scan", slot: 500 }
    })
    expect(graph.clusters.status === "observed" && graph.clusters.value[0]!.risk).toBe(
      `Deployer-funded cluster of 2 wallets holds 30% of supply (funder ${deployer})`
    )
  })

  test("no funder rows: no funding edge is drawn, not even from a cluster's funder", () => {
    const graph = insidersGraphOf(ring, new Map())
    expect(graph.graph.edges.map((edge) => edge.kind).sort()).toEqual(["member_of", "member_of"])
    expect(graph.provenance.fundersKnown).toBe(0)
  })

  test("clusters not observed (the funder budget ran out): no cluster node, no member edge", () => {
    const document = documentWith({
      clusters: notObserved("funder budget of 6 calls spent before 2 wallets were read"),
      launchBuyers: notObserved("launch transactions could not be read"),
      deployerHolding: observed({ initialPct: 10, currentPct: 2, soldPct: 80 }),
      provenance
    })
    const graph = insidersGraphOf(document, new Map())
    expect(graph.clusters).toEqual({
      status: "not_observed",
      reason: "funder budget of 6 calls spent before 2 wallets were read",
      provenance: { source: "scan", slot: 500 }
    })
    expect(graph.graph.nodes.some((node) => node.kind === "cluster")).toBe(false)
    expect(graph.graph.edges).toEqual([])
    expect(graph.deployerHolding).toMatchObject({
      status: "observed",
      value: { deployer, initialPct: 10, currentPct: 2, soldPct: 80 }
    })
    expect(graph.graph.nodes.find((node) => node.id === deployer)?.pct).toBe(2)
    expect("cluster" in (graph.deployerHolding.status === "observed" ? graph.deployerHolding.value : {})).toBe(false)
  })

  test("the deployer's cluster holding is a fact of its own, with the scan's provenance", () => {
    const cluster = { memberCount: 5, initialPct: 45, currentPct: 12, soldPct: 73.33 }
    const graph = insidersGraphOf(
      documentWith({
        ...ring.insiders!,
        deployerHolding: observed({ initialPct: 10, currentPct: 10, soldPct: 0, cluster: observed(cluster) })
      }),
      new Map()
    )
    expect(graph.deployerHolding).toMatchObject({
      status: "observed",
      value: { soldPct: 0, cluster: { status: "observed", value: cluster, provenance: { source: "scan", slot: 500 } } }
    })
  })
})
