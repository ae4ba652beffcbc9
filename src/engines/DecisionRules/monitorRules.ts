import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { formatPct } from "../TokenScoring/observed.ts"
import { SIZE_REVIEW_SHARE, VERDICT_FLOOR } from "./model.ts"
import type { PressureReading } from "./pressure.ts"
import { priceImpactPctOf } from "./preTradeRules.ts"
import type { MonitorDecisionValue, MonitorInput, PressureSignal, PressureSignalName, RuleHit } from "./types.ts"
import { describeRule } from "./watchRules.ts"

// What the rules read, derived once from the input.
export interface MonitorFacts {
  readonly input: MonitorInput
  readonly window: ReadonlyArray<ScanEvidence>
  readonly latest: ScanEvidence
  readonly readings: ReadonlyArray<PressureReading>
  readonly hits: ReadonlyArray<RuleHit>
  readonly verdict: "block" | "warn" | "ok"
  readonly maxAgeSeconds: number
  readonly stale: boolean
  // sizeUsd / liquidity of the latest scan; null without a size or observed liquidity.
  readonly positionShare: number | null
}

export interface MonitorRule {
  readonly id: string
  readonly decision: MonitorDecisionValue
  // The reason when the rule matches, null when it does not.
  readonly reasonOf: (facts: MonitorFacts) => string | null
}

const signalsAt = (facts: MonitorFacts, level: PressureSignal["level"]): ReadonlyArray<PressureSignal> =>
  facts.readings.map((reading) => reading.signal).filter((signal) => signal.level === level)

const signalAt = (
  facts: MonitorFacts,
  name: PressureSignalName,
  level: PressureSignal["level"]
): PressureSignal | undefined => signalsAt(facts, level).find((signal) => signal.signal === name)

const listed = (signals: ReadonlyArray<PressureSignal>): string =>
  signals.map((signal) => `${signal.signal} ${signal.level} (${signal.detail})`).join("; ")

const scoreText = (facts: MonitorFacts) => `safety score ${facts.input.assessment.safetyScore}/100`

// First match decides; every matching rule is listed in `reasons`. docs/decision-engine.md has the same table.
export const MONITOR_RULES: ReadonlyArray<MonitorRule> = [
  {
    id: "new_hard_cap",
    decision: "exit",
    reasonOf: (facts) => {
      const signal = signalAt(facts, "new_hard_caps", "high")
      if (signal === undefined) return null
      const honeypot = facts.input.assessment.flags.includes("honeypot")
        ? " (a simulated sell failed: the exit may not execute)"
        : ""
      return `${signal.detail}${honeypot}`
    }
  },
  {
    id: "verdict_block",
    decision: "exit",
    reasonOf: (facts) =>
      facts.verdict === "block" ? `${scoreText(facts)} is below ${VERDICT_FLOOR.warn} (verdict block)` : null
  },
  {
    id: "liquidity_drain",
    decision: "exit",
    reasonOf: (facts) => signalAt(facts, "liquidity_drain", "high")?.detail ?? null
  },
  {
    id: "stacked_pressure",
    decision: "exit",
    reasonOf: (facts) => {
      const high = signalsAt(facts, "high")
      return high.length >= 2 ? `${high.length} high pressure signals: ${listed(high)}` : null
    }
  },
  {
    id: "stale_evidence",
    decision: "review_required",
    reasonOf: (facts) =>
      facts.stale
        ? `the latest scan is ${Math.round(facts.input.evidenceAgeSeconds)} s old, older than the allowed ${facts.maxAgeSeconds} s; rescan before acting`
        : null
  },
  {
    id: "watch_rule_hit",
    decision: "reduce",
    reasonOf: (facts) => {
      const hit = facts.hits.filter((ruleHit) => ruleHit.hit)
      if (hit.length === 0) return null
      return hit.map((ruleHit) => `${describeRule(ruleHit.rule)} (value ${ruleHit.value})`).join("; ")
    }
  },
  {
    id: "high_pressure",
    decision: "reduce",
    reasonOf: (facts) => {
      const high = signalsAt(facts, "high")
      return high.length > 0 ? listed(high) : null
    }
  },
  {
    id: "medium_pressure",
    decision: "tighten",
    reasonOf: (facts) => {
      const medium = signalsAt(facts, "medium")
      return medium.length > 0 ? listed(medium) : null
    }
  },
  {
    id: "large_position",
    decision: "tighten",
    reasonOf: (facts) =>
      facts.positionShare !== null && facts.positionShare > SIZE_REVIEW_SHARE
        ? `the position is ${formatPct(facts.positionShare * 100)} of pool liquidity: exiting at once would cost about ${formatPct(
            priceImpactPctOf(facts.positionShare)
          )} in price impact`
        : null
  },
  {
    id: "verdict_warn",
    decision: "tighten",
    reasonOf: (facts) =>
      facts.verdict === "warn"
        ? `${scoreText(facts)} is in the warn band (${VERDICT_FLOOR.warn} to ${VERDICT_FLOOR.ok - 1})`
        : null
  }
]

// Decides when no rule above matched.
export const MONITOR_FALLBACK = {
  id: "steady",
  decision: "hold",
  reasonOf: (facts: MonitorFacts): string =>
    `${scoreText(facts)} (verdict ${facts.verdict}), no pressure above low, no watch rule hit`
} as const satisfies MonitorRule
