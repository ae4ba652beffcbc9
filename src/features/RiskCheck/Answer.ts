import { invalidAddressMessage } from "../../domain/Address.ts"
import { epochMillisOf } from "../../domain/ScanEvidence.ts"
import { freshnessOf } from "../../domain/Verdict.ts"
import { assessTokenOnce, confidenceOf } from "../../engines/TokenScoring/index.ts"
import { ageFactorPctOf } from "../../engines/TokenScoring/confidence.ts"
import { bound, scanLookups } from "../../platform/Observability/Metrics.ts"
import { rescanUrlOf } from "../Scans/Errors.ts"
import type { CheckedScan } from "../Scans/ScansRepo.ts"
import { type StoredVerdict, storedVerdictOf } from "../Scans/ScanVerdict.ts"
import type { BatchResponse, RiskCheckResult } from "./Schemas.ts"

export const checkUrlOf = (address: string): string => `/api/risk-check/${encodeURIComponent(address)}`
const detailsUrlOf = (_address: string): string => "/api/v1/token/risk"

// When each scan was taken, parsed once per scan object (evidence is immutable).
const scannedMillis = new WeakMap<CheckedScan, number>()

/** What a verdict reads of a scan: its stored verdict, or its evidence and assessment (scored once). */
const verdictPartsOf = (scan: CheckedScan): Omit<StoredVerdict, "modelVersion"> =>
  "verdict" in scan ? scan.verdict : storedVerdictOf(scan.evidence, assessTokenOnce(scan.evidence))

const scannedAtOf = (scan: CheckedScan): string => ("verdict" in scan ? scan.verdict : scan.evidence).scannedAt

/** The age of a scan's evidence at `now`, in whole seconds (never negative). */
const ageSecondsOf = (scan: CheckedScan, now: number): number => {
  let millis = scannedMillis.get(scan)
  if (millis === undefined) {
    millis = epochMillisOf(scannedAtOf(scan))
    scannedMillis.set(scan, millis)
  }
  return Math.max(0, Math.floor((now - millis) / 1000))
}

/** The compact verdict for a mint from its latest scan (or none), as seen at `now`. */
export const riskCheckOf = (
  address: string,
  scan: CheckedScan | undefined,
  now: number,
  latencyMs: number
): RiskCheckResult => riskCheckAt(address, scan, scan === undefined ? 0 : ageSecondsOf(scan, now), latencyMs)

const riskCheckAt = (
  address: string,
  scan: CheckedScan | undefined,
  ageSeconds: number,
  latencyMs: number
): RiskCheckResult => {
  if (scan === undefined) {
    return {
      address,
      symbol: null,
      verdict: "unknown",
      score: null,
      confidence: 0,
      flags: [],
      freshness: "cold",
      scan_depth: "none",
      scanned_at: null,
      age_seconds: null,
      outcome: null,
      latency_ms: latencyMs,
      rescan_url: rescanUrlOf(address),
      details_url: detailsUrlOf(address)
    }
  }
  const parts = verdictPartsOf(scan)
  return {
    address,
    symbol: parts.symbol,
    verdict: parts.verdict,
    score: parts.safetyScore,
    confidence: confidenceOf(parts, parts, ageSeconds).score,
    flags: parts.flags,
    freshness: freshnessOf(ageSeconds),
    scan_depth: parts.scanDepth,
    scanned_at: parts.scannedAt,
    age_seconds: ageSeconds,
    outcome: parts.outcome,
    latency_ms: latencyMs,
    rescan_url: rescanUrlOf(address),
    details_url: detailsUrlOf(address)
  }
}

/** Cache-Control for a single check: edge-cacheable only while the evidence is fresh. */
const cacheControlOf = (result: RiskCheckResult): string =>
  result.freshness === "fresh"
    ? "public, max-age=60, stale-while-revalidate=300"
    : result.freshness === "stale"
      ? "public, max-age=15"
      : "no-cache"

export const MAX_BATCH = 50

const scanHits = bound(scanLookups, { result: "hit" })
const scanMisses = bound(scanLookups, { result: "miss" })

