import { epochMillisOf, type ScanEvidence } from "../../domain/ScanEvidence.ts"
import { confidenceOf } from "../TokenScoring/confidence.ts"
import { observe } from "../TokenScoring/observed.ts"
import { assessToken } from "../TokenScoring/score.ts"
import type { RiskLevel } from "../TokenScoring/types.ts"
import { roundTo2 } from "./format.ts"
import { isStale, maxPressureLevel, maxRiskLevel } from "./levels.ts"
import { limitationsWhen } from "./limitations.ts"
import {
  DEFAULT_MAX_EVIDENCE_AGE_SECONDS,
  MONITOR_NEXT_CHECK_BY_DECISION,
  MONITOR_NEXT_CHECK_BY_PRESSURE,
  type PressureLevel,
  SINGLE_SCAN_CONFIDENCE_FACTOR,
  VERDICT_FLOOR
} from "./model.ts"
import { MONITOR_FALLBACK, MONITOR_RULES, type MonitorFacts } from "./monitorRules.ts"
import { pressureOf } from "./pressure.ts"
import type { MonitorDecision, MonitorInput } from "./types.ts"
import { describeRule, evaluateWatchRules, metricsOf } from "./watchRules.ts"

const RISK_BY_PRESSURE: Readonly<Record<PressureLevel, RiskLevel>> = {
  none: "low",
  low: "low",
  medium: "medium",
  high: "high"
}

// From the last scan at or before entry (the position's baseline) to the latest; all of it without an entry time.
const windowSinceEntry = (
  history: ReadonlyArray<ScanEvidence>,
  entryTime: string | null
): ReadonlyArray<ScanEvidence> => {
  if (entryTime === null) return history
  const entry = epochMillisOf(entryTime)
  const before = history.filter((scan) => epochMillisOf(scan.scannedAt) <= entry).length
  return before <= 1 ? history : history.slice(before - 1)
}

const factsOf = (input: MonitorInput): MonitorFacts => {
  const latest = input.history[input.history.length - 1] ?? input.history[0]
  const window = windowSinceEntry(input.history, input.entryTime)
  const first = window[0] ?? latest
  const baseline = input.entryAssessment ?? (window.length > 1 ? assessToken(first) : null)
  const entry = { priceUsd: input.entryPriceUsd ?? first.market.priceUsd, liquidityUsd: observe(first).liquidityUsd }
  const metrics = metricsOf(latest, input.assessment, entry)
  const liquidityUsd = metrics.liquidity_usd
  const maxAgeSeconds = input.maxEvidenceAgeSeconds ?? DEFAULT_MAX_EVIDENCE_AGE_SECONDS
  return {
    input,
    window,
    latest,
    readings: pressureOf({
      window,
      first,
      latest,
      assessment: input.assessment,
      baseline,
      entryPriceUsd: input.entryPriceUsd
    }),
    hits: evaluateWatchRules(input.watchRules ?? [], metrics),
    verdict: input.assessment.verdict,
    maxAgeSeconds,
    stale: isStale(input.evidenceAgeSeconds, maxAgeSeconds),
    positionShare:
      input.sizeUsd === null || liquidityUsd === null || liquidityUsd === 0 ? null : input.sizeUsd / liquidityUsd
  }
}

const invalidationOf = (facts: MonitorFacts): ReadonlyArray<string> => [
  ...(facts.verdict === "block" ? [] : [`safety score drops below ${VERDICT_FLOOR.warn} (exit)`]),
  ...facts.readings.flatMap((reading) => (reading.escalation === null ? [] : [reading.escalation])),
  ...facts.hits
    .filter((ruleHit) => !ruleHit.hit)
    .map((ruleHit) => `watch rule ${describeRule(ruleHit.rule)} hits (reduce)`),
  facts.stale
    ? `a scan younger than ${facts.maxAgeSeconds} s is available (rescan)`
    : `evidence older than ${facts.maxAgeSeconds} s (review_required)`
]

const summaryOf = (facts: MonitorFacts, headline: string, maxPressure: PressureLevel, nextCheck: number): string => {
  const { assessment, evidenceAgeSeconds } = facts.input
  const elevated = facts.readings
    .map((reading) => reading.signal)
    .filter((signal) => signal.level === "medium" || signal.level === "high")
    .map((signal) => `${signal.signal} ${signal.level}`)
  const hitCount = facts.hits.filter((ruleHit) => ruleHit.hit).length
  return [
    headline,
    `Safety score ${assessment.safetyScore}/100, ${assessment.riskLevel} risk;`,
    `highest pressure ${maxPressure}${elevated.length > 0 ? ` (${elevated.join(", ")})` : ""} over ${facts.window.length} scans;`,
    `${hitCount} of ${facts.hits.length} watch rules hit; evidence ${Math.round(evidenceAgeSeconds)} s old;`,
    `check again in ${nextCheck} s.`
  ].join(" ")
}

export const monitorDecision = (input: MonitorInput): MonitorDecision => {
  const facts = factsOf(input)
  const matched = MONITOR_RULES.flatMap((rule) => {
    const reason = rule.reasonOf(facts)
    return reason === null ? [] : [{ rule, reason }]
  })
  const deciding = matched[0] ?? { rule: MONITOR_FALLBACK, reason: MONITOR_FALLBACK.reasonOf(facts) }
  const reasons = (matched.length > 0 ? matched : [deciding]).map(({ reason, rule }) => `${rule.id}: ${reason}`)
  const decision = deciding.rule.decision
  const pressure = facts.readings.map((reading) => reading.signal)
  const maxPressure = maxPressureLevel(pressure.map((signal) => signal.level))
  const nextCheck = Math.min(MONITOR_NEXT_CHECK_BY_PRESSURE[maxPressure], MONITOR_NEXT_CHECK_BY_DECISION[decision])
  const singleScan = facts.window.length < 2
  const confidence = confidenceOf(input.assessment, facts.latest, input.evidenceAgeSeconds).score / 100
  return {
    decision,
    confidence: roundTo2(singleScan ? confidence * SINGLE_SCAN_CONFIDENCE_FACTOR : confidence),
    risk: maxRiskLevel(input.assessment.riskLevel, RISK_BY_PRESSURE[maxPressure]),
    pressure,
    watch_rules_hit: facts.hits,
    next_check_after_seconds: nextCheck,
    summary: summaryOf(facts, `${decision}: ${deciding.reason}.`, maxPressure, nextCheck),
    invalidation: invalidationOf(facts),
    reasons,
    limitations: limitationsWhen([
      ["single_scan_history", singleScan],
      ["entry_price_missing", input.entryPriceUsd === null],
      ["stale_evidence", facts.stale]
    ])
  }
}
