import type { Address } from "@solana/kit"
import { findAssociatedTokenPda } from "@solana-program/token-2022"
import type { VenueIndex } from "../Programs.ts"
import { type AccountInfos, tokenAccountOf } from "./Accounts.ts"
import { describe, type ScanContext, type ScanSettings } from "./Context.ts"
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
import { type ClassifiedRow, classifierOf, type HolderRow } from "./Holders.ts"
import {
  type LaunchFigures,
  type LaunchRead,
  type LaunchTransaction,
  launchFiguresOf,
  readLaunch,
  recordOf
} from "./Launch.ts"
import { type Classify, NO_INFOS } from "./InsidersEvidence.ts"

// The funders and launch stages' reads, round by round, for the insiders block (InsidersEvidence.ts): holders grouped by first funder (one hop, or two
// through a fresh wallet, never through a labelled exchange), by the deployer in the funding chain, and by
// buying in the creation slot; the launch window's buyers; the deployer's holding then and now.

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
