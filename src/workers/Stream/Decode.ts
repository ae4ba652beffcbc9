import { type Address, getAddressDecoder, getBase58Encoder } from "@solana/kit"
import { EVENT_IX_TAG, EVENTS, type EventKind, INSTRUCTIONS, QUOTES } from "./Programs.ts"

// What a transaction says about launches and pools, read from getTransaction ("json" encoding): every
// instruction, top level and inner (a launch made through a router is a CPI), matched on its program
// and discriminator, the mint taken from the account the IDL names (a pool's non-quote sides); self-CPI
// events from their bytes. An instruction with a watched discriminator that is too short for its
// arguments, or lacks the accounts the IDL puts there, is reported as malformed and skipped.

/** The parts of getTransaction's answer the decoder reads. */
export interface TransactionView {
  readonly slot: bigint
  readonly blockTime: bigint | null
  readonly transaction: {
    readonly signatures: ReadonlyArray<string>
    readonly message: {
      readonly accountKeys: ReadonlyArray<string>
      readonly header?: { readonly numRequiredSignatures: number }
      readonly instructions: ReadonlyArray<CompiledInstruction>
    }
  }
  readonly meta: {
    readonly err: unknown
    readonly preTokenBalances?: ReadonlyArray<TokenBalanceView> | null
    readonly postTokenBalances?: ReadonlyArray<TokenBalanceView> | null
    readonly innerInstructions?: ReadonlyArray<{
      readonly index: number
      readonly instructions: ReadonlyArray<CompiledInstruction>
    }> | null
    readonly loadedAddresses?: {
      readonly writable: ReadonlyArray<string>
      readonly readonly: ReadonlyArray<string>
    } | null
  } | null
}
interface TokenBalanceView {
  readonly accountIndex: number
  readonly mint: string
  readonly owner?: string
  readonly uiTokenAmount: { readonly amount: string }
}
interface CompiledInstruction {
  readonly programIdIndex: number
  readonly accounts: ReadonlyArray<number>
  readonly data: string
}

export interface StreamEvent {
  readonly kind: EventKind
  readonly program: Address
  readonly mint: Address
  readonly signature: string
  readonly slot: bigint
  readonly blockTime: Date | null
  /** The signer the IDL names (a launch's creator), when known. */
  readonly user?: Address
}

const base58 = getBase58Encoder()
const addressDecoder = getAddressDecoder()

const startsWith = (data: Uint8Array, prefix: Uint8Array, at = 0): boolean =>
  data.length >= at + prefix.length && prefix.every((byte, index) => data[at + index] === byte)

/** An instruction of a watched kind that could not be read: too short, or too few accounts. */
export interface Malformed {
  readonly program: Address
  readonly name: string
}

