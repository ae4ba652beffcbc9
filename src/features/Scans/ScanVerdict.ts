import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { MODEL_VERSION, type TokenAssessment } from "../../engines/TokenScoring/index.ts"

/**
 * What a risk-check verdict reads of a latest scan (RiskCheck/Answer.ts): the scan's symbol, depth, time and
 * outcome, and its assessment's verdict, score, flags and evidence completeness, with the model version that
 * scored it. Stored beside the latest scan (latest_scans.verdict, sql/0019), so the cold mints of a batch are
 * read with it alone, not with the evidence and the whole assessment.
 */
export interface StoredVerdict {
  readonly modelVersion: string
  readonly symbol: ScanEvidence["symbol"]
  readonly scanDepth: ScanEvidence["scanDepth"]
  readonly scannedAt: ScanEvidence["scannedAt"]
  readonly outcome: ScanEvidence["outcome"]
  readonly verdict: TokenAssessment["verdict"]
  readonly safetyScore: TokenAssessment["safetyScore"]
  readonly flags: TokenAssessment["flags"]
  readonly evidenceCompleteness: TokenAssessment["evidenceCompleteness"]
}

/** A latest scan read as its stored verdict only: answers a risk check, never kept by the scan cache. */
export interface VerdictScan {
  readonly id: string
  readonly verdict: StoredVerdict
}

/** The verdict's fields of a scan's evidence and its assessment (what the writer stores). */
export const storedVerdictOf = (evidence: ScanEvidence, assessment: TokenAssessment): StoredVerdict => ({
  modelVersion: assessment.modelVersion,
  symbol: evidence.symbol,
  scanDepth: evidence.scanDepth,
  scannedAt: evidence.scannedAt,
  outcome: evidence.outcome,
  verdict: assessment.verdict,
  safetyScore: assessment.safetyScore,
  flags: assessment.flags,
  evidenceCompleteness: assessment.evidenceCompleteness
})

/** A stored verdict this process's scoring model would give too (one of another model version is not used). */
export const isCurrentVerdict = (verdict: StoredVerdict | null | undefined): verdict is StoredVerdict =>
  verdict !== null && verdict !== undefined && verdict.modelVersion === MODEL_VERSION
