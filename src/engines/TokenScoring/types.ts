import type { Flag } from "./flags.ts"
import type { Facet, HardCap } from "./model.ts"

export type RiskLevel = "low" | "medium" | "high" | "critical"
export type RecommendedAction = "proceed" | "monitor" | "caution" | "avoid"

export type Facets = { readonly [F in Facet]: number }

export interface BreakdownEntry {
  readonly name: string
  readonly points: number
  readonly reason: string
}

export interface TokenAssessment {
  readonly modelVersion: string
  readonly safetyScore: number
  /** block < 30 <= warn < 60 <= ok; thin evidence is `warn` at best whatever the score. */
  readonly verdict: "block" | "warn" | "ok"
  readonly riskScore: number
  readonly riskLevel: RiskLevel
  readonly recommendedAction: RecommendedAction
  readonly summary: string
  readonly facets: Facets
  readonly hardCaps: ReadonlyArray<string>
  readonly risks: ReadonlyArray<string>
  readonly scoreBreakdown: ReadonlyArray<BreakdownEntry>
  readonly flags: ReadonlyArray<Flag>
  readonly evidenceCompleteness: number
}

export type ConfidenceLabel = "high" | "medium" | "low"

export interface Confidence {
  readonly label: ConfidenceLabel
  readonly score: number
}

// What one rule concluded from the evidence: the points it removes and why.
export interface Finding {
  readonly rule: string
  readonly facet: Facet
  readonly points: number
  readonly reason: string
  readonly risk: string
  readonly flag: Flag | null
  readonly cap: HardCap | null
}
