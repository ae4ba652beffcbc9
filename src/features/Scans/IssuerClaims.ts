import issuersFile from "../../domain/issuers.json" with { type: "json" }
import type { RecordedScan } from "./ScansRepo.ts"

const CURATED = new Set(issuersFile.issuers.map((entry) => entry.mint))

/**
 * An imported scan's claim to be issuer-verified, checked against the curated list (src/domain/issuers.json):
 * a claim without a match is stored as not verified. Returns the record as it is when there is nothing to
 * strip, else the stripped copy (the import report counts those).
 */
export const checkIssuerClaim = (scan: RecordedScan): RecordedScan => {
  if ("version" in scan)
    return scan.issuerVerified === null || CURATED.has(scan.mint) ? scan : { ...scan, issuerVerified: null }
  return !scan.verified || CURATED.has(scan.mint) ? scan : { ...scan, verified: false }
}
