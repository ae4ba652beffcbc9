import type { StoredScan } from "./ScansRepo.ts"

// The memory of the latest-scan cache: the latest scan per mint (or "never scanned"), each entry with
// its expiry and estimated heap bytes, bounded in entries and in bytes (oldest stored first out), and
// admitting a mint from its second read on.

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

export interface ScanStore {
  readonly get: (mint: string) => Entry | undefined
  /** Keeps a read's answer, if the mint is admitted and fits; evicts the oldest entries past the bounds. */
  readonly remember: (mint: string, scan: StoredScan | undefined, now: number) => void
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
  let bytes = 0 // the sum of the entries' bytes
  const drop = (mint: string): void => {
    const entry = entries.get(mint)
    if (entry === undefined) return
    bytes -= entry.bytes
    entries.delete(mint)
  }
  const dropAll = (): void => {
    entries.clear()
    bytes = 0
  }

  // Admission: a mint not in memory is kept the second time it is read within the last SCAN_CACHE_SIZE
  // first reads. One pass over many mints (a crawler, a sweep of a whole list) then neither flushes the
  // hot set nor churns the heap, which under a non-moving garbage collector costs far more resident
  // memory than the entries themselves; a mint asked about twice is kept from then on.
  let seenOnce = new Set<string>()
  const admitted = (mint: string): boolean => {
    if (entries.has(mint) || seenOnce.delete(mint)) return true
    if (seenOnce.size >= settings.size) seenOnce = new Set()
    seenOnce.add(mint)
    return false
  }

  const remember = (mint: string, scan: StoredScan | undefined, now: number): void => {
    if (!admitted(mint)) return
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
  return { get: (mint) => entries.get(mint), remember, drop, dropAll, entries: () => entries.size, bytes: () => bytes }
}
