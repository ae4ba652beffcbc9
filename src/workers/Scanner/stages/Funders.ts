import { type Address, getBase58Encoder, type Signature } from "@solana/kit"
import { SYSTEM_PROGRAM } from "../Programs.ts"
import type { ScanRpc } from "../Rpc.ts"
import { COMMITMENT, describe, type ScanContext } from "./Context.ts"
import type { FunderRecord } from "./FunderBook.ts"

// Stage "funders": who first funded each top holder's wallet. A wallet's first funder is the source of
// the system-program transfer in its oldest transaction; it never changes, so the answer is kept in a
// funder book (the `wallet_funders` table in the worker) with the slot it was read at, and a repeat scan
// of this token or any other reads nothing for a wallet already in the book.
//
// Reads, each batched with a round the scan already sends (src/workers/Scanner/Scan.ts):
// - round 4: each wallet's signatures (the top holders', then the launch window's buyers' that are not among them) (getSignaturesForAddress, one page of 1,000; a wallet with a full page
//   is busy, not fresh, and is not followed);
// - round 5: the oldest transaction of each wallet whose page was complete (getTransaction), once per distinct
//   signature and not at all when the launch window already read it;
// - rounds 6 and 7 (hop 2, only for fresh funders not in the book): the same two reads for the funders.
// Every call is taken from the stage's own budget (SCANNER_FUNDER_CALLS), after the launch window's
// transactions (stage Launch, round 3) took theirs; a wallet the budget does not reach is `budget`, and the
// clusters built on it are not observed.

/** The stage's own bound on calls, shared by both hops. */
export class FunderBudget {
  spent = 0
  constructor(readonly calls: number) {}
  take(calls: number): boolean {
    if (this.spent + calls > this.calls) return false
    this.spent += calls
    return true
  }
  /** Gives back a call taken but not made (a wallet not followed after its page). */
  refund(calls: number): void {
    this.spent = Math.max(0, this.spent - calls)
  }
}

/** One wallet's first funder as far as this scan got. */
export type Funding =
  | { readonly kind: "read"; readonly record: FunderRecord; readonly cached: boolean }
  | { readonly kind: "busy" }
  /** No transaction names the wallet (a program's address that holds no lamports): it has no funder. */
  | { readonly kind: "none" }
  | { readonly kind: "budget" }
  | { readonly kind: "failed"; readonly reason: string }

const PAGE = 1_000

export interface Oldest {
  readonly signature: string
}

/** Round 4 (hop 1) or 6 (hop 2): one page of each wallet's signatures, within the budget (two calls a wallet, the page and its oldest transaction). */
export const readSignatures = (
  { rpc, slot }: ScanContext,
  wallets: ReadonlyArray<string>,
  budget: FunderBudget
): Promise<ReadonlyMap<string, Oldest | Funding>> =>
  Promise.all(
    wallets.map(async (wallet): Promise<readonly [string, Oldest | Funding]> => {
      if (!budget.take(2)) return [wallet, { kind: "budget" }]
      try {
        const page = await rpc
          .getSignaturesForAddress(wallet as Address, { commitment: COMMITMENT, limit: PAGE, minContextSlot: slot })
          .send()
        const last = page.at(-1)
        if (page.length < PAGE && last !== undefined) return [wallet, { signature: last.signature }]
        budget.refund(1)
        return [wallet, page.length >= PAGE ? { kind: "busy" } : { kind: "none" }]
      } catch (error) {
        budget.refund(1)
        return [wallet, { kind: "failed", reason: describe(error) }]
      }
    })
  ).then((entries) => new Map(entries))

const readTransaction = (rpc: ScanRpc, signature: string) =>
  rpc
    .getTransaction(signature as Signature, {
      commitment: COMMITMENT,
      encoding: "json",
      maxSupportedTransactionVersion: 0
    })
    .send()

export type Transaction = NonNullable<Awaited<ReturnType<typeof readTransaction>>>

const base58 = getBase58Encoder()

