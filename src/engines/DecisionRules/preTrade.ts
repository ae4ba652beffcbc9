import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { confidenceOf } from "../TokenScoring/confidence.ts"
import { LIQUIDITY_USD_TIERS } from "../TokenScoring/model.ts"
import { formatPct, formatUsd } from "../TokenScoring/observed.ts"
import type { RiskLevel } from "../TokenScoring/types.ts"
import { minutesText, roundTo2 } from "./format.ts"
import { maxRiskLevel } from "./levels.ts"
import { limitationsWhen } from "./limitations.ts"
import {
  FAST_MOVE_PCT,
  MIN_NEXT_CHECK_SECONDS,
  PRE_TRADE_NEXT_CHECK_SECONDS,
  SIZE_CAUTION_SHARE,
  SIZE_REVIEW_SHARE,
  VERDICT_FLOOR
} from "./model.ts"
import { factsOf, PRE_TRADE_FALLBACK, PRE_TRADE_RULES, type PreTradeFacts, priceImpactPctOf } from "./preTradeRules.ts"
import type { Limitation, PreTradeAction, PreTradeDecision, PreTradeDecisionValue, PreTradeInput } from "./types.ts"

export const ACTION_BY_DECISION: Readonly<Record<PreTradeDecisionValue, PreTradeAction>> = {
  proceed: "execute",
  proceed_with_caution: "execute_reduced_size",
  review_required: "human_review",
  reject: "do_not_trade"
}

const LOW_LIQUIDITY_USD = LIQUIDITY_USD_TIERS.at(-1)?.threshold ?? 0

const sizeRiskOf = (share: number | null): RiskLevel =>
  share === null ? "low" : share > SIZE_REVIEW_SHARE ? "high" : share > SIZE_CAUTION_SHARE ? "medium" : "low"

const isFastMoving = (evidence: ScanEvidence): boolean =>
  [evidence.market.priceChange5m, evidence.market.priceChange1h].some(
    (change) => change !== null && Math.abs(change) >= FAST_MOVE_PCT
  )

// Stale evidence wants a rescan first, so the re-check comes as soon as allowed.
const nextCheckOf = (facts: PreTradeFacts, risk: RiskLevel): number => {
  if (facts.stale) return MIN_NEXT_CHECK_SECONDS
  const base = PRE_TRADE_NEXT_CHECK_SECONDS[risk]
  return Math.max(MIN_NEXT_CHECK_SECONDS, isFastMoving(facts.input.evidence) ? base / 2 : base)
}

const countText = (count: number | null, noun: string): string => `${count ?? "unknown"} ${noun}`

const deployerText = ({ deployer }: ScanEvidence): string => {
  const { priorLaunches, priorRugs, priorHoneypots, flagged } = deployer
  if ([priorLaunches, priorRugs, priorHoneypots, flagged].every((value) => value === null))
    return "deployer evidence not observed"
  const flag = flagged === null ? "flag unknown" : flagged ? "flagged" : "not flagged"
  return `deployer: ${countText(priorLaunches, "prior launches")}, ${countText(priorRugs, "rugs")}, ${countText(
    priorHoneypots,
    "honeypots"
  )}, ${flag}`
}

const sizeTextOf = ({ input, sizeShare }: PreTradeFacts): ReadonlyArray<string> =>
  input.sizeUsd === null || sizeShare === null
    ? []
    : [
        `a ${formatUsd(input.sizeUsd)} ${input.side} is ${formatPct(sizeShare * 100)} of liquidity (about ${formatPct(
          priceImpactPctOf(sizeShare)
        )} price impact)`
      ]

const edgeSummaryOf = (facts: PreTradeFacts): string => {
  const { assessment, evidence } = facts.input
  const volume = evidence.market.volume24h
  const parts = [
    `Safety score ${assessment.safetyScore}/100 (${facts.verdict}), ${assessment.riskLevel} risk`,
    facts.liquidityUsd === null ? "liquidity not observed" : `liquidity ${formatUsd(facts.liquidityUsd)}`,
    volume === null ? "24h volume not observed" : `24h volume ${formatUsd(volume)}`,
    deployerText(evidence),
    assessment.hardCaps.length === 0 ? "no hard caps" : `hard caps ${assessment.hardCaps.join(", ")}`,
    ...sizeTextOf(facts)
  ]
  return `${parts.join("; ")}.`
}

