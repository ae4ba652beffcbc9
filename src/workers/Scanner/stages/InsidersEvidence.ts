import type { Address } from "@solana/kit"
import type { DeployerClusterHolding } from "../../../domain/EvidenceInsiders.ts"
import { type Fact, type InsidersV2, notObserved, observed } from "../../../domain/EvidenceV2.ts"
import type { AccountInfos } from "./Accounts.ts"
import { pctOf, type ScanSettings } from "./Context.ts"
import type { InsiderSettings } from "./FunderBook.ts"
import type { FunderBudget, Funding } from "./Funders.ts"
import type { ClassifiedRow, Classification } from "./Holders.ts"
import type { LaunchFigures, LaunchRead } from "./Launch.ts"
import { clustersOf } from "./Clusters.ts"

// The insiders block from what the funders and launch stages read (Insiders.ts): holders grouped by first
// funder (one hop, or two through a fresh wallet, never through a labelled exchange), by the deployer in the
// funding chain, and by buying in the creation slot; the launch window's buyers; the deployer's holding, and
// its cluster's, then and now. Pure: every fact not read is not observed.

export type Classify = (owner: Address, infos: AccountInfos) => Classification
/** Classifying an owner by its address alone. */
export const NO_INFOS: AccountInfos = new Map()

export interface InsidersInput {
  readonly mint: string
  readonly supplyRaw: bigint
  readonly deployer: string | undefined
  readonly classified: ReadonlyArray<ClassifiedRow>
  readonly vaults: ReadonlySet<string>
  /** The top holders' wallets whose funders were followed (the clusters are theirs). */
  readonly wallets: ReadonlyArray<string>
  readonly hop1: ReadonlyMap<string, Funding>
  readonly hop2: ReadonlyMap<string, Funding>
  readonly budget: FunderBudget
  readonly launch: LaunchRead
  readonly figures: LaunchFigures | string
  /** The deployer's raw holding now (top holders, else its associated account), or why it is unknown. */
  readonly deployerNow: bigint | string
  /** The launch buyers outside the top holders: each one's raw holding now (its associated account), or why unknown. */
  readonly buyersNow: ReadonlyMap<string, bigint | string>
  readonly settings: ScanSettings
  readonly insiders: InsiderSettings
  readonly classify: Classify
}

const soldPctOf = (initial: bigint, now: bigint): number | null =>
  initial === 0n ? null : now >= initial ? 0 : Number(((initial - now) * 10_000n) / initial) / 100

/** Whether the deployer stands in a wallet's funding chain (one hop, or two through a fresh wallet), or "unknown" when a hop was not read. */
const deployerFunded = (
  wallet: string,
  fundings: ReadonlyMap<string, Funding>,
  deployer: string,
  settings: ScanSettings
): boolean | "unknown" => {
  let at = wallet
  for (let hop = 0; hop < 2; hop++) {
    const funding = fundings.get(at)
    // A funder the stage did not follow to a second hop (labelled, a program, a holder read as itself) ends the chain.
    if (funding === undefined) return hop === 0 ? "unknown" : false
    if (funding.kind === "budget" || funding.kind === "failed") return "unknown"
    const funder = funding.kind === "read" ? funding.record.funder : null
    if (funder === null || settings.exchangeLabels.has(funder) || funder === wallet) return false
    if (funder === deployer) return true
    at = funder
  }
  return false
}

/**
 * The deployer's cluster ("dev sold %" of the cluster): the deployer with the launch-window buyers it funded.
 * Initial: the deployer's holding when the window closed plus what those buyers bought in it; now: what they
 * all hold. Not observed when any buyer's funder or any member's holding now was not read.
 */
