import { invalidAddressMessage } from "../Domain/Address.ts"
import { epochMillisOf } from "../Domain/ScanEvidence.ts"
import { freshnessOf } from "../Domain/Verdict.ts"
import { assessTokenOnce, confidenceOf } from "../Scoring/index.ts"
import { scanLookups } from "../Observability/Metrics.ts"
import { rescanUrlOf } from "../Scans/Errors.ts"
import type { StoredScan } from "../Scans/ScansRepo.ts"
import type { BatchResponse, RiskCheckResult } from "./Schemas.ts"

export const checkUrlOf = (address: string): string => `/api/risk-check/${encodeURIComponent(address)}`
const detailsUrlOf = (_address: string): string => "/api/v1/token/risk"

/** The compact verdict for a mint from its latest scan (or none), as seen at `now`. */
export const riskCheckOf = (
  address: string,
  scan: StoredScan | undefined,
  now: number,
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
  const evidence = scan.evidence
  const assessment = assessTokenOnce(evidence)
  const ageSeconds = Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))
  return {
    address,
    symbol: evidence.symbol,
    verdict: assessment.verdict,
    score: assessment.safetyScore,
    confidence: confidenceOf(assessment, evidence, ageSeconds).score,
    flags: assessment.flags,
    freshness: freshnessOf(ageSeconds),
    scan_depth: evidence.scanDepth,
    scanned_at: evidence.scannedAt,
    age_seconds: ageSeconds,
    outcome: evidence.outcome,
    latency_ms: latencyMs,
    rescan_url: rescanUrlOf(address),
    details_url: detailsUrlOf(address)
  }
}

/** Cache-Control for a single check: edge-cacheable only while the evidence is fresh. */
export const cacheControlOf = (result: RiskCheckResult): string =>
  result.freshness === "fresh"
    ? "public, max-age=60, stale-while-revalidate=300"
    : result.freshness === "stale"
    ? "public, max-age=15"
    : "no-cache"

export const MAX_BATCH = 50

/** The distinct addresses a batch answers, in the order asked. */
export const batchAddressesOf = (addresses: ReadonlyArray<string>): ReadonlyArray<string> =>
  // "__proto__" can never be a mint, and JSON object encoders drop it as a key: it gets no entry.
  [...new Set(addresses)].filter((address) => address !== "__proto__")

/**
 * A batch's answer: each distinct address's verdict from its latest scan, or its own invalid_address entry.
 * `scanOf` gives an address's latest scan, null when it was never scanned, undefined when it is not a
 * Solana address.
 */
export const batchOf = (
  distinct: ReadonlyArray<string>,
  scanOf: (address: string) => StoredScan | null | undefined,
  now: number,
  latencyMs: number
): BatchResponse => {
  const results: Record<string, BatchResponse["results"][string]> = {}
  for (const address of distinct) {
    const scan = scanOf(address)
    results[address] = scan === undefined
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

/** The answer for one valid address, from its latest scan (null: never scanned); `started` from performance.now(). */
export const checkAnswer = (address: string, scan: StoredScan | null, started: number): WireAnswer => {
  scanLookups.inc({ result: scan === null ? "miss" : "hit" })
  const result = riskCheckOf(address, scan ?? undefined, Date.now(), Math.round(performance.now() - started))
  return { body: JSON.stringify(result), cacheControl: cacheControlOf(result) }
}

/** The answer for the distinct addresses of a batch: `scanOf` as for batchOf. Never cached. */
export const batchAnswer = (
  distinct: ReadonlyArray<string>,
  scanOf: (address: string) => StoredScan | null | undefined,
  started: number
): WireAnswer => {
  let hits = 0
  let misses = 0
  for (const address of distinct) {
    const scan = scanOf(address)
    if (scan === null) misses++
    else if (scan !== undefined) hits++
  }
  scanLookups.inc({ result: "hit" }, hits)
  scanLookups.inc({ result: "miss" }, misses)
  const answer = batchOf(distinct, scanOf, Date.now(), Math.round(performance.now() - started))
  return { body: JSON.stringify(answer), cacheControl: "no-store" }
}
