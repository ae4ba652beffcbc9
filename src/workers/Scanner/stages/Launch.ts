import type { Signature } from "@solana/kit"
import type { ScanRpc } from "../Rpc.ts"
import type { LaunchMemory, LaunchRecord } from "./FunderBook.ts"
import type { FunderBudget } from "./Funders.ts"
import { COMMITMENT, describe, type ScanContext } from "./Context.ts"
import type { History } from "./Deployer.ts"

// Stage "launch buyers": the mint's transactions in its creation slot and the next `windowSlots` slots
// (from the deployer stage's signature pages), read in round 3 alongside the first transaction, so that the
// window's buyers join the top holders whose funders round 4 reads. Each
// transaction's token balances (meta.pre/postTokenBalances) give every owner's change in this mint: a rise
// is a buy (or a mint to it), whatever program sold it. No more than `maxTransactions` are read, and only
// when the insiders stage's budget covers them all; a busier window is not observed rather than read in part.
// A window's transactions never change: the launch memory keeps what they say (a few records a mint), and a
// later scan that finds the same window (the same signatures) reads none of them again.

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

/** The window's transactions (as records; those read by this scan also whole), or why they are not read. */
export type LaunchRead =
  | {
      readonly kind: "read"
      readonly creationSlot: bigint
      readonly records: ReadonlyArray<LaunchRecord>
      /** The transactions this scan read (none when the records came from the launch memory). */
      readonly transactions: ReadonlyArray<LaunchTransaction>
    }
  | { readonly kind: "skipped"; readonly reason: string }

/** One transaction's changes in the mint's balances: each owner's, and the token account it was in. */
export const recordOf = (transaction: LaunchTransaction, mint: string): LaunchRecord => {
  const loaded = transaction.meta?.loadedAddresses
  const keys: ReadonlyArray<string> = [
    ...transaction.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? [])
  ]
  // One change per owner and account (pre and post netted): a buy is two entries, the buyer's and the pool's.
  const changes = new Map<string, { owner: string; change: bigint; account: string | null }>()
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
      const account = keys[balance.accountIndex] ?? null
      const key = `${balance.owner}:${account}`
      const entry = changes.get(key) ?? { owner: balance.owner, change: 0n, account }
      entry.change += sign * BigInt(balance.uiTokenAmount.amount)
      changes.set(key, entry)
    }
  }
  add(transaction.meta?.preTokenBalances ?? [], -1n)
  add(transaction.meta?.postTokenBalances ?? [], 1n)
  return {
    signature: transaction.transaction.signatures[0] ?? "",
    slot: BigInt(transaction.slot),
    changes: [...changes.values()]
  }
}

/**
 * Round 3: every transaction of the launch window but the first (the deployer stage reads that one), one
 * call each from the stage's budget; none when the launch memory has this very window (the same signatures).
 */
export const readLaunch = async (
  { rpc, mint }: ScanContext,
  history: PromiseSettledResult<History>,
  settings: LaunchSettings,
  budget: FunderBudget,
  memory: LaunchMemory | undefined
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
  const signatures = window.map((entry) => entry.signature)
  const kept = memory?.get(mint, signatures)
  if (kept !== undefined) return { kind: "read", creationSlot: oldest.slot, records: kept, transactions: [] }
  if (!budget.take(window.length))
    return {
      kind: "skipped",
      reason: `the insiders budget of ${budget.calls} calls does not cover the launch window's ${window.length} transactions; not read`
    }
  try {
    const read = await Promise.all(signatures.map((signature) => readTransaction(rpc, signature)))
    const transactions = read.filter((tx) => tx !== null)
    if (transactions.length < read.length)
      return { kind: "skipped", reason: "a launch-window transaction was not found" }
    const records = transactions.map((transaction) => recordOf(transaction, mint))
    memory?.set(mint, signatures, records)
    return { kind: "read", creationSlot: oldest.slot, records, transactions }
  } catch (error) {
    return { kind: "skipped", reason: `launch-window transactions: ${describe(error)}` }
  }
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

/** The window's buyers from its transactions' records (the first one included). */
export const launchFiguresOf = (
  creationSlot: bigint,
  records: ReadonlyArray<LaunchRecord>,
  deployer: string | undefined
): LaunchFigures => {
  const sameSlot = new Map<string, bigint>()
  const later = new Map<string, bigint>()
  const window = new Map<string, bigint>()
  const accounts = new Map<string, Set<string>>()
  let deployerInitial = 0n
  for (const record of records) {
    const into = record.slot === creationSlot ? sameSlot : later
    for (const { owner, change, account } of record.changes) {
      if (account !== null) accounts.set(owner, (accounts.get(owner) ?? new Set()).add(account))
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