const scoreInvalidation = (facts: PreTradeFacts, decision: PreTradeDecisionValue): ReadonlyArray<string> => {
  if (decision === "reject") {
    return facts.input.side === "sell"
      ? ["a new scan shows the sell simulating successfully and a pool to sell into"]
      : [`a new scan shows no hard cap and a safety score of ${VERDICT_FLOOR.warn} or more`]
  }
  const floor = facts.verdict === "ok" ? VERDICT_FLOOR.ok : VERDICT_FLOOR.warn
  return [
    ...(facts.verdict === "block" ? [] : [`safety score drops below ${floor}`]),
    facts.input.side === "buy"
      ? "a hard cap appears (e.g. Honeypot, Rugged, Serial Rugger)"
      : "a honeypot, non-transferable or no-market finding appears (the sell could not execute)"
  ]
}

const liquidityInvalidation = (facts: PreTradeFacts): ReadonlyArray<string> => {
  const { sizeUsd } = facts.input
  if (facts.liquidityUsd === null) return []
  if (sizeUsd === null) {
    return facts.liquidityUsd >= LOW_LIQUIDITY_USD ? [`liquidity falls below ${formatUsd(LOW_LIQUIDITY_USD)}`] : []
  }
  const trade = `the ${formatUsd(sizeUsd)} ${facts.input.side}`
  return [SIZE_CAUTION_SHARE, SIZE_REVIEW_SHARE].map((share) =>
    (facts.sizeShare ?? 0) <= share
      ? `liquidity falls below ${formatUsd(sizeUsd / share)} (${trade} would exceed ${formatPct(share * 100)} of it)`
      : `liquidity rises to ${formatUsd(sizeUsd / share)} or more (${trade} would be within ${formatPct(share * 100)} of it)`
  )
}

const invalidationOf = (facts: PreTradeFacts, decision: PreTradeDecisionValue): ReadonlyArray<string> => {
  const age = Math.round(facts.input.evidenceAgeSeconds)
  const wallet = facts.input.wallet?.riskLevel
  return [
    ...scoreInvalidation(facts, decision),
    ...(decision === "reject" ? [] : liquidityInvalidation(facts)),
    facts.stale
      ? `a scan younger than ${facts.maxAgeSeconds} s is available (rescan)`
      : `evidence older than ${facts.maxAgeSeconds} s (in ${Math.max(0, facts.maxAgeSeconds - age)} s)`,
    ...(wallet === "high" || wallet === "critical" ? [] : ["the trading wallet screens high or critical risk"])
  ]
}

const limitationsOf = (facts: PreTradeFacts): ReadonlyArray<Limitation> =>
  limitationsWhen([
    ["wallet_profile_may_be_missing", facts.input.wallet === null || !facts.input.wallet.hasEvidence],
    ["stale_evidence", facts.stale]
  ])

export const preTradeDecision = (input: PreTradeInput): PreTradeDecision => {
  const facts = factsOf(input)
  const matched = PRE_TRADE_RULES.flatMap((rule) => {
    const reason = rule.reasonOf(facts)
    return reason === null ? [] : [{ rule, reason }]
  })
  const deciding = matched[0]?.rule ?? PRE_TRADE_FALLBACK
  const reasons =
    matched.length > 0
      ? matched.map(({ reason, rule }) => `${rule.id}: ${reason}`)
      : [`${PRE_TRADE_FALLBACK.id}: ${PRE_TRADE_FALLBACK.reasonOf(facts)}`]
  const risk = maxRiskLevel(input.assessment.riskLevel, sizeRiskOf(facts.sizeShare), input.wallet?.riskLevel ?? "low")
  const nextCheck = nextCheckOf(facts, risk)
  return {
    decision: deciding.decision,
    confidence: roundTo2(confidenceOf(input.assessment, input.evidence, input.evidenceAgeSeconds).score / 100),
    horizon: `next ${minutesText(nextCheck)}`,
    risk,
    edge_summary: edgeSummaryOf(facts),
    invalidation: invalidationOf(facts, deciding.decision),
    recommended_action: ACTION_BY_DECISION[deciding.decision],
    next_check_after_seconds: nextCheck,
    reasons,
    limitations: limitationsOf(facts)
  }
}
