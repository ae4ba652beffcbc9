import type { CheckedScan } from "../Scans/ScansRepo.ts"
import { batchAddressesOf, batchBodyAt, countLookups, MAX_BATCH, type WireAnswer } from "./Answer.ts"

// The batch fast path's memory of recent batch bodies. A client polling the same batch (a bot watching a
// list of mints) sends the same body text again and again: its distinct addresses are parsed once per text,
// and its last answer is kept with the scan objects and latency it was made from, and reused while they
// are the same and no entry's age has changed (batchBodyAt says until when): the same bytes as made anew.
// (Kept as a string: kept as bytes too, a Response copies them, which costs what encoding the string does.)
// Bounded: the most recent KEPT_BODIES bodies of at most KEPT_BODY_CHARS characters each
// (about 2 MB at most with their answers; a 50-mint body is about 2.4 KB, its answer 23 KB), and the scans
// of each last answer.

const KEPT_BODIES = 64
const KEPT_BODY_CHARS = 8_192

interface LastAnswer {
  readonly scans: ReadonlyArray<CheckedScan | null | undefined>
  readonly latencyMs: number
  /** The answer holds for `from <= now < until` (epoch ms). */
  readonly from: number
  readonly until: number
  readonly body: string
}

/** A batch body's distinct addresses, in the order asked, and its last answer. */
export interface KeptBatch {
  readonly distinct: ReadonlyArray<string>
  last: LastAnswer | undefined
}

/** The contract's batch body and nothing else (anything unusual goes to HttpApi for its exact error). */
const batchAddressesIn = (body: unknown): ReadonlyArray<string> | undefined => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== "addresses") return undefined
  const addresses = (body as { readonly addresses: unknown }).addresses
  if (!Array.isArray(addresses) || addresses.length === 0 || addresses.length > MAX_BATCH) return undefined
  for (const address of addresses) {
    if (typeof address !== "string" || address.length > 128) return undefined
  }
  return addresses as ReadonlyArray<string>
}

/** Parses batch bodies, remembering the recent ones. */
export const makeKeptBatches = () => {
  const kept = new Map<string, KeptBatch>()
  return {
    /** The body's batch; undefined when the body is not exactly the contract's (then HttpApi answers it). */
    of: (text: string): KeptBatch | undefined => {
      const known = kept.get(text)
      if (known !== undefined) return known
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return undefined
      }
      const addresses = batchAddressesIn(parsed)
      if (addresses === undefined) return undefined
      const batch: KeptBatch = { distinct: batchAddressesOf(addresses), last: undefined }
      if (text.length <= KEPT_BODY_CHARS) {
        if (kept.size >= KEPT_BODIES) kept.delete(kept.keys().next().value!)
        kept.set(text, batch)
      }
      return batch
    },
    size: () => kept.size
  }
}

const sameScans = (
  a: ReadonlyArray<CheckedScan | null | undefined>,
  b: ReadonlyArray<CheckedScan | null | undefined>
) => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A batch's answer (as batchAnswer: `scans[i]` is `distinct[i]`'s scan, null never scanned, undefined not an
 * address), its last one when still the same bytes.
 */
export const keptBatchAnswer = (
  batch: KeptBatch,
  scans: ReadonlyArray<CheckedScan | null | undefined>,
  started: number
): WireAnswer => {
  countLookups(scans)
  const now = Date.now()
  const latencyMs = Math.round(performance.now() - started)
  const last = batch.last
  if (
    last !== undefined &&
    last.latencyMs === latencyMs &&
    now >= last.from &&
    now < last.until &&
    sameScans(last.scans, scans)
  )
    return { body: last.body, cacheControl: "no-store" }
  const { body, until } = batchBodyAt(batch.distinct, scans, now, latencyMs)
  batch.last = { scans, latencyMs, from: now, until, body }
  return { body, cacheControl: "no-store" }
}
