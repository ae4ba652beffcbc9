import type { Address } from "@solana/kit"
import { Effect } from "effect"
import { pumpCurveOf, pumpCurveReserve } from "../Scanner/Pools/Pump.ts"
import { venueProgram } from "../Scanner/Programs.ts"
import type { RpcClient } from "../Scanner/Rpc.ts"

// What the watcher reads of its tracked mints when it begins tracking them: the mints' accounts (the state
// their account notifications are compared with) and their live pump.fun curves. A subscription sends changes
// only, so whatever is not read here is not known until the first change.

/** pump.fun's program: the owner of its bonding curves, and the program of their reserve drops. */
export const PUMP = venueProgram("pump-fun")

// Token mint layout (SPL and Token-2022 base): supply is bytes 36..44; everything else that changes
// (authorities, and Token-2022's extensions: fee, hook, pause...) is a state change worth a rescan.
const SUPPLY = { from: 36, to: 44 }
export const withoutSupply = (data: Uint8Array): string =>
  Buffer.concat([data.subarray(0, SUPPLY.from), data.subarray(SUPPLY.to)]).toString("base64")

interface AccountNow {
  readonly owner: string
  readonly data: Uint8Array
}

/** These accounts now (undefined where none), one getMultipleAccounts per 100 (the method's limit). */
const accountsOf = async (client: RpcClient, addresses: ReadonlyArray<Address>) => {
  const accounts: Array<AccountNow | undefined> = []
  for (let at = 0; at < addresses.length; at += 100) {
    const answer = await client
      .forScan(1)
      .rpc.getMultipleAccounts(addresses.slice(at, at + 100), { encoding: "base64", commitment: "confirmed" })
      .send()
    for (const account of answer.value)
      accounts.push(
        account === null || account === undefined
          ? undefined
          : { owner: account.owner, data: Uint8Array.from(Buffer.from(account.data[0], "base64")) }
      )
  }
  return accounts
}

/** These mints' accounts now, as the watcher compares them (supply left out; "closed" for none). */
export const mintStatesOf = (client: RpcClient, mints: ReadonlyArray<Address>) =>
  Effect.tryPromise(async () => {
    const accounts = await accountsOf(client, mints)
    return new Map(
      mints.map((mint, i) => {
        const account = accounts[i]
        return [mint as string, account === undefined ? "closed" : withoutSupply(account.data)] as const
      })
    )
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logWarning("stream: tracked mints' accounts not read; their first change starts the comparison", cause),
        new Map<string, string>()
      )
    )
  )

/**
 * Of these mints, the ones on a live pump.fun curve (its account exists, is the program's, decodes, and has
 * not completed), with the curve's address and real quote reserve now.
 */
export const liveCurvesOf = (client: RpcClient, mints: ReadonlyArray<Address>) =>
  Effect.tryPromise(async () => {
    const curves = mints.map((mint) => ({ mint, curve: pumpCurveOf(mint) }))
    const accounts = await accountsOf(
      client,
      curves.map((entry) => entry.curve)
    )
    const found: Array<{ readonly mint: Address; readonly curve: Address; readonly realQuote: bigint }> = []
    curves.forEach((entry, i) => {
      const account = accounts[i]
      if (account === undefined || account.owner !== PUMP) return
      const state = pumpCurveReserve(account.data)
      if (state !== undefined && !state.complete) found.push({ ...entry, realQuote: state.realQuote })
    })
    return found
  })
