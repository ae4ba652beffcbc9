import { Schema } from "effect"

export const Verdict = Schema.Literal("block", "warn", "ok", "unknown").annotations({
  identifier: "Verdict",
  description: "block: score < 30, refuse to route. warn: 30 to 59, show the risk. ok: >= 60. unknown: never scanned."
})
export type Verdict = typeof Verdict.Type

export const Freshness = Schema.Literal("fresh", "stale", "cold").annotations({
  identifier: "Freshness",
  description: "fresh: scan younger than 5 minutes. stale: 5 minutes to 1 hour. cold: older than 1 hour, or no scan."
})
export type Freshness = typeof Freshness.Type

export const FRESH_SECONDS = 5 * 60
export const STALE_SECONDS = 60 * 60

export const verdictOf = (safetyScore: number): Exclude<Verdict, "unknown"> =>
  safetyScore < 30 ? "block" : safetyScore < 60 ? "warn" : "ok"

export const freshnessOf = (ageSeconds: number): Freshness =>
  ageSeconds < FRESH_SECONDS ? "fresh" : ageSeconds <= STALE_SECONDS ? "stale" : "cold"
