import { getBase58Decoder } from "@solana/kit"
import type { SubscribeUpdateTransactionInfo } from "@triton-one/yellowstone-grpc"
import type { TransactionView } from "./Decode.ts"

// A Yellowstone (Geyser) transaction update read as the stream's decoder reads getTransaction's "json"
// answer (Decode.ts), so both sources feed the watcher the same view. Types only: the SDK's binding is not
// loaded here.

const base58 = getBase58Decoder()
export const toBase58 = (bytes: Uint8Array): string => base58.decode(bytes)

export const isKey = (bytes: Uint8Array | undefined): bytes is Uint8Array =>
  bytes instanceof Uint8Array && bytes.length === 32

/** A Geyser transaction as the decoder reads getTransaction's "json" answer; undefined when it is not whole. */
export const viewOf = (info: SubscribeUpdateTransactionInfo, slot: bigint): TransactionView | undefined => {
  const transaction = info.transaction
  const message = transaction?.message
  const meta = info.meta
  if (transaction === undefined || message === undefined || meta === undefined) return undefined
  if (info.signature.length !== 64 || transaction.signatures.some((signature) => signature.length !== 64))
    return undefined
  const keys = [...message.accountKeys, ...meta.loadedWritableAddresses, ...meta.loadedReadonlyAddresses]
  if (!keys.every(isKey)) return undefined
  const count = keys.length
  const instruction = (compiled: { programIdIndex: number; accounts: Uint8Array; data: Uint8Array }) =>
    compiled.programIdIndex < count && compiled.accounts.every((index) => index < count)
      ? { programIdIndex: compiled.programIdIndex, accounts: [...compiled.accounts], data: toBase58(compiled.data) }
      : undefined
  const instructions = message.instructions.map(instruction)
  const inner = meta.innerInstructions.map((entry) => ({
    index: entry.index,
    instructions: entry.instructions.map(instruction)
  }))
  if (instructions.includes(undefined) || inner.some((entry) => entry.instructions.includes(undefined)))
    return undefined
  const balances = (list: typeof meta.preTokenBalances) =>
    list.map((balance) => ({
      accountIndex: balance.accountIndex,
      mint: balance.mint,
      owner: balance.owner,
      uiTokenAmount: { amount: balance.uiTokenAmount?.amount ?? "0" }
    }))
  return {
    slot,
    // A Geyser transaction update carries no block time (the block's meta comes after its transactions).
    blockTime: null,
    transaction: {
      signatures: transaction.signatures.map(toBase58),
      message: {
        accountKeys: message.accountKeys.map(toBase58),
        ...(message.header === undefined ? {} : { header: message.header }),
        instructions: instructions.filter((entry) => entry !== undefined)
      }
    },
    meta: {
      // Geyser's error is the bincode of the TransactionError; present means failed.
      err: meta.err === undefined ? null : { bincode: toBase58(meta.err.err) },
      preTokenBalances: balances(meta.preTokenBalances),
      postTokenBalances: balances(meta.postTokenBalances),
      innerInstructions: meta.innerInstructionsNone
        ? null
        : inner.map((entry) => ({
            index: entry.index,
            instructions: entry.instructions.filter((value) => value !== undefined)
          })),
      loadedAddresses: {
        writable: meta.loadedWritableAddresses.map(toBase58),
        readonly: meta.loadedReadonlyAddresses.map(toBase58)
      }
    }
  }
}
