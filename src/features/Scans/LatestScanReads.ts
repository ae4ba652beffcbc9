import { type Effect, Exit, Option } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ServiceUnavailable } from "../../domain/Errors.ts"
import type { ScanStore } from "./LatestScanStore.ts"
import type { CheckedScan, LatestReads, StoredScan } from "./ScansRepo.ts"

// The cache's loader: reads through to the repository, shared by concurrent misses of the same mint (an
// expiring hot mint would otherwise send every waiting request to the database at once), kept in the
// store when no invalidation overtook them.

export type Read = Promise<Exit.Exit<Option.Option<StoredScan>, ServiceUnavailable>>
type VerdictRead = Promise<Exit.Exit<Option.Option<CheckedScan>, ServiceUnavailable>>

export interface ReadsInFlight {
  readonly readThrough: (mint: Address, now: number) => Read
  /** The same for many mints: those already being read join that read, the others are read in one query. */
  readonly readManyThrough: (mints: ReadonlyArray<Address>, now: number) => ReadonlyArray<Read>
  /**
   * For a risk check's answers: the mints the store would keep (or already being read) as `readManyThrough`;
   * the others as their stored verdicts in one query (ScansRepo.latestVerdicts), shared with the verdict
   * reads in flight and never kept, but counted toward their admission; a mint found never scanned is
   * remembered as such, as by any read.
   */
  readonly readVerdictsThrough: (mints: ReadonlyArray<Address>, now: number) => ReadonlyArray<VerdictRead>
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
  // The verdict reads in flight, apart: a verdict answers a risk check only, so no other read joins one.
  const verdicts = new Map<string, VerdictRead>()
  const verdictsAnnounced = new Map<string, bigint>()

  // Whether a finished read may be kept: it is still the current read (no notification named its mint
  // meanwhile) and, if the poll saw a new scan of the mint meanwhile, it returned that scan or a later one.
  const keepableIn = (
    inFlight: Map<string, Promise<unknown>>,
    newest: Map<string, bigint>,
    mint: string,
    read: Promise<unknown>,
    scan: Option.Option<CheckedScan>
  ): boolean => {
    const current = inFlight.get(mint) === read
    if (current) inFlight.delete(mint)
    const newer = newest.get(mint)
    newest.delete(mint)
    return current && (newer === undefined || (Option.isSome(scan) && BigInt(scan.value.id) >= newer))
  }
  const keepable = (mint: string, read: Promise<unknown>, scan: Option.Option<StoredScan>): boolean =>
    keepableIn(reading, announced, mint, read, scan)

  // A finished verdict read: a mint found never scanned is remembered as such, a verdict only counted as read.
  const trackVerdict = (mint: Address, answer: VerdictRead, now: number): VerdictRead => {
    const read: VerdictRead = answer.then((exit) => {
      if (Exit.isSuccess(exit) && keepableIn(verdicts, verdictsAnnounced, mint, read, exit.value)) {
        if (Option.isNone(exit.value)) store.remember(mint, undefined, now)
        else store.noteRead(mint)
      } else if (verdicts.get(mint) === read) verdicts.delete(mint)
      return exit
    })
    verdicts.set(mint, read)
    return read
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

  const readManyThrough = (mints: ReadonlyArray<Address>, now: number): ReadonlyArray<Read> => {
    const fresh = mints.filter((mint) => !reading.has(mint))
    if (fresh.length > 0) {
      const fetched = runPromiseExit(inner.latestMany(fresh))
      for (const mint of fresh) {
        track(mint, fetched.then(Exit.map((found) => Option.fromNullable(found.get(mint)))), now)
      }
    }
    return mints.map((mint) => reading.get(mint)!)
  }

  // A whole read asked for with verdicts (latestVerdicts' `whole`): a latest scan, never a verdict alone.
  const wholeOf = (
    found: ReadonlyMap<string, CheckedScan>,
    mint: string
  ): Exit.Exit<Option.Option<StoredScan>, ServiceUnavailable> => {
    const scan = found.get(mint)
    if (scan !== undefined && "verdict" in scan) return Exit.die(new Error(`a verdict where ${mint} was read whole`))
    return Exit.succeed(Option.fromNullable(scan))
  }

  return {
    readThrough: (mint, now) => reading.get(mint) ?? track(mint, runPromiseExit(inner.latest(mint)), now),
    readManyThrough,
    readVerdictsThrough: (mints, now) => {
      // Those kept when read (or already read whole) whole, the others as verdicts: one statement for both.
      const whole: Array<Address> = []
      const fresh: Array<Address> = []
      for (const mint of mints) {
        if (reading.has(mint) || verdicts.has(mint)) continue
        if (store.wouldKeep(mint)) whole.push(mint)
        else fresh.push(mint)
      }
      if (whole.length > 0 || fresh.length > 0) {
        const fetched = runPromiseExit(inner.latestVerdicts(fresh, whole))
        for (const mint of whole) track(mint, fetched.then(Exit.flatMap((found) => wholeOf(found, mint))), now)
        for (const mint of fresh) {
          trackVerdict(mint, fetched.then(Exit.map((found) => Option.fromNullable(found.get(mint)))), now)
        }
      }
      return mints.map((mint) => reading.get(mint) ?? verdicts.get(mint)!)
    },
    forget: (mint) => {
      reading.delete(mint)
      verdicts.delete(mint)
    },
    announce: (mint, id) => {
      if (reading.has(mint)) announced.set(mint, id)
      if (verdicts.has(mint)) verdictsAnnounced.set(mint, id)
    },
    clear: () => {
      reading.clear()
      announced.clear()
      verdicts.clear()
      verdictsAnnounced.clear()
    }
  }
}
