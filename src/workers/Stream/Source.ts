import type { Address } from "@solana/kit"
import type { Effect } from "effect"
import type { TransactionView } from "./Decode.ts"

// The seam between where notifications come from and what the watcher does with them. The kit source
// (KitSource.ts) reads Solana's PubSub WebSocket; the Yellowstone source (YellowstoneSource.ts) reads a
// Geyser gRPC Subscribe stream: `transactions` filtered by account_include for `logs`, `accounts` by
// address, `slots`, with a replay from a slot (from_slot) in place of the signature backfill. See README,
// "The launch and event stream".

/** A transaction that mentions the subscribed address. */
export interface LogNotice {
  readonly signature: string
  readonly slot: bigint
  readonly failed: boolean
  /** The program logs; undefined for a backfilled transaction, whose logs come with getTransaction. */
  readonly logs: ReadonlyArray<string> | undefined
  /** Found by the gap fill after a reconnect, not pushed live. */
  readonly backfilled: boolean
  /**
   * The whole transaction when the source delivers it (a Geyser transaction update does): the watcher then
   * reads no getTransaction for it.
   */
  readonly transaction?: TransactionView
}

export interface AccountNotice {
  readonly slot: bigint
  /** The account's data; undefined when the account no longer exists. */
  readonly data: Uint8Array | undefined
}

export type Handler<N> = (notice: N) => Effect.Effect<void>

export interface StreamSource {
  /**
   * Every transaction that mentions `address`, live, and after each reconnect the ones missed while
   * down (bounded); runs until interrupted, reconnecting with backoff. Duplicates are possible across a
   * reconnect: the handler dedupes by signature.
   */
  readonly logs: (address: Address, handler: Handler<LogNotice>) => Effect.Effect<never>
  /** Every change of one account; runs until interrupted. */
  readonly account: (address: Address, handler: Handler<AccountNotice>) => Effect.Effect<never>
  /** The tip slot as the node reports it, for the lag figure; runs until interrupted. */
  readonly slots: (handler: Handler<bigint>) => Effect.Effect<never>
}
