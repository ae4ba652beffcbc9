import type { Address } from "@solana/kit"
import { type InsidersV2, notObserved, observed } from "../../../domain/EvidenceV2.ts"
import { findAssociatedTokenPda } from "@solana-program/token-2022"
import type { VenueIndex } from "../Programs.ts"
import { type AccountInfo, type AccountInfos, readAccounts, tokenAccountOf } from "./Accounts.ts"
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
import { type LaunchRead, type LaunchTransaction, launchFiguresOf, readLaunch } from "./Launch.ts"
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

/** After round 5: the funders worth a second hop (not the deployer, not labelled, not already read). */
const intermediariesOf = (
  fundings: ReadonlyMap<string, Funding>,
  deployer: string | undefined,
  settings: ScanSettings,
  classify: Classify
): ReadonlyArray<string> => {
  const next = new Set<string>()
  for (const funding of fundings.values()) {
    const funder = funding.kind === "read" ? funding.record.funder : null
    if (funder === null || funder === deployer || fundings.has(funder)) continue
    if (settings.exchangeLabels.has(funder) || classify(funder as Address, NO_INFOS).kind !== "holder") continue
    next.add(funder)
  }
  return [...next]
}

interface InsidersInput {
  readonly mint: string
  readonly supplyRaw: bigint
  readonly deployer: string | undefined
  readonly classified: ReadonlyArray<ClassifiedRow>
  readonly vaults: ReadonlySet<string>
  readonly wallets: ReadonlyArray<string>
  readonly hop1: ReadonlyMap<string, Funding>
  readonly hop2: ReadonlyMap<string, Funding>
  readonly budget: FunderBudget
  readonly launch: LaunchRead
  readonly first: PromiseSettledResult<LaunchTransaction | null>
  /** The deployer's raw holding now (top holders, else its associated account), or why it is unknown. */
  readonly deployerNow: bigint | string
  readonly settings: ScanSettings
  readonly insiders: InsiderSettings
  readonly classify: Classify
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
  if (input.launch.kind === "skipped") {
    launchBuyers = notObserved(input.launch.reason)
    deployerHolding = notObserved(input.launch.reason)
  } else if (input.first.status === "rejected" || input.first.value === null) {
    launchBuyers = notObserved("the mint's first transaction was not read")
    deployerHolding = notObserved("the mint's first transaction was not read")
  } else {
    const figures = launchFiguresOf(
      input.mint,
      input.launch.creationSlot,
      [input.first.value, ...input.launch.transactions],
      input.deployer
    )
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
    deployerHolding =
      input.deployer === undefined
        ? notObserved("deployer not observed")
        : typeof input.deployerNow === "string"
          ? notObserved(input.deployerNow)
          : observed({
              initialPct: pctOf(figures.deployerInitial, input.supplyRaw),
              currentPct: pctOf(input.deployerNow, input.supplyRaw),
              soldPct:
                figures.deployerInitial === 0n
                  ? null
                  : input.deployerNow >= figures.deployerInitial
                    ? 0
                    : Number(((figures.deployerInitial - input.deployerNow) * 10_000n) / figures.deployerInitial) / 100
            })
  }

  const fundings = [...input.hop1.values(), ...input.hop2.values()]
  return {
    clusters: clustersOf(input, holdings),
    launchBuyers,
    deployerHolding,
    provenance: {
      funderCalls: input.budget.spent,
      funderBudget: input.budget.calls,
      walletsRead: fundings.filter((funding) => funding.kind === "read" && !funding.cached).length,
      walletsCached: fundings.filter((funding) => funding.kind === "read" && funding.cached).length,
      launchTransactions: input.launch.kind === "read" ? input.launch.transactions.length + 1 : 0
    }
  }
}

/** The deployer's raw holding from the top holders, when it is among them. */
const deployerInTop = (classified: ReadonlyArray<ClassifiedRow>, deployer: string | undefined) => {
  const rows = classified.filter((row) => row.owner === deployer)
  return rows.length === 0 ? undefined : rows.reduce((sum, row) => sum + row.amount, 0n)
}

// The stage's reads, in the scan's rounds (Scan.ts calls one function per round it joins).

export interface InsiderRun {
  readonly insiders: InsiderSettings
  readonly book: FunderBook
  readonly budget: FunderBudget
  readonly classify: Classify
  readonly candidates: ReadonlyArray<string>
  readonly hop1Cached: ReadonlyMap<string, Funding>
  readonly hop1Unknown: ReadonlyArray<string>
}

