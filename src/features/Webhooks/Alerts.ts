import {
  type EntryReference,
  evaluateWatchRules,
  metricsOf,
  type WatchRule
} from "../../engines/DecisionRules/index.ts"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import type { Verdict } from "../../domain/Verdict.ts"
import { observe } from "../../engines/TokenScoring/observed.ts"
import { assessToken } from "../../engines/TokenScoring/index.ts"

// What a new scan changes for a watch, with the pure rules monitor-position uses (Decision/watchRules.ts):
// each rule that newly holds is a watch.triggered event, each that no longer holds a watch.cleared one.

type AlertType = "watch.triggered" | "watch.cleared"

/** What the evaluator keeps of a watch between scans. */
export interface AlertState {
  readonly scanId: string
  readonly scannedAt: string
  readonly verdict: Verdict
  readonly safetyScore: number | null
  /** Rule key (ruleKey) → whether it held. */
  readonly hits: Readonly<Record<string, boolean>>
  readonly entry: EntryReference
}

export interface Alert {
  readonly type: AlertType
  readonly rule: WatchRule
  readonly observedValue: number | null
  readonly detail: string
}

const ruleKey = (rule: WatchRule): string => `${rule.metric}/${rule.comparison}/${rule.threshold}`

export const entryOf = (evidence: ScanEvidence): EntryReference => ({
  priceUsd: evidence.market.priceUsd,
  liquidityUsd: observe(evidence).liquidityUsd
})

/** The state a scan leaves a watch in. */
export const stateOf = (
  rules: ReadonlyArray<WatchRule>,
  scan: { readonly id: string; readonly evidence: ScanEvidence },
  entry: EntryReference
): { readonly state: AlertState; readonly hits: ReturnType<typeof evaluateWatchRules> } => {
  const assessment = assessToken(scan.evidence)
  const hits = evaluateWatchRules(rules, metricsOf(scan.evidence, assessment, entry))
  return {
    hits,
    state: {
      scanId: scan.id,
      scannedAt: scan.evidence.scannedAt,
      verdict: assessment.verdict,
      safetyScore: assessment.safetyScore,
      hits: Object.fromEntries(hits.map((hit) => [ruleKey(hit.rule), hit.hit])),
      entry
    }
  }
}

/** The state of a watch before any scan was evaluated for it: nothing holds, the verdict is unknown. */
export const blankState = (entry: EntryReference): AlertState => ({
  scanId: "0",
  scannedAt: new Date(0).toISOString(),
  verdict: "unknown",
  safetyScore: null,
  hits: {},
  entry
})

/** The alerts between two states: one per rule whose outcome changed. */
export const alertsOf = (before: AlertState, after: ReturnType<typeof stateOf>): ReadonlyArray<Alert> =>
  after.hits.flatMap((hit): ReadonlyArray<Alert> => {
    const held = before.hits[ruleKey(hit.rule)] ?? false
    if (held === hit.hit) return []
    return [
      {
        type: hit.hit ? "watch.triggered" : "watch.cleared",
        rule: hit.rule,
        observedValue: hit.value,
        detail: hit.detail
      }
    ]
  })

/** The JSON body of an event (Standard Webhooks shape: type, timestamp, data); sent byte for byte on every attempt. */
export const eventBody = (event: {
  readonly id: string
  readonly alert: Alert
  readonly watch: { readonly id: string; readonly label: string | null; readonly mint: string }
  readonly before: AlertState
  readonly after: AlertState
  readonly now: Date
}): string =>
  JSON.stringify({
    type: event.alert.type,
    timestamp: event.now.toISOString(),
    data: {
      event_id: event.id,
      watch_id: event.watch.id,
      watch_label: event.watch.label,
      mint: event.watch.mint,
      rule: event.alert.rule,
      observed_value: event.alert.observedValue,
      detail: event.alert.detail,
      scan: { id: event.after.scanId, scanned_at: event.after.scannedAt },
      previous_scan:
        event.before.scanId === "0" ? null : { id: event.before.scanId, scanned_at: event.before.scannedAt },
      verdict: { before: event.before.verdict, after: event.after.verdict },
      safety_score: { before: event.before.safetyScore, after: event.after.safetyScore }
    }
  })
