import { type Address, getU16Encoder, getUtf8Encoder } from "@solana/kit"
import { decodeLock } from "./Pools/Lockers.ts"
import { QUOTE_MINTS as QUOTES, type QuoteMint, USDC, WSOL } from "./Pools/Quotes.ts"
import { POOL_PROGRAMS, type PoolProgram, type PoolState } from "./Pools/Venue.ts"
import type { ScanRpc } from "./Rpc.ts"
import { programDerivedAddress } from "./Pools/Curve.ts"
import { keyBytes } from "./Pools/Bytes.ts"

// Where a mint trades, found in two ways (issue 14): canonical pool addresses, which the programs derive
// from the mints and which the scan reads in its first getMultipleAccounts; and getProgramAccounts with
// dataSize + memcmp on each mint offset for the programs whose pools have no address derivable from the
// mints alone (Raydium AMM v4 and CLMM, Meteora DAMM v1/v2 and the dynamic bonding curve). Discovery
// calls go out in the scan's second stage, batched with the holder and history reads.

export { USDC, WSOL } from "./Pools/Quotes.ts"

/** The quote assets a pool's other side is valued in (Pools/Quotes.ts), by mint. */
export const QUOTE_MINTS: ReadonlyMap<string, QuoteMint> = new Map(QUOTES.map((quote) => [quote.mint, quote]))

/** Orca's mainnet WhirlpoolsConfig: @orca-so/whirlpools src/config.ts (WHIRLPOOLS_CONFIG_ADDRESS, mainnet). */
const WHIRLPOOLS_CONFIG = "2LecshUwdy9xi7meFgHtFJQNSKk4KdTrcpvaB56dP2NQ" as Address
const WHIRLPOOL_PROGRAM = "whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc" as Address

/**
 * The default reference SOL–USDC pool for SOL/USD: Orca's SOL/USDC Whirlpool at tick spacing 4, derived as
 * the program derives it (seeds "whirlpool", config, mint A, mint B, tick spacing) rather than copied.
 */
export const defaultReferencePool = async (): Promise<Address> =>
  (
    await programDerivedAddress({
      programAddress: WHIRLPOOL_PROGRAM,
      seeds: [
        getUtf8Encoder().encode("whirlpool"),
        keyBytes(WHIRLPOOLS_CONFIG),
        keyBytes(WSOL),
        keyBytes(USDC),
        getU16Encoder().encode(4)
      ]
    })
  )[0]

const byProgram = new Map<string, PoolProgram>(POOL_PROGRAMS.map((program) => [program.program, program]))

export const poolProgramOf = (state: PoolState): PoolProgram | undefined =>
  POOL_PROGRAMS.find((program) => program.venue === state.venue)

/** The pool state of an account owned by a pool program, when it decodes as one. */
export const decodePool = (address: Address, owner: Address, data: Uint8Array): PoolState | undefined =>
  byProgram.get(owner)?.decode(address, data)

/**
 * Canonical pool addresses of a mint against the quote mints, across the programs that derive them: 58
 * PDAs, about 20 ms of CPU (each bump tried is an ed25519 on-curve test in bigint arithmetic), the
 * largest CPU cost of a scan. The scanner rescans the same mints (watches, popular mints), so the
 * addresses of the last CANONICAL_CACHE mints are kept (about 4 KB each). First in, first out and never
 * refreshed on a hit: pump.fun's decoder remembers the curves `canonical` derived for longer (10,000),
 * so a cached mint's curve is always still known to it.
 */
export const canonicalPoolsOf = (mint: Address, quotes: ReadonlyArray<Address>): Promise<ReadonlyArray<Address>> => {
  const key = `${mint}:${quotes.join(",")}`
  const cached = canonicalCache.get(key)
  if (cached !== undefined) return cached
  const derived = Promise.all(
    POOL_PROGRAMS.map(
      (program) =>
        program.canonical?.(
          mint,
          quotes.filter((quote) => quote !== mint)
        ) ?? Promise.resolve([])
    )
  ).then((lists) => [...new Set(lists.flat())] as ReadonlyArray<Address>)
  canonicalCache.set(key, derived)
  derived.catch(() => canonicalCache.delete(key))
  if (canonicalCache.size > CANONICAL_CACHE) {
    const oldest = canonicalCache.keys().next()
    if (oldest.done !== true) canonicalCache.delete(oldest.value)
  }
  return derived
}
const CANONICAL_CACHE = 4_096
const canonicalCache = new Map<string, Promise<ReadonlyArray<Address>>>()

/** One getProgramAccounts call of the discovery: a program and the mint offset it filters on. */
export interface DiscoveryCall {
  readonly program: PoolProgram
  readonly offset: number
}

/** The discovery calls for programs without canonical addresses (one per mint offset). */
export const discoveryCalls = (): ReadonlyArray<DiscoveryCall> =>
  POOL_PROGRAMS.filter((program) => program.canonical === undefined).flatMap((program) =>
    program.mintOffsets.map((offset) => ({ program, offset }))
  )

/** Runs one discovery call: the pools of `program` whose mint at `offset` is the scanned mint. */
export const discover = (rpc: ScanRpc, call: DiscoveryCall, mint: Address, minContextSlot: bigint) =>
  rpc
    .getProgramAccounts(call.program.program, {
      encoding: "base64",
      commitment: "confirmed",
      minContextSlot,
      withContext: true,
      filters: [
        { dataSize: BigInt(call.program.dataSize) },
        { memcmp: { offset: BigInt(call.offset), bytes: mint as string as never, encoding: "base58" } }
      ]
    })
    .send()
    .then((answer) => {
      if (answer.context.slot < minContextSlot)
        throw new Error(`answer from slot ${answer.context.slot}, older than ${minContextSlot}`)
      return answer.value.map((entry) => ({
        address: entry.pubkey,
        owner: entry.account.owner,
        data: Uint8Array.from(Buffer.from(entry.account.data[0], "base64"))
      }))
    })

/** The lock behind an LP holder: its unlock time, read from the locker's state account where it has one. */
export const lockOf = (
  venue: string,
  data: Uint8Array | null
): { readonly unlockAt: Date | null; readonly permanent: boolean | null } => {
  if (data === null) return { unlockAt: null, permanent: null }
  const lock = decodeLock(venue, data)
  return lock === undefined
    ? { unlockAt: null, permanent: null }
    : { unlockAt: lock.unlockAt, permanent: lock.permanent }
}
