import type { StoredScan } from "./ScansRepo.ts"

// The memory of the latest-scan cache: the latest scan per mint (or "never scanned"), each entry with
// its expiry and estimated heap bytes, bounded in entries and in bytes (oldest stored first out), and
// admitting a mint from its second read on. Beside it, the mints a read found never scanned, admitted at
// once but kept briefly (ABSENT_TTL_MS) and at most ABSENT_SIZE of them: repeated lookups of an unknown mint
// (a bot's batch of new mints, asked again and again) make no query, and a crawler's pass over unknown mints
// costs at most ABSENT_SIZE × ENTRY_BYTES (about 2 MB), never the hot set. A scan of such a mint drops it
// (the notification or the poll, as for any entry).

interface Entry {
  readonly scan: StoredScan | undefined // undefined: the mint has never been scanned
  readonly until: number
  /** Estimated heap bytes, measured once when stored (entryBytesOf). */
  readonly bytes: number
}

// The heap an entry holds, estimated once when it is stored, never per request. Measured on the demo
// evidence (test/bench/cacheBytes.ts): the parsed evidence takes about 1.3 bytes per byte of its JSON,
// and what the answers keep beside it for as long as the scan object lives (its assessment, and the
// pre-serialized verdict fragments of RiskCheck/Answer.ts for each age band it is answered in) about
// 2.4 KB more; the key, the entry and the Map slot about 200 bytes.
const ENTRY_BYTES = 200
const ANSWER_BYTES = 2_400
const HEAP_PER_JSON_BYTE = 1.3
export const entryBytesOf = (scan: StoredScan | undefined): number =>
  scan === undefined
    ? ENTRY_BYTES
    : ENTRY_BYTES + ANSWER_BYTES + Math.ceil(HEAP_PER_JSON_BYTE * JSON.stringify(scan.evidence).length)

const ABSENT_SIZE = 10_000
const ABSENT_TTL_MS = 5_000

export interface ScanStore {
  /** The mint's entry, or its never-scanned mark while it lasts. */
  readonly get: (mint: string) => Entry | undefined
  /**
   * `get` for a request's lookup: a never-scanned mark that answers counts as a read of the mint, so a mint
   * read twice is admitted to the store as it would be had the second read gone to the database.
   */
  readonly lookup: (mint: string, now: number) => Entry | undefined
  /** Keeps a read's answer, if the mint is admitted and fits; evicts the oldest entries past the bounds. */
  readonly remember: (mint: string, scan: StoredScan | undefined, now: number) => void
  /** Whether a read of the mint now would be kept (`remember`): it is held, or was read once before. */
  readonly wouldKeep: (mint: string) => boolean
  /** A read of the mint that is not kept (a verdict only) counts toward its admission as `remember` does. */
  readonly noteRead: (mint: string) => void
  readonly drop: (mint: string) => void
  readonly dropAll: () => void
  readonly entries: () => number
  readonly bytes: () => number
}

export const makeScanStore = (settings: {
  readonly size: number
  readonly maxBytes: number
  readonly ttlMs: number
}): ScanStore => {
  const entries = new Map<string, Entry>()
  const absent = new Map<string, Entry>()
  let bytes = 0 // the sum of the entries' bytes
  const drop = (mint: string): void => {
    absent.delete(mint)
    const entry = entries.get(mint)
    if (entry === undefined) return
    bytes -= entry.bytes
    entries.delete(mint)
  }
  const dropAll = (): void => {
    entries.clear()
    absent.clear()
    bytes = 0
  }

  // Never-scanned marks: oldest first out past ABSENT_SIZE, expired when asked about after ABSENT_TTL_MS.
  const absentTtlMs = Math.min(ABSENT_TTL_MS, settings.ttlMs)
  const markAbsent = (mint: string, now: number): void => {
    absent.delete(mint)
    absent.set(mint, { scan: undefined, until: now + absentTtlMs, bytes: ENTRY_BYTES })
    if (absent.size > ABSENT_SIZE) absent.delete(absent.keys().next().value!)
  }
  const absentEntry = (mint: string, now: number): Entry | undefined => {
    const mark = absent.get(mint)
    if (mark === undefined) return undefined
    if (mark.until > now) return mark
    absent.delete(mint)
    return undefined
  }

  // Admission: a mint not in memory is kept the second time it is read within the last SCAN_CACHE_SIZE
  // first reads. One pass over many mints (a crawler, a sweep of a whole list) then neither flushes the
  // hot set nor churns the heap, which under a non-moving garbage collector costs far more resident
  // memory than the entries themselves; a mint asked about twice is kept from then on.
  let seenOnce = new Set<string>()
  const seen = (mint: string): void => {
    if (seenOnce.size >= settings.size) seenOnce = new Set()
    seenOnce.add(mint)
  }
  const admitted = (mint: string): boolean => {
    if (entries.has(mint) || seenOnce.delete(mint)) return true
    seen(mint)
    return false
  }

  const keep = (mint: string, scan: StoredScan | undefined, now: number): void => {
    const previous = entries.get(mint)
    // A refresh that read the same scan again keeps its measure.
    const size = previous !== undefined && previous.scan?.id === scan?.id ? previous.bytes : entryBytesOf(scan)
    drop(mint)
    if (size > settings.maxBytes) return
    entries.set(mint, { scan, until: now + settings.ttlMs, bytes: size })
    bytes += size
    while (entries.size > settings.size || bytes > settings.maxBytes) {
      const oldest = entries.keys().next()
      if (oldest.done) break
      drop(oldest.value)
    }
  }

  const remember = (mint: string, scan: StoredScan | undefined, now: number): void => {
    if (scan === undefined) markAbsent(mint, now)
    else absent.delete(mint)
    if (admitted(mint)) keep(mint, scan, now)
  }
  const lookup = (mint: string, now: number): Entry | undefined => {
    const entry = entries.get(mint)
    if (entry !== undefined) return entry
    const mark = absentEntry(mint, now)
    if (mark !== undefined && admitted(mint)) {
      keep(mint, undefined, now)
      return entries.get(mint) ?? mark
    }
    return mark
  }
  return {
    get: (mint) => entries.get(mint) ?? absentEntry(mint, Date.now()),
    lookup,
    remember,
    wouldKeep: (mint) => entries.has(mint) || seenOnce.has(mint),
    noteRead: (mint) => {
      if (!entries.has(mint) && !seenOnce.has(mint)) seen(mint)
    },
    drop,
    dropAll,
    entries: () => entries.size,
    bytes: () => bytes
  }
}
