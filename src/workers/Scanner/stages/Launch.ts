import type { Signature } from "@solana/kit"
import type { ScanRpc } from "../Rpc.ts"
import type { FunderBudget } from "./Funders.ts"
import { COMMITMENT, describe, type ScanContext } from "./Context.ts"
import type { History } from "./Deployer.ts"

// Stage "launch buyers": the mint's transactions in its creation slot and the next `windowSlots` slots
// (from the deployer stage's signature pages), read in round 3 alongside the first transaction, so that the
// window's buyers join the top holders whose funders round 4 reads. Each
// transaction's token balances (meta.pre/postTokenBalances) give every owner's change in this mint: a rise
// is a buy (or a mint to it), whatever program sold it. No more than `maxTransactions` are read, and only
// when the insiders stage's budget covers them all; a busier window is not observed rather than read in part.

export interface LaunchSettings {
  readonly windowSlots: number
  readonly maxTransactions: number
}

const readTransaction = (rpc: ScanRpc, signature: string) =>
  rpc
    .getTransaction(signature as Signature, {
      commitment: COMMITMENT,
      encoding: "json",
      maxSupportedTransactionVersion: 0
    })
    .send()

export type LaunchTransaction = NonNullable<Awaited<ReturnType<typeof readTransaction>>>

/** The window's transactions, or why they are not read. */
export type LaunchRead =
  | { readonly kind: "read"; readonly creationSlot: bigint; readonly transactions: ReadonlyArray<LaunchTransaction> }
  | { readonly kind: "skipped"; readonly reason: string }

/** Round 3: every transaction of the launch window but the first (the deployer stage reads that one), one call each from the stage's budget. */
export const readLaunch = async (
  { rpc }: ScanContext,
  history: PromiseSettledResult<History>,
  settings: LaunchSettings,
  budget: FunderBudget
): Promise<LaunchRead> => {
  if (history.status === "rejected") return { kind: "skipped", reason: "signature history not read" }
  const { complete, oldest, earliest } = history.value
  if (!complete || oldest === undefined || earliest === undefined)
    return { kind: "skipped", reason: "the mint's first transaction was not reached" }
  const last = oldest.slot + BigInt(settings.windowSlots)
  const window = earliest.filter((entry) => entry.slot <= last && entry.signature !== oldest.signature)
  if (window.length + 1 > settings.maxTransactions)
    return {
      kind: "skipped",
      reason: `more than ${settings.maxTransactions} transactions in the launch window of ${settings.windowSlots} slots; not read`
    }
  if (!budget.take(window.length))
    return {
      kind: "skipped",
      reason: `the insiders budget of ${budget.calls} calls does not cover the launch window's ${window.length} transactions; not read`
    }
  try {
    const transactions = await Promise.all(window.map((entry) => readTransaction(rpc, entry.signature)))
    if (transactions.some((transaction) => transaction === null))
      return { kind: "skipped", reason: "a launch-window transaction was not found" }
    return { kind: "read", creationSlot: oldest.slot, transactions: transactions.filter((tx) => tx !== null) }
  } catch (error) {
    return { kind: "skipped", reason: `launch-window transactions: ${describe(error)}` }
  }
}

/** Each owner's change in the mint's balance over one transaction; `accounts` gathers the token accounts it holds them in. */
const balanceChanges = (
  transaction: LaunchTransaction,
  mint: string,
  accounts: Map<string, Set<string>>
): ReadonlyMap<string, bigint> => {
  const changes = new Map<string, bigint>()
  const loaded = transaction.meta?.loadedAddresses
  const keys: ReadonlyArray<string> = [
    ...transaction.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? [])
  ]
  const add = (
    balances: ReadonlyArray<{
      readonly accountIndex: number
      readonly mint: string
      readonly owner?: string | undefined
      readonly uiTokenAmount: { readonly amount: string }
    }>,
    sign: bigint
  ) => {
    for (const balance of balances) {
      if (balance.mint !== mint || balance.owner === undefined) continue
      changes.set(balance.owner, (changes.get(balance.owner) ?? 0n) + sign * BigInt(balance.uiTokenAmount.amount))
      const account = keys[balance.accountIndex]
      if (account !== undefined) accounts.set(balance.owner, (accounts.get(balance.owner) ?? new Set()).add(account))
    }
  }
  add(transaction.meta?.preTokenBalances ?? [], -1n)
  add(transaction.meta?.postTokenBalances ?? [], 1n)
  return changes
}

export interface LaunchFigures {
  readonly creationSlot: bigint
  /** Raw amounts bought (net rise) by each owner other than the deployer in the creation slot and after it. */
  readonly sameSlot: ReadonlyMap<string, bigint>
  readonly snipers: ReadonlyMap<string, bigint>
  /** Each owner's (but the deployer's) net rise over the whole window, when positive: what it bought at launch. */
  readonly bought: ReadonlyMap<string, bigint>
  /** The deployer's net change over the window: what it held when the window closed. */
  readonly deployerInitial: bigint
  /** The token accounts of this mint each owner's balances were in (read for what the owner holds now, no derivation). */
  readonly accounts: ReadonlyMap<string, ReadonlySet<string>>
}

/** The window's buyers from its transactions (the first one included). */
export const launchFiguresOf = (
  mint: string,
  creationSlot: bigint,
  transactions: ReadonlyArray<LaunchTransaction>,
  deployer: string | undefined
): LaunchFigures => {
  const sameSlot = new Map<string, bigint>()
  const later = new Map<string, bigint>()
  const window = new Map<string, bigint>()
  const accounts = new Map<string, Set<string>>()
  let deployerInitial = 0n
  for (const transaction of transactions) {
    const into = BigInt(transaction.slot) === creationSlot ? sameSlot : later
    for (const [owner, change] of balanceChanges(transaction, mint, accounts)) {
      if (owner === deployer) deployerInitial += change
      else {
        into.set(owner, (into.get(owner) ?? 0n) + change)
        window.set(owner, (window.get(owner) ?? 0n) + change)
      }
    }
  }
  const bought = (changes: Map<string, bigint>) => new Map([...changes].filter(([, change]) => change > 0n))
  return {
    creationSlot,
    sameSlot: bought(sameSlot),
    snipers: bought(later),
    bought: bought(window),
    accounts,
    deployerInitial: deployerInitial > 0n ? deployerInitial : 0n
  }
}