const deployerClusterOf = (
  input: InsidersInput,
  figures: LaunchFigures,
  holdings: ReadonlyMap<string, bigint>,
  isVenue: (owner: string) => boolean,
  deployer: string,
  deployerNow: bigint
): Fact<DeployerClusterHolding> => {
  const fundings = new Map([...input.hop1, ...input.hop2])
  const buyers = [...figures.bought].filter(([owner]) => !isVenue(owner))
  const linked = buyers.map(([owner, bought]) => ({
    owner,
    bought,
    funded: deployerFunded(owner, fundings, deployer, input.settings)
  }))
  const unread = linked.filter((buyer) => buyer.funded === "unknown").length
  if (unread > 0)
    return notObserved(
      input.budget.spent >= input.budget.calls
        ? `insiders budget of ${input.budget.calls} calls spent before ${unread} launch buyers' first funders were read`
        : `${unread} launch buyers' first funders could not be read`
    )
  const members = linked.filter((buyer) => buyer.funded === true)
  let initial = figures.deployerInitial
  let now = deployerNow
  for (const member of members) {
    const held = holdings.get(member.owner) ?? input.buyersNow.get(member.owner) ?? "holding not read"
    if (typeof held === "string") return notObserved(`launch buyer ${member.owner}: ${held}`)
    initial += member.bought
    now += held
  }
  return observed({
    memberCount: members.length,
    initialPct: pctOf(initial, input.supplyRaw),
    currentPct: pctOf(now, input.supplyRaw),
    soldPct: soldPctOf(initial, now)
  })
}

/** The insiders block of the evidence. */
export const insidersOf = (input: InsidersInput): InsidersV2 => {
  const holdings = new Map<string, bigint>()
  for (const row of input.classified) holdings.set(row.owner, (holdings.get(row.owner) ?? 0n) + row.amount)
  const excluded = new Set(
    input.classified.filter((row) => row.kind !== "holder" && row.kind !== "creator").map((row) => row.owner as string)
  )
  const isVenue = (owner: string) => excluded.has(owner) || input.classify(owner as Address, NO_INFOS).kind !== "holder"

  let launchBuyers: InsidersV2["launchBuyers"]
  let deployerHolding: InsidersV2["deployerHolding"]
  const figures = input.figures
  if (typeof figures === "string") {
    launchBuyers = notObserved(figures)
    deployerHolding = notObserved(figures)
  } else {
    const buyers = (map: ReadonlyMap<string, bigint>) => [...map].filter(([owner]) => !isVenue(owner))
    const sum = (entries: ReadonlyArray<readonly [string, bigint]>) =>
      entries.reduce((total, [, raw]) => total + raw, 0n)
    const sameSlot = buyers(figures.sameSlot)
    const snipers = buyers(figures.snipers)
    launchBuyers = observed({
      creationSlot: Number(figures.creationSlot),
      sameSlotPct: pctOf(sum(sameSlot), input.supplyRaw),
      sameSlotCount: sameSlot.length,
      sniperPct: pctOf(sum(snipers), input.supplyRaw),
      sniperCount: snipers.length,
      windowSlots: input.insiders.launchWindowSlots
    })
    const deployer = input.deployer
    const deployerNow = input.deployerNow
    deployerHolding =
      deployer === undefined
        ? notObserved("deployer not observed")
        : typeof deployerNow === "string"
          ? notObserved(deployerNow)
          : observed({
              initialPct: pctOf(figures.deployerInitial, input.supplyRaw),
              currentPct: pctOf(deployerNow, input.supplyRaw),
              soldPct: soldPctOf(figures.deployerInitial, deployerNow),
              cluster: deployerClusterOf(input, figures, holdings, isVenue, deployer, deployerNow)
            })
  }

  const fundings = [...input.hop1.values(), ...input.hop2.values()]
  const launchCalls = input.launch.kind === "read" ? input.launch.transactions.length : 0
  return {
    clusters: clustersOf(input, holdings),
    launchBuyers,
    deployerHolding,
    provenance: {
      funderCalls: input.budget.spent - launchCalls,
      funderBudget: input.budget.calls,
      launchCalls,
      walletsRead: fundings.filter((funding) => funding.kind === "read" && !funding.cached).length,
      walletsCached: fundings.filter((funding) => funding.kind === "read" && funding.cached).length,
      launchTransactions: input.launch.kind === "read" ? input.launch.records.length + 1 : 0
    }
  }
}