// A never-scanned mint's verdict differs from another's only by its address and its latency: its JSON is
// joined from the pieces of one made once (a valid address is base58, which JSON and the URLs keep as it is).
// Checked against JSON.stringify once here; were it ever different, every answer would be stringified.
const ADDRESS_MARK = "AddressMarkZq"
const LATENCY_MARK = "987654321"
const neverScannedPieces = JSON.stringify(riskCheckAt(ADDRESS_MARK, undefined, 0, Number(LATENCY_MARK))).split(
  new RegExp(`(${ADDRESS_MARK}|${LATENCY_MARK})`)
)
const NEVER_SCANNED_CACHE_CONTROL = cacheControlOf(riskCheckAt(ADDRESS_MARK, undefined, 0, 0))
const joinedNeverScanned = (address: string, latencyMs: number): string => {
  let json = ""
  for (const piece of neverScannedPieces)
    json += piece === ADDRESS_MARK ? address : piece === LATENCY_MARK ? latencyMs : piece
  return json
}
const SAMPLE = "So11111111111111111111111111111111111111112"
const piecesHold = joinedNeverScanned(SAMPLE, 12) === JSON.stringify(riskCheckAt(SAMPLE, undefined, 0, 12))

/** A valid, never-scanned address's verdict as JSON text: JSON.stringify(riskCheckAt(address, undefined, 0, latencyMs)). */
export const neverScannedJson = (address: string, latencyMs: number): string =>
  piecesHold ? joinedNeverScanned(address, latencyMs) : JSON.stringify(riskCheckAt(address, undefined, 0, latencyMs))

/** The distinct addresses a batch answers, in the order asked. */
export const batchAddressesOf = (addresses: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const distinct: Array<string> = []
  for (const address of addresses) {
    // "__proto__" can never be a mint, and JSON object encoders drop it as a key: it gets no entry.
    if (address === "__proto__" || seen.has(address)) continue
    seen.add(address)
    distinct.push(address)
  }
  return distinct
}

/**
 * A batch's answer: each distinct address's verdict from its latest scan, or its own invalid_address entry.
 * `scanOf` gives an address's latest scan, null when it was never scanned, undefined when it is not a
 * Solana address.
 */
export const batchOf = (
  distinct: ReadonlyArray<string>,
  scanOf: (address: string) => CheckedScan | null | undefined,
  now: number,
  latencyMs: number
): BatchResponse => {
  const results: Record<string, BatchResponse["results"][string]> = {}
  for (const address of distinct) {
    const scan = scanOf(address)
    results[address] =
      scan === undefined
        ? { address, error: { code: "invalid_address", message: invalidAddressMessage(address) } }
        : riskCheckOf(address, scan ?? undefined, now, latencyMs)
  }
  return { results, count: distinct.length, latency_ms: latencyMs }
}

/** A risk-check answer as it goes on the wire: the same bytes and caching on the fast path and through HttpApi. */
export interface WireAnswer {
  readonly body: string
  readonly cacheControl: string
}

// Pre-serialized answers. A scanned mint's verdict is the same bytes on every request except for
// age_seconds and latency_ms, and for what the age band decides (freshness, confidence, Cache-Control):
// so its JSON is kept per scan and per age band (the age factor of the confidence, which also fixes the
// freshness) as three fragments, and each answer splices the two numbers in. The fragments are cut
// from JSON.stringify of the very object riskCheckOf builds, so the bytes are the same by construction.
// Kept in a WeakMap on the scan object: they go when the cache lets the scan go.

interface Fragments {
  readonly address: string
  readonly freshness: string
  /** Up to and including `"age_seconds":`. */
  readonly head: string
  /** From after the age up to and including `"latency_ms":`. */
  readonly middle: string
  /** From after the latency to the end. */
  readonly tail: string
  readonly cacheControl: string
  /** The address as a batch's results key: `"address":`. */
  readonly key: string
  /** The last JSON joined from these fragments, with its age and latency: the same second's answers reuse it. */
  last: Joined | undefined
}

