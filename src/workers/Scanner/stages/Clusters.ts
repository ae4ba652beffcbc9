import type { Address as EvidenceAddress } from "../../../domain/Address.ts"
import { type Fact, type InsiderCluster, notObserved, observed } from "../../../domain/EvidenceV2.ts"
import { pctOf, type ScanSettings } from "./Context.ts"
import type { FunderBudget, Funding } from "./Funders.ts"
import type { LaunchFigures } from "./Launch.ts"

// The insiders stage's clusters (src/workers/Scanner/stages/Insiders.ts): holders grouped by first funder
// (one hop, or two through a fresh wallet, never through a labelled exchange), by the deployer in the
// funding chain, and by buying in the creation slot.

/** What the clusters are found from: a part of the insiders stage's input. */
interface ClustersInput {
  readonly supplyRaw: bigint
  readonly deployer: string | undefined
  readonly wallets: ReadonlyArray<string>
  readonly hop1: ReadonlyMap<string, Funding>
  readonly hop2: ReadonlyMap<string, Funding>
  readonly budget: FunderBudget
  /** The launch window's figures, or why they are not observed. */
  readonly figures: LaunchFigures | string
  readonly settings: ScanSettings
}

const unreadOf = (fundings: ReadonlyMap<string, Funding>, wallets: ReadonlyArray<string>) =>
  wallets
    .map((wallet) => fundings.get(wallet))
    .filter((funding) => funding?.kind === "budget" || funding?.kind === "failed")

/** The funding chain of a holder: its first funder and, through a fresh one, that funder's; never past an exchange or the deployer. */
const chainOf = (
  wallet: string,
  fundings: ReadonlyMap<string, Funding>,
  deployer: string | undefined,
  settings: ScanSettings
): ReadonlyArray<string> => {
  const chain: Array<string> = []
  let at = wallet
  for (let hop = 0; hop < 2; hop++) {
    const funding = fundings.get(at)
    const funder = funding?.kind === "read" ? funding.record.funder : null
    if (funder === null || settings.exchangeLabels.has(funder) || chain.includes(funder) || funder === wallet) break
    chain.push(funder)
    if (funder === deployer) break
    at = funder
  }
  return chain
}

/** The holders grouped by a common funder, by the deployer in their funding chain, or by buying in the creation slot. */
export const clustersOf = (
  input: ClustersInput,
  holdings: ReadonlyMap<string, bigint>
): Fact<ReadonlyArray<InsiderCluster>> => {
  const all = new Map([...input.hop1, ...input.hop2])
  // Only the holders' chains count: a launch buyer's intermediary the budget did not reach leaves them whole.
  const holderFunders = input.wallets.flatMap((wallet) => {
    const funding = input.hop1.get(wallet)
    return funding?.kind === "read" && funding.record.funder !== null ? [funding.record.funder] : []
  })
  const unread = [...unreadOf(input.hop1, input.wallets), ...unreadOf(input.hop2, holderFunders)]
  if (unread.length > 0) {
    const budgetOut = unread.some((funding) => funding?.kind === "budget")
    return notObserved(
      budgetOut
        ? `funder budget of ${input.budget.calls} calls spent before ${unread.length} wallets were read`
        : `${unread.length} wallets' first funders could not be read`
    )
  }
  const pctOfOwner = (owner: string) => pctOf(holdings.get(owner) ?? 0n, input.supplyRaw)
  const members = input.wallets.filter((wallet) => wallet !== input.deployer && (holdings.get(wallet) ?? 0n) > 0n)
  const chains = new Map(members.map((wallet) => [wallet, chainOf(wallet, all, input.deployer, input.settings)]))
  // Union of holders that share any funder in their chains.
  const parent = new Map(members.map((wallet) => [wallet, wallet]))
  const find = (wallet: string): string => {
    const up = parent.get(wallet)!
    if (up === wallet) return wallet
    const root = find(up)
    parent.set(wallet, root)
    return root
  }
  const byFunder = new Map<string, Array<string>>()
  for (const [wallet, chain] of chains)
    for (const funder of chain) byFunder.set(funder, [...(byFunder.get(funder) ?? []), wallet])
  for (const group of byFunder.values()) for (const wallet of group.slice(1)) parent.set(find(wallet), find(group[0]!))
  const components = new Map<string, Array<string>>()
  for (const wallet of members) components.set(find(wallet), [...(components.get(find(wallet)) ?? []), wallet])

  const clusters: Array<InsiderCluster> = []
  for (const group of components.values()) {
    const deployerFunded = input.deployer !== undefined && group.some((w) => chains.get(w)!.includes(input.deployer!))
    if (!deployerFunded && group.length < 2) continue
    const counts = [...byFunder].filter(([, wallets]) => wallets.some((wallet) => group.includes(wallet)))
    const funder = deployerFunded
      ? input.deployer!
      : counts.reduce((best, entry) => (entry[1].length > best[1].length ? entry : best))[0]
    clusters.push(clusterOf(funder, deployerFunded ? "deployer_funded" : "common_funder", group, pctOfOwner))
  }
  const figures = input.figures
  if (typeof figures !== "string") {
    const sameSlot = members.filter((wallet) => figures.sameSlot.has(wallet))
    if (sameSlot.length >= 2) clusters.push(clusterOf(null, "same_slot", sameSlot, pctOfOwner))
  }
  return observed(clusters.sort((a, b) => b.pct - a.pct).slice(0, 50))
}

const clusterOf = (
  funder: string | null,
  reason: InsiderCluster["reason"],
  group: ReadonlyArray<string>,
  pctOfOwner: (owner: string) => number
): InsiderCluster => {
  const members = group
    .map((owner) => ({ owner: owner as EvidenceAddress, pct: pctOfOwner(owner) }))
    .sort((a, b) => b.pct - a.pct)
    .slice(0, 100)
  return {
    funder: funder as EvidenceAddress | null,
    reason,
    members,
    pct: Math.min(100, Math.round(members.reduce((sum, member) => sum + member.pct, 0) * 10_000) / 10_000)
  }
}