/** The events in one transaction (a failed transaction has none), and the watched instructions skipped as malformed. */
export const eventsOf = (
  tx: TransactionView
): { readonly events: ReadonlyArray<StreamEvent>; readonly malformed: ReadonlyArray<Malformed> } => {
  if (tx.meta === null || tx.meta.err !== null) return { events: [], malformed: [] }
  const keys = [
    ...tx.transaction.message.accountKeys,
    ...(tx.meta.loadedAddresses?.writable ?? []),
    ...(tx.meta.loadedAddresses?.readonly ?? [])
  ]
  const signature = tx.transaction.signatures[0] ?? ""
  const blockTime = tx.blockTime === null ? null : new Date(Number(tx.blockTime) * 1000)
  const all = [
    ...tx.transaction.message.instructions,
    ...(tx.meta.innerInstructions ?? []).flatMap((inner) => inner.instructions)
  ]
  const events: Array<StreamEvent> = []
  const malformed: Array<Malformed> = []
  const seen = new Set<string>()
  const add = (event: StreamEvent) => {
    const key = `${event.kind}:${event.mint}`
    if (seen.has(key)) return
    seen.add(key)
    events.push(event)
  }
  for (const instruction of all) {
    const program = keys[instruction.programIdIndex] as Address | undefined
    if (program === undefined) continue
    let data: Uint8Array
    try {
      data = Uint8Array.from(base58.encode(instruction.data))
    } catch {
      continue
    }
    for (const watched of INSTRUCTIONS) {
      if (watched.program !== program || !startsWith(data, watched.discriminator)) continue
      const at = (index: number | undefined) =>
        index === undefined ? undefined : (keys[instruction.accounts[index] ?? -1] as Address | undefined)
      const mints = watched.mintAccounts.map(at)
      const user = at(watched.userAccount)
      if (
        data.length < watched.minData ||
        mints.some((mint) => mint === undefined) ||
        (watched.userAccount !== undefined && user === undefined)
      ) {
        malformed.push({ program, name: watched.name })
        continue
      }
      // A pool's pair: the sides that are not a quote (a SOL/USDC pool launches nothing).
      for (const mint of mints as ReadonlyArray<Address>) {
        if (mints.length > 1 && QUOTES.has(mint)) continue
        add({
          kind: watched.kind,
          program,
          mint,
          signature,
          slot: tx.slot,
          blockTime,
          ...(user === undefined ? {} : { user })
        })
      }
    }
    if (!startsWith(data, EVENT_IX_TAG)) continue
    for (const event of EVENTS) {
      if (event.program !== program || !startsWith(data, event.discriminator, 8)) continue
      const at = 16 + event.mintOffset
      if (data.length < at + 32) continue
      add({
        kind: event.kind,
        program,
        mint: addressDecoder.decode(data.subarray(at, at + 32)),
        signature,
        slot: tx.slot,
        blockTime
      })
    }
  }
  return { events, malformed }
}

/** The transaction's signers: the first numRequiredSignatures account keys. */
const signersOf = (tx: TransactionView): ReadonlySet<string> =>
  new Set(tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header?.numRequiredSignatures ?? 1))

/** Each token account's balance before and after, by account index. */
const balanceChanges = (tx: TransactionView) => {
  const changes = new Map<number, { mint: string; owner: string | undefined; pre: bigint; post: bigint }>()
  for (const balance of tx.meta?.preTokenBalances ?? [])
    changes.set(balance.accountIndex, {
      mint: balance.mint,
      owner: balance.owner,
      pre: BigInt(balance.uiTokenAmount.amount),
      post: 0n
    })
  for (const balance of tx.meta?.postTokenBalances ?? []) {
    const entry = changes.get(balance.accountIndex)
    const post = BigInt(balance.uiTokenAmount.amount)
    if (entry === undefined)
      changes.set(balance.accountIndex, { mint: balance.mint, owner: balance.owner, pre: 0n, post })
    else entry.post = post
  }
  return [...changes.values()]
}

/** Whether `wallet` signed a successful transaction and holds less of `mint` after it: a sale, on any venue. */
export const soldBy = (tx: TransactionView, wallet: string, mint: string): boolean =>
  tx.meta !== null &&
  tx.meta.err === null &&
  signersOf(tx).has(wallet) &&
  balanceChanges(tx).some((change) => change.mint === mint && change.owner === wallet && change.post < change.pre)

/**
 * The largest share, in percent, that a pool's reserve lost in the transaction: among token accounts of
 * `mint` or of a quote mint that no signer owns (a pool's vaults), the one whose balance fell the most
 * relative to what it held. 0 when none fell. A pool holding SOL as lamports (a pump.fun curve) is not seen here:
 * the watcher subscribes to a tracked mint's curve account instead.
 */
export const largestDropPct = (tx: TransactionView, mint: string): number => {
  if (tx.meta === null || tx.meta.err !== null) return 0
  const signers = signersOf(tx)
  let largest = 0
  for (const change of balanceChanges(tx)) {
    if (change.pre <= 0n || change.post >= change.pre) continue
    if (change.owner === undefined || signers.has(change.owner)) continue
    if (change.mint !== mint && !QUOTES.has(change.mint)) continue
    largest = Math.max(largest, Number(((change.pre - change.post) * 10_000n) / change.pre) / 100)
  }
  return largest
}
