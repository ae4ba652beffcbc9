import type { Address } from "@solana/kit"
import type { DeployerClusterHolding } from "../../../domain/EvidenceInsiders.ts"
import { type Fact, type InsidersV2, notObserved, observed } from "../../../domain/EvidenceV2.ts"
import { findAssociatedTokenPda } from "@solana-program/token-2022"
import type { VenueIndex } from "../Programs.ts"
import { type AccountInfos, tokenAccountOf } from "./Accounts.ts"
import { describe, pctOf, type ScanContext, type ScanSettings } from "./Context.ts"
import type { History } from "./Deployer.ts"
import type { FunderBook, FunderRecord, InsiderSettings } from "./FunderBook.ts"
import {
  FunderBudget,
  type Funding,
  fromBook,
  newRecords,
  type Oldest,
  readFunders,
  readSignatures
} from "./Funders.ts"
import { type ClassifiedRow, type Classification, classifierOf, type HolderRow } from "./Holders.ts"
import {
  type LaunchFigures,
  type LaunchRead,
  type LaunchTransaction,
  launchFiguresOf,
  readLaunch,
  recordOf
} from "./Launch.ts"
import { clustersOf } from "./Clusters.ts"

// The insiders block from the funders and launch stages: holders grouped by first funder (one hop, or two
// through a fresh wallet, never through a labelled exchange), by the deployer in the funding chain, and by
// buying in the creation slot; the launch window's buyers; the deployer's holding then and now.

type Classify = (owner: Address, infos: AccountInfos) => Classification
const NO_INFOS: AccountInfos = new Map()

/** Before round 4: the top holders' owners whose funders are worth reading (not pools' vaults, burn, venues or exchanges by address). */
const funderCandidatesOf = (
  rows: ReadonlyArray<HolderRow>,
  vaults: ReadonlySet<string>,
  classify: Classify
): ReadonlyArray<string> => [
  ...new Set(
    rows
      .filter((row) => !vaults.has(row.tokenAccount) && classify(row.owner, NO_INFOS).kind === "holder")
      .map((row) => row.owner as string)
  )
]

/** After round 4: the candidates that are wallets (holder or the deployer), whose oldest transaction round 5 reads. */
export const walletsOf = (classified: ReadonlyArray<ClassifiedRow>, candidates: ReadonlyArray<string>) => {
  const wallets = new Set(
    classified.filter((row) => row.kind === "holder" || row.kind === "creator").map((row) => row.owner as string)
  )
  return candidates.filter((candidate) => wallets.has(candidate))
}

/** After round 5: the funders worth a second hop (not the deployer, not labelled, not already read), in the order of `ordered`. */
const intermediariesOf = (
  ordered: ReadonlyMap<string, Funding>,
  fundings: ReadonlyMap<string, Funding>,
  deployer: string | undefined,
  settings: ScanSettings,
  classify: Classify
): ReadonlyArray<string> => {
  const next = new Set<string>()
  for (const funding of ordered.values()) {
    const funder = funding.kind === "read" ? funding.record.funder : null
    if (funder === null || funder === deployer || fundings.has(funder)) continue
    if (settings.exchangeLabels.has(funder) || classify(funder as Address, NO_INFOS).kind !== "holder") continue
    next.add(funder)
  }
  return [...next]
}

/** The deployer's raw holding from the top holders, when it is among them. */
const deployerInTop = (classified: ReadonlyArray<ClassifiedRow>, deployer: string | undefined) => {
  const rows = classified.filter((row) => row.owner === deployer)
  return rows.length === 0 ? undefined : rows.reduce((sum, row) => sum + row.amount, 0n)
}