interface Joined {
  readonly ageSeconds: number
  readonly latencyMs: number
  readonly json: string
  readonly cacheControl: string
  /** The address as a batch's results key: `"address":`. */
  readonly key: string
  /** key + json, as a batch's entry; made once it is asked for. */
  entry: string | undefined
}

const fragmentsOf = new WeakMap<CheckedScan, Map<number, Fragments>>()
const AGE_KEY = ',"age_seconds":'
const LATENCY_KEY = ',"latency_ms":'

const cut = (address: string, scan: CheckedScan, ageSeconds: number): Fragments | undefined => {
  const result = riskCheckAt(address, scan, ageSeconds, 0)
  const json = JSON.stringify(result)
  // A key in quotes followed by a colon only occurs as structure: inside a JSON string a quote is escaped.
  const age = json.indexOf(AGE_KEY)
  const latency = json.indexOf(LATENCY_KEY)
  if (
    age === -1 ||
    latency === -1 ||
    json.indexOf(AGE_KEY, age + 1) !== -1 ||
    json.indexOf(LATENCY_KEY, latency + 1) !== -1
  )
    return undefined
  const ageEnd = age + AGE_KEY.length + String(ageSeconds).length
  const latencyEnd = latency + LATENCY_KEY.length + 1 // "0"
  return {
    address,
    freshness: result.freshness,
    head: json.slice(0, age + AGE_KEY.length),
    middle: json.slice(ageEnd, latency + LATENCY_KEY.length),
    tail: json.slice(latencyEnd),
    cacheControl: cacheControlOf(result),
    key: `${JSON.stringify(address)}:`,
    last: undefined
  }
}

/** The fragments of a scanned mint's verdict at `ageSeconds`; undefined when they cannot be used (then JSON.stringify). */
const fragmentsAt = (address: string, scan: CheckedScan, ageSeconds: number): Fragments | undefined => {
  // A verdict read alone (a batch's cold mint) answers once and is never kept: cutting it would cost more.
  if (!Number.isInteger(ageSeconds) || "verdict" in scan) return undefined
  const band = ageFactorPctOf(ageSeconds)
  let bands = fragmentsOf.get(scan)
  if (bands === undefined) {
    bands = new Map()
    fragmentsOf.set(scan, bands)
  }
  let fragments = bands.get(band)
  if (fragments === undefined) {
    fragments = cut(address, scan, ageSeconds)
    if (fragments === undefined) return undefined
    bands.set(band, fragments)
  }
  return fragments.address === address && fragments.freshness === freshnessOf(ageSeconds) ? fragments : undefined
}

/** A scanned mint's verdict as JSON text: JSON.stringify(riskCheckOf(address, scan, now, latencyMs)), from its fragments. */
const scannedJson = (address: string, scan: CheckedScan, now: number, latencyMs: number): Joined => {
  const ageSeconds = ageSecondsOf(scan, now)
  const fragments = fragmentsAt(address, scan, ageSeconds)
  if (fragments === undefined) {
    const result = riskCheckAt(address, scan, ageSeconds, latencyMs)
    return {
      ageSeconds,
      latencyMs,
      json: JSON.stringify(result),
      cacheControl: cacheControlOf(result),
      key: `${JSON.stringify(address)}:`,
      entry: undefined
    }
  }
  let last = fragments.last
  if (last === undefined || last.ageSeconds !== ageSeconds || last.latencyMs !== latencyMs) {
    const json = fragments.head + ageSeconds + fragments.middle + latencyMs + fragments.tail
    fragments.last = last = {
      ageSeconds,
      latencyMs,
      json,
      cacheControl: fragments.cacheControl,
      key: fragments.key,
      entry: undefined
    }
  }
  return last
}

/** A scanned mint's batch entry, `"address":{…}`, kept with its JSON for the same second's batches. */
const scannedEntry = (address: string, scan: CheckedScan, now: number, latencyMs: number): string => {
  const joined = scannedJson(address, scan, now, latencyMs)
  joined.entry ??= joined.key + joined.json
  return joined.entry
}

