import { type Effect, Exit, Option } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ServiceUnavailable } from "../../domain/Errors.ts"
import type { ScanStore } from "./LatestScanStore.ts"
import type { LatestReads, StoredScan } from "./ScansRepo.ts"

// The cache's loader: reads through to the repository, shared by concurrent misses of the same mint (an
// expiring hot mint would otherwise send every waiting request to the database at once), kept in the
// store when no invalidation overtook them.

export type Read = Promise<Exit.Exit<Option.Option<StoredScan>, ServiceUnavailable>>

export interface ReadsInFlight {
  readonly readThrough: (mint: Address, now: number) => Read
  /** The same for many mints: those already being read join that read, the others are read in one query. */
  readonly readManyThrough: (mints: ReadonlyArray<Address>, now: number) => ReadonlyArray<Read>
  /** A notification named the mint: its read in flight may predate the commit, so it is not kept. */
  readonly forget: (mint: string) => void
  /** The poll saw scan `id` of the mint: a read in flight is kept only if it returned that scan or a later one. */
  readonly announce: (mint: string, id: bigint) => void
  readonly clear: () => void
}

export const makeReadsInFlight = (
  inner: LatestReads,
  store: ScanStore,
  runPromiseExit: <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>
): ReadsInFlight => {
  const reading = new Map<string, Read>()
  const announced = new Map<string, bigint>() // mints with a read in flight: id of the newest scan polled

  // Whether a finished read may be kept: it is still the current read (no notification named its mint
  // meanwhile) and, if the poll saw a new scan of the mint meanwhile, it returned that scan or a later one.
  const keepable = (mint: string, read: Promise<unknown>, scan: Option.Option<StoredScan>): boolean => {
    const current = reading.get(mint) === read
    if (current) reading.delete(mint)
    const newer = announced.get(mint)
    announced.delete(mint)
    return current && (newer === undefined || (Option.isSome(scan) && BigInt(scan.value.id) >= newer))
  }

  const track = (mint: Address, answer: Read, now: number): Read => {
    const read: Read = answer.then((exit) => {
      if (Exit.isSuccess(exit) && keepable(mint, read, exit.value))
        store.remember(mint, Option.getOrUndefined(exit.value), now)
      else if (reading.get(mint) === read) reading.delete(mint)
      return exit
    })
    reading.set(mint, read)
    return read
  }

  return {
    readThrough: (mint, now) => reading.get(mint) ?? track(mint, runPromiseExit(inner.latest(mint)), now),
    readManyThrough: (mints, now) => {
      const fresh = mints.filter((mint) => !reading.has(mint))
      if (fresh.length > 0) {
        const fetched = runPromiseExit(inner.latestMany(fresh))
        for (const mint of fresh) {
          track(mint, fetched.then(Exit.map((found) => Option.fromNullable(found.get(mint)))), now)
        }
      }
      return mints.map((mint) => reading.get(mint)!)
    },
    forget: (mint) => void reading.delete(mint),
    announce: (mint, id) => {
      if (reading.has(mint)) announced.set(mint, id)
    },
    clear: () => {
      reading.clear()
      announced.clear()
    }
  }
}