interface InsidersInput {
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

/** The launch window's figures, or why they are not observed. */
const figuresOf = (
  mint: string,
  launch: LaunchRead,
  first: PromiseSettledResult<LaunchTransaction | null>,
  deployer: string | undefined
): LaunchFigures | string => {
  if (launch.kind === "skipped") return launch.reason
  if (first.status === "rejected" || first.value === null) return "the mint's first transaction was not read"
  return launchFiguresOf(launch.creationSlot, [recordOf(first.value, mint), ...launch.records], deployer)
}

// The stage's reads, in the scan's rounds (Scan.ts calls one function per round it joins).

/** Round 3: the stage's budget, and the launch window's transactions taken from it first. */
export const readInsidersRound3 = (
  ctx: ScanContext,
  history: PromiseSettledResult<History>
): Promise<{ readonly budget: FunderBudget; readonly launch: LaunchRead } | undefined> => {
  const insiders = ctx.settings.insiders
  if (insiders === undefined) return Promise.resolve(undefined)
  const budget = new FunderBudget(insiders.funderCalls)
  return readLaunch(
    ctx,
    history,
    { windowSlots: insiders.launchWindowSlots, maxTransactions: insiders.launchTransactions },
    budget,
    insiders.launches
  ).then((launch) => ({ budget, launch }))
}

export interface InsiderRun {
  readonly insiders: InsiderSettings
  readonly book: FunderBook
  readonly budget: FunderBudget
  readonly classify: Classify
  readonly launch: LaunchRead
  /** The launch window's figures (computed once, with the deployer known), or why they are not observed. */
  readonly figures: LaunchFigures | string
  /** The top holders' owners worth following (round 4's owners read tells which are wallets). */
  readonly candidates: ReadonlyArray<string>
  /** The launch window's buyers that are not among the top holders, followed after them. */
  readonly launchOnly: ReadonlyArray<string>
  readonly hop1Cached: ReadonlyMap<string, Funding>
  readonly hop1Unknown: ReadonlyArray<string>
  /**
   * Token accounts read with round 4's owners: the deployer's (when not a top holder: its associated account
   * and those the launch window shows) and the launch-only buyers' (those the window shows: no derivation).
   */
  readonly accounts: ReadonlyMap<string, ReadonlyArray<Address>>
}

/** Before round 4 (no RPC): the candidates (top holders, then launch buyers), what the book knows of them, the accounts to read. */
export const startInsiders = async (
  settings: ScanSettings,
  round3: { readonly budget: FunderBudget; readonly launch: LaunchRead } | undefined,
  token: { readonly mint: Address; readonly program: Address },
  scanned: {
    readonly rows: ReadonlyArray<HolderRow>
    readonly vaults: ReadonlySet<string>
    readonly venues: VenueIndex
    readonly first: PromiseSettledResult<LaunchTransaction | null>
    readonly deployer: Address | undefined
  }
): Promise<InsiderRun | undefined> => {
  const insiders = settings.insiders
  if (insiders === undefined || round3 === undefined) return undefined
  const { rows, vaults, venues, deployer } = scanned
  const classify = classifierOf(venues, undefined, settings)
  const candidates = funderCandidatesOf(rows, vaults, classify)
  const figures = figuresOf(token.mint, round3.launch, scanned.first, deployer)
  const inRows = new Set<string>(rows.map((row) => row.owner))
  const launchOnly =
    typeof figures === "string"
      ? []
      : [...figures.bought.keys()].filter(
          (owner) => !inRows.has(owner) && owner !== deployer && classify(owner as Address, NO_INFOS).kind === "holder"
        )
  const accounts = new Map<string, ReadonlyArray<Address>>()
  if (typeof figures !== "string") {
    const seen = (owner: string) => [...(figures.accounts.get(owner) ?? [])] as Array<Address>
    if (deployer !== undefined && !inRows.has(deployer)) {
      const [ata] = await findAssociatedTokenPda({ owner: deployer, mint: token.mint, tokenProgram: token.program })
      accounts.set(deployer, [...new Set([ata, ...seen(deployer)])])
    }
    for (const owner of launchOnly) accounts.set(owner, seen(owner))
  }
  const following = [...candidates, ...launchOnly]
  const known = await insiders.book.lookup(following).catch(() => new Map<string, FunderRecord>())
  const { cached, unknown } = fromBook(known, following)
  return {
    insiders,
    book: insiders.book,
    budget: round3.budget,
    classify,
    launch: round3.launch,
    figures,
    candidates,
    launchOnly,
    hop1Cached: cached,
    hop1Unknown: unknown,
    accounts
  }
}

/** The accounts round 4 reads beside the holders' owners. */
export const insiderAccountsOf = (run: InsiderRun | undefined): ReadonlyArray<Address> =>
  run === undefined ? [] : [...new Set([...run.accounts.values()].flat())]

/** Round 4: the unknown candidates' signatures (top holders first, so a short budget leaves the launch buyers out first). */
export const readInsidersRound4 = (ctx: ScanContext, run: InsiderRun | undefined) =>
  run === undefined
    ? Promise.resolve(new Map() as ReadonlyMap<string, Oldest | Funding>)
    : readSignatures(ctx, run.hop1Unknown, run.budget)

/** The wallets followed: the candidates round 4 found to be wallets, then the launch-only buyers. */
const followedOf = (run: InsiderRun, classified: ReadonlyArray<ClassifiedRow>) => [
  ...walletsOf(classified, run.candidates),
  ...run.launchOnly
]

/** Round 5: the wallets' oldest transactions (the launch window's and the first one are not read again). */
export const readInsidersRound5 = (
  ctx: ScanContext,
  run: InsiderRun | undefined,
  signatures: ReadonlyMap<string, Oldest | Funding>,
  classified: ReadonlyArray<ClassifiedRow>,
  first: PromiseSettledResult<LaunchTransaction | null>
): Promise<ReadonlyMap<string, Funding>> => {
  if (run === undefined) return Promise.resolve(new Map())
  const known = new Map<string, LaunchTransaction>()
  if (run.launch.kind === "read")
    for (const transaction of run.launch.transactions) {
      const signature = transaction.transaction.signatures[0]
      if (signature !== undefined) known.set(signature, transaction)
    }
  if (first.status === "fulfilled" && first.value !== null) {
    const signature = first.value.transaction.signatures[0]
    if (signature !== undefined) known.set(signature, first.value)
  }
  return readFunders(ctx, signatures, run.budget, followedOf(run, classified), known).then(
    (read) => new Map([...run.hop1Cached, ...read])
  )
}

/** Between rounds 5 and 6 (no RPC): the second hop's wallets (the top holders' first) and what the book knows of them. */
export const secondHopOf = async (
  run: InsiderRun | undefined,
  hop1: ReadonlyMap<string, Funding>,
  classified: ReadonlyArray<ClassifiedRow>,
  deployer: string | undefined,
  settings: ScanSettings
) => {
  if (run === undefined) return { cached: new Map<string, Funding>(), unknown: [] as ReadonlyArray<string> }
  const ordered = new Map(
    followedOf(run, classified).flatMap((wallet) => {
      const funding = hop1.get(wallet)
      return funding === undefined ? [] : [[wallet, funding] as const]
    })
  )
  const next = intermediariesOf(ordered, hop1, deployer, settings, run.classify)
  const known = await run.book.lookup(next).catch(() => new Map<string, FunderRecord>())
  return fromBook(known, next)
}

/** Rounds 6 and 7: the second hop (nothing is sent when every funder is known). */
export const readSignaturesHop2 = (ctx: ScanContext, run: InsiderRun | undefined, unknown: ReadonlyArray<string>) =>
  run === undefined
    ? Promise.resolve(new Map() as ReadonlyMap<string, Oldest | Funding>)
    : readSignatures(ctx, unknown, run.budget)

export const readFundersHop2 = (
  ctx: ScanContext,
  run: InsiderRun | undefined,
  signatures: ReadonlyMap<string, Oldest | Funding>,
  cached: ReadonlyMap<string, Funding>
) =>
  run === undefined || signatures.size === 0
    ? Promise.resolve(cached as ReadonlyMap<string, Funding>)
    : readFunders(ctx, signatures, run.budget).then((read) => new Map([...cached, ...read]))

/** What an owner holds in its token accounts read with round 4's owners (a closed one holds 0), or why it is unknown. */
const heldIn = (
  owners: PromiseSettledResult<AccountInfos>,
  accounts: ReadonlyArray<Address> | undefined,
  mint: Address,
  whose: string
): bigint | string => {
  if (accounts === undefined || accounts.length === 0) return `${whose} holding not read`
  if (owners.status === "rejected") return `${whose} token account: ${describe(owners.reason)}`
  let held = 0n
  for (const account of accounts) {
    const info = owners.value.get(account)
    if (info === undefined) return `${whose} token account not read`
    if (info === null) continue
    const parsed = tokenAccountOf(info.data)
    if (parsed === undefined || parsed.mint !== mint) return `${whose} token account is not one of this mint`
    held += parsed.amount
  }
  return held
}

/** The deployer's raw holding now, or why it is unknown. */
export const deployerNowOf = (
  run: InsiderRun | undefined,
  classified: ReadonlyArray<ClassifiedRow>,
  deployer: string | undefined,
  owners: PromiseSettledResult<AccountInfos>,
  mint: Address
): bigint | string => {
  const inTop = deployerInTop(classified, deployer)
  if (inTop !== undefined) return inTop
  return heldIn(owners, deployer === undefined ? undefined : run?.accounts.get(deployer), mint, "deployer's")
}

/** The launch-only buyers' raw holdings now. */
export const buyersNowOf = (
  run: InsiderRun | undefined,
  owners: PromiseSettledResult<AccountInfos>,
  mint: Address
): ReadonlyMap<string, bigint | string> =>
  new Map(
    (run?.launchOnly ?? []).map((owner) => [owner, heldIn(owners, run?.accounts.get(owner), mint, "the buyer's")])
  )

/** After the last round: the book keeps what this scan read. */
export const rememberFunders = (
  run: InsiderRun | undefined,
  ...fundings: ReadonlyArray<ReadonlyMap<string, Funding>>
) =>
  run === undefined
    ? Promise.resolve()
    : run.book.remember(fundings.flatMap((map) => newRecords(map))).catch(() => undefined)
