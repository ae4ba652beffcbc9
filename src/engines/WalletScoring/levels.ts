import type { Severity } from "../../domain/WalletEvidence.ts"
import { RISK_LEVEL_THRESHOLDS } from "./model.ts"
import type { WalletAction, WalletRiskLevel } from "./types.ts"

export const riskLevelOf = (riskScore: number): WalletRiskLevel =>
  riskScore >= RISK_LEVEL_THRESHOLDS.critical
    ? "critical"
    : riskScore >= RISK_LEVEL_THRESHOLDS.high
      ? "high"
      : riskScore >= RISK_LEVEL_THRESHOLDS.medium
        ? "medium"
        : "low"

export const ACTION_BY_LEVEL: Readonly<Record<WalletRiskLevel, WalletAction>> = {
  low: "allow",
  medium: "monitor",
  high: "review",
  critical: "escalate"
}

// Nothing cached is not a clean result: the wallet is watched, not allowed.
export const NO_EVIDENCE_ACTION: WalletAction = "monitor"

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 }

export const isAdverse = (severity: Severity): boolean => SEVERITY_RANK[severity] >= SEVERITY_RANK.medium

// Text from importers is free-form; labels and categories compare without case or surrounding spaces.
export const normalised = (text: string): string => text.trim().toLowerCase()

// Code-unit order, the same on every runtime whatever its locale data (localeCompare is not).
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