/** The answer for one valid address, from its latest scan (null: never scanned); `started` from performance.now(). */
export const checkAnswer = (address: string, scan: CheckedScan | null, started: number): WireAnswer => {
  const latencyMs = Math.round(performance.now() - started)
  if (scan === null) {
    scanMisses.inc()
    return { body: neverScannedJson(address, latencyMs), cacheControl: NEVER_SCANNED_CACHE_CONTROL }
  }
  scanHits.inc()
  const { cacheControl, json } = scannedJson(address, scan, Date.now(), latencyMs)
  return { body: json, cacheControl }
}

// An address a JavaScript object orders first (an array index) changes the order of a batch's results:
// such a batch is serialized from its object instead.
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/
const isArrayIndex = (key: string): boolean => ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295

/** Counts a batch's lookups: a scan is a hit, null (never scanned) a miss, undefined (not an address) neither. */
export const countLookups = (scans: ReadonlyArray<CheckedScan | null | undefined>): void => {
  let hits = 0
  let misses = 0
  for (const scan of scans) {
    if (scan === null) misses++
    else if (scan !== undefined) hits++
  }
  if (hits > 0) scanHits.inc(hits)
  if (misses > 0) scanMisses.inc(misses)
}

/** The answer for the distinct addresses of a batch: `scanOf` as for batchOf. Never cached. */
export const batchAnswer = (
  distinct: ReadonlyArray<string>,
  scanOf: (address: string) => CheckedScan | null | undefined,
  started: number
): WireAnswer => {
  const scans = distinct.map(scanOf)
  countLookups(scans)
  return {
    body: batchBodyAt(distinct, scans, Date.now(), Math.round(performance.now() - started)).body,
    cacheControl: "no-store"
  }
}

/**
 * A batch's body, JSON.stringify(batchOf(distinct, …, now, latencyMs)) where `scans[i]` is `distinct[i]`'s
 * scan (as for batchOf), and the instant (epoch ms) its first scanned entry changes age: until then, for
 * the same scan objects and latency, the body is the same bytes.
 */
export const batchBodyAt = (
  distinct: ReadonlyArray<string>,
  scans: ReadonlyArray<CheckedScan | null | undefined>,
  now: number,
  latencyMs: number
): { readonly body: string; readonly until: number } => {
  let until = Number.POSITIVE_INFINITY
  for (const scan of scans) {
    if (scan === null || scan === undefined) continue
    // The age is floor((now - taken) / 1000), at least 0: the same until `taken + (age + 1) s`.
    const age = ageSecondsOf(scan, now) // first: it keeps the scan's time in scannedMillis
    const changes = scannedMillis.get(scan)! + (age + 1) * 1000
    if (!(changes >= until)) until = changes // NaN (an unreadable time) makes the body never reused
  }
  if (distinct.some(isArrayIndex)) {
    const byAddress = new Map(distinct.map((address, i) => [address, scans[i]]))
    return {
      body: JSON.stringify(batchOf(distinct, (address) => byAddress.get(address), now, latencyMs)),
      until
    }
  }
  // JSON.stringify(batchOf(...)), joined from each verdict's fragments in one join (a flat string, not a
  // rope for the response to flatten): the head goes on the first entry, the tail on the last.
  const head = '{"results":{'
  const tail = `},"count":${distinct.length},"latency_ms":${latencyMs}}`
  if (distinct.length === 0) return { body: head + tail, until }
  const entries = new Array<string>(distinct.length)
  for (let i = 0; i < distinct.length; i++) {
    const address = distinct[i]!
    const scan = scans[i]
    entries[i] =
      scan === undefined
        ? `${JSON.stringify(address)}:${JSON.stringify({ address, error: { code: "invalid_address", message: invalidAddressMessage(address) } })}`
        : scan === null
          ? `${JSON.stringify(address)}:${neverScannedJson(address, latencyMs)}`
          : scannedEntry(address, scan, now, latencyMs)
  }
  entries[0] = head + entries[0]
  entries[distinct.length - 1] += tail
  return { body: entries.join(","), until }
}
