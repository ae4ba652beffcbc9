import type { Severity, WalletExposure, WalletLabel } from "../../domain/WalletEvidence.ts"

export type WalletRiskLevel = "low" | "medium" | "high" | "critical"
export type WalletAction = "allow" | "monitor" | "review" | "escalate"
export type WalletConfidence = "high" | "medium" | "low"
export type WalletSource = "wallet_labels" | "wallet_exposures" | "token_scans"

export interface DeployedToken {
  readonly address: string
  readonly name: string | null
  readonly symbol: string | null
  readonly safetyScore: number
  readonly isHoneypot: boolean | null
  readonly lpLocked: boolean | null
  readonly scannedAt: string
  readonly outcome: "active" | "rugged" | "abandoned" | null
}

export interface DeployerRecord {
  readonly launches: number
  readonly rugged: number
  readonly honeypots: number
}

// Everything cached about one wallet; the model reads nothing else.
export interface WalletEvidence {
  readonly walletAddress: string
  readonly labels: ReadonlyArray<WalletLabel>
  readonly exposures: ReadonlyArray<WalletExposure>
  readonly counterpartyLabels: ReadonlyMap<string, ReadonlyArray<WalletLabel>>
  readonly counterpartyLaunches: ReadonlyMap<string, DeployerRecord>
  readonly deployedTokens: ReadonlyArray<DeployedToken>
}

export interface WalletSignal {
  readonly label: string
  readonly severity: Severity
  readonly points: number
  readonly detail: string
  readonly source: string
}

export interface WalletAssessment {
  readonly riskScore: number
  readonly riskLevel: WalletRiskLevel
  readonly confidence: WalletConfidence
  readonly summary: string
  readonly recommendedAction: WalletAction
  readonly signals: ReadonlyArray<WalletSignal>
  readonly sources: ReadonlyArray<WalletSource>
  readonly modelVersion: string
  readonly hasEvidence: boolean
}

// What one rule found: the signal, and the short phrase the summary quotes for it.
export interface Finding {
  readonly signal: WalletSignal
  readonly headline: string
}

export type SignalRule = (evidence: WalletEvidence) => ReadonlyArray<Finding>
