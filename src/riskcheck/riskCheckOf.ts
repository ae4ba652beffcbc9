import type { RiskCheckResult } from "../domain/RiskCheck.ts"
import { epochMillisOf } from "../domain/ScanEvidence.ts"
import { freshnessOf, verdictOf } from "../domain/Verdict.ts"
import { assessToken, confidenceOf } from "../scoring/index.ts"
import type { StoredScan } from "../services/ScanCache.ts"

export const rescanUrlOf = (address: string): string => `/api/risk-check/${encodeURIComponent(address)}/rescan`
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
  const assessment = assessToken(evidence)
  const ageSeconds = Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))
  return {
    address,
    symbol: evidence.symbol,
    verdict: verdictOf(assessment.safetyScore),
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