/** Before round 4 (no RPC): the candidates and what the book knows of them. */
export const startInsiders = async (
  settings: ScanSettings,
  rows: ReadonlyArray<HolderRow>,
  vaults: ReadonlySet<string>,
  venues: VenueIndex
): Promise<InsiderRun | undefined> => {
  const insiders = settings.insiders
  if (insiders === undefined) return undefined
  const classify = classifierOf(venues, undefined, settings)
  const candidates = funderCandidatesOf(rows, vaults, classify)
  const known = await insiders.book.lookup(candidates).catch(() => new Map<string, FunderRecord>())
  const { cached, unknown } = fromBook(known, candidates)
  return {
    insiders,
    book: insiders.book,
    budget: new FunderBudget(insiders.funderCalls),
    classify,
    candidates,
    hop1Cached: cached,
    hop1Unknown: unknown
  }
}

const skipped: LaunchRead = { kind: "skipped", reason: "the insiders stage is off" }

/** Round 4: the unknown candidates' signatures and the launch window's transactions. */
export const readInsidersRound4 = (
  ctx: ScanContext,
  run: InsiderRun | undefined,
  history: PromiseSettledResult<History>
) =>
  run === undefined
    ? Promise.resolve({ signatures: new Map() as ReadonlyMap<string, Oldest | Funding>, launch: skipped })
    : Promise.all([
        readSignatures(ctx, run.hop1Unknown, run.budget),
        readLaunch(ctx, history, {
          windowSlots: run.insiders.launchWindowSlots,
          maxTransactions: run.insiders.launchTransactions
        })
      ]).then(([signatures, launch]) => ({ signatures, launch }))

/** Before round 5 (no RPC): the deployer's associated token account, when it is not among the top holders. */
export const deployerAccountOf = async (
  run: InsiderRun | undefined,
  mint: Address,
  mintProgram: Address,
  classified: ReadonlyArray<ClassifiedRow>,
  deployer: Address | undefined
): Promise<Address | undefined> => {
  if (run === undefined || deployer === undefined || deployerInTop(classified, deployer) !== undefined) return undefined
  const [account] = await findAssociatedTokenPda({ owner: deployer, mint, tokenProgram: mintProgram })
  return account
}

/** Round 5: the wallets' oldest transactions, and the deployer's associated token account. */
export const readInsidersRound5 = (
  ctx: ScanContext,
  run: InsiderRun | undefined,
  signatures: ReadonlyMap<string, Oldest | Funding>,
  classified: ReadonlyArray<ClassifiedRow>,
  deployerAccount: Address | undefined
) =>
  run === undefined
    ? Promise.resolve({ hop1: new Map() as ReadonlyMap<string, Funding>, deployerAccount: undefined })
    : Promise.all([
        readFunders(ctx, signatures, run.budget, walletsOf(classified, [...signatures.keys()])),
        deployerAccount === undefined
          ? Promise.resolve(undefined)
          : readAccounts(ctx.rpc, [deployerAccount], ctx.slot).then(
              (read) => read.infos.get(deployerAccount) ?? null,
              (error: unknown) => describe(error)
            )
      ]).then(([read, account]) => ({ hop1: new Map([...run.hop1Cached, ...read]), deployerAccount: account }))

/** Between rounds 5 and 6 (no RPC): the second hop's wallets and what the book knows of them. */
export const secondHopOf = async (
  run: InsiderRun | undefined,
  hop1: ReadonlyMap<string, Funding>,
  deployer: string | undefined,
  settings: ScanSettings
) => {
  if (run === undefined) return { cached: new Map<string, Funding>(), unknown: [] as ReadonlyArray<string> }
  const next = intermediariesOf(hop1, deployer, settings, run.classify)
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

/** The deployer's raw holding now, or why it is unknown. */
export const deployerNowOf = (
  classified: ReadonlyArray<ClassifiedRow>,
  deployer: string | undefined,
  account: AccountInfo | null | string | undefined,
  mint: Address
): bigint | string => {
  const inTop = deployerInTop(classified, deployer)
  if (inTop !== undefined) return inTop
  if (account === undefined) return "deployer's holding not read"
  if (typeof account === "string") return `deployer's token account: ${account}`
  if (account === null) return 0n
  const parsed = tokenAccountOf(account.data)
  return parsed === undefined || parsed.mint !== mint
    ? "deployer's token account is not one of this mint"
    : parsed.amount
}

/** After the last round: the book keeps what this scan read. */
export const rememberFunders = (
  run: InsiderRun | undefined,
  ...fundings: ReadonlyArray<ReadonlyMap<string, Funding>>
) =>
  run === undefined
    ? Promise.resolve()
    : run.book.remember(fundings.flatMap((map) => newRecords(map))).catch(() => undefined)