/** The system-program transfer into `wallet` in a transaction (top level or inner): its source and lamports. */
const transferInto = (
  transaction: Transaction,
  wallet: string
): { readonly from: string; readonly lamports: bigint } | undefined => {
  const loaded = transaction.meta?.loadedAddresses
  const keys: ReadonlyArray<string> = [
    ...transaction.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? [])
  ]
  const instructions = [
    ...transaction.transaction.message.instructions,
    ...(transaction.meta?.innerInstructions ?? []).flatMap((inner) => inner.instructions)
  ]
  for (const instruction of instructions) {
    if (keys[instruction.programIdIndex] !== SYSTEM_PROGRAM) continue
    let data: Uint8Array
    try {
      data = new Uint8Array(base58.encode(instruction.data))
    } catch {
      continue
    }
    // SystemInstruction::Transfer: u32 LE 2, then the lamports as u64 LE; accounts [from, to].
    if (data.length !== 12) continue
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    if (view.getUint32(0, true) !== 2) continue
    const from = keys[instruction.accounts[0] ?? -1]
    const to = keys[instruction.accounts[1] ?? -1]
    if (to === wallet && from !== undefined && from !== wallet) return { from, lamports: view.getBigUint64(4, true) }
  }
  return undefined
}

/** Round 5 (hop 1) or 7 (hop 2): the oldest transaction of each wallet whose page was complete; its funder. */
export const readFunders = (
  { rpc, slot }: ScanContext,
  signatures: ReadonlyMap<string, Oldest | Funding>,
  budget: FunderBudget,
  /** The wallets to follow; a page read for any other (a program's account) is dropped and its call given back. */
  wallets: ReadonlyArray<string> = [...signatures.keys()],
  /** Transactions this scan already read (the launch window's): an oldest one among them costs no call. */
  known: ReadonlyMap<string, Transaction> = new Map()
): Promise<ReadonlyMap<string, Funding>> => {
  const follow = new Set(wallets)
  // One read per distinct signature: wallets funded in one transaction (a disperse) share it, and a wallet
  // whose first transaction is a launch-window one (funded and bought in one go) takes it from the window.
  const reads = new Map<string, Promise<Transaction | null>>()
  for (const [wallet, oldest] of signatures) {
    if ("kind" in oldest) continue
    const shared = known.get(oldest.signature)
    if (!follow.has(wallet) || shared !== undefined || reads.has(oldest.signature)) {
      budget.refund(1)
      if (shared !== undefined) reads.set(oldest.signature, Promise.resolve(shared))
      continue
    }
    reads.set(oldest.signature, readTransaction(rpc, oldest.signature))
  }
  return Promise.all(
    [...signatures]
      .filter(([wallet]) => follow.has(wallet))
      .map(async ([wallet, oldest]): Promise<readonly [string, Funding]> => {
        if ("kind" in oldest) return [wallet, oldest]
        try {
          const transaction = await reads.get(oldest.signature)!
          if (transaction === null) return [wallet, { kind: "failed", reason: "oldest transaction not found" }]
          const transfer = transferInto(transaction, wallet)
          const record: FunderRecord = {
            wallet,
            funder: transfer?.from ?? null,
            signature: oldest.signature,
            fundedSlot: Number(transaction.slot),
            lamports: transfer === undefined ? null : transfer.lamports.toString(),
            readSlot: Number(slot)
          }
          return [wallet, { kind: "read", record, cached: false }]
        } catch (error) {
          return [wallet, { kind: "failed", reason: describe(error) }]
        }
      })
  ).then((entries) => new Map(entries))
}

/** The wallets' fundings from the book; the ones it lacks are left to read. */
export const fromBook = (
  known: ReadonlyMap<string, FunderRecord>,
  wallets: ReadonlyArray<string>
): { readonly cached: Map<string, Funding>; readonly unknown: ReadonlyArray<string> } => {
  const cached = new Map<string, Funding>()
  const unknown: Array<string> = []
  for (const wallet of wallets) {
    const record = known.get(wallet)
    if (record === undefined) unknown.push(wallet)
    else cached.set(wallet, { kind: "read", record, cached: true })
  }
  return { cached, unknown }
}

/** The records a scan read (not those it found in the book), for the book to keep. */
export const newRecords = (fundings: ReadonlyMap<string, Funding>): ReadonlyArray<FunderRecord> =>
  [...fundings.values()].flatMap((funding) => (funding.kind === "read" && !funding.cached ? [funding.record] : []))
