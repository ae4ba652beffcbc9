import type { Flag } from "../TokenScoring/flags.ts"
import { formatPct, formatUsd, observe } from "../TokenScoring/observed.ts"
import { isStale } from "./levels.ts"
import {
  BORDERLINE_MARGIN,
  CAUTION_FLAGS,
  DEFAULT_MAX_EVIDENCE_AGE_SECONDS,
  SELL_BLOCKING_FLAGS,
  SIZE_CAUTION_SHARE,
  SIZE_REVIEW_SHARE,
  VERDICT_FLOOR
} from "./model.ts"
import type { PreTradeDecisionValue, PreTradeInput } from "./types.ts"

// What the rules read, derived once from the input.
export interface PreTradeFacts {
  readonly input: PreTradeInput
  readonly score: number
  readonly verdict: "block" | "warn" | "ok"
  readonly liquidityUsd: number | null
  // sizeUsd / liquidity; null without a size or without observed liquidity.
  readonly sizeShare: number | null
  readonly maxAgeSeconds: number
  readonly stale: boolean
}

export const factsOf = (input: PreTradeInput): PreTradeFacts => {
  const liquidityUsd = observe(input.evidence).liquidityUsd
  const maxAgeSeconds = input.maxEvidenceAgeSeconds ?? DEFAULT_MAX_EVIDENCE_AGE_SECONDS
  return {
    input,
    score: input.assessment.safetyScore,
    verdict: input.assessment.verdict,
    liquidityUsd,
    sizeShare:
      input.sizeUsd === null || liquidityUsd === null || liquidityUsd === 0 ? null : input.sizeUsd / liquidityUsd,
    maxAgeSeconds,
    stale: isStale(input.evidenceAgeSeconds, maxAgeSeconds)
  }
}

// In a constant-product pool half the liquidity is on each side: a trade of s USD pays about 2s / liquidity.
export const priceImpactPctOf = (sizeShare: number): number => 2 * sizeShare * 100

export interface PreTradeRule {
  readonly id: string
  readonly decision: PreTradeDecisionValue
  // The reason when the rule matches, null when it does not.
  readonly reasonOf: (facts: PreTradeFacts) => string | null
}

const SELL_BLOCKERS: Readonly<Partial<Record<Flag, string>>> = {
  honeypot: "honeypot: a simulated sell failed",
  non_transferable: "the token is non-transferable",
  no_market: "there is no pool to sell into"
}

const flagsIn = (facts: PreTradeFacts, among: ReadonlyArray<Flag>): ReadonlyArray<Flag> =>
  facts.input.assessment.flags.filter((flag) => among.includes(flag))

const scoreText = (facts: PreTradeFacts) => `safety score ${facts.score}/100`
// The caps that reject a buy are those that make a token `block` (ceiling under 30). Model 2.0's caps at 45
// and 59 (live authorities, a high tax, thin evidence) keep a token out of `ok`; they show as a `warn`.
const BLOCK_CEILING = 30
const blockingCaps = (facts: PreTradeFacts): ReadonlyArray<string> =>
  facts.input.assessment.hardCaps.filter((cap) => Number(cap.slice(cap.lastIndexOf(":") + 1)) < BLOCK_CEILING)
const capsText = (facts: PreTradeFacts) => `hard caps ${blockingCaps(facts).join(", ")}`

const sizeText = (facts: PreTradeFacts, share: number, limit: number): string =>
  `a ${formatUsd(facts.input.sizeUsd ?? 0)} ${facts.input.side} is ${formatPct(share * 100)} of pool liquidity ${formatUsd(
    facts.liquidityUsd ?? 0
  )} (about ${formatPct(priceImpactPctOf(share))} average price impact), above ${formatPct(limit * 100)}`

// A partial scan can only have missed findings, which lower a score: only a score just above a threshold can flip.
const isBorderline = (score: number): boolean =>
  [VERDICT_FLOOR.warn, VERDICT_FLOOR.ok].some(
    (threshold) => score >= threshold && score < threshold + BORDERLINE_MARGIN
  )

const isBuy = (facts: PreTradeFacts) => facts.input.side === "buy"
const isSell = (facts: PreTradeFacts) => facts.input.side === "sell"
const walletLevel = (facts: PreTradeFacts) => facts.input.wallet?.riskLevel ?? null

// First match decides; every matching rule is listed in `reasons`. docs/decision-engine.md has the same table.
export const PRE_TRADE_RULES: ReadonlyArray<PreTradeRule> = [
  {
    id: "cannot_sell",
    decision: "reject",
    reasonOf: (facts) => {
      const blockers = flagsIn(facts, SELL_BLOCKING_FLAGS)
      if (!isSell(facts) || blockers.length === 0) return null
      const why = blockers.map((flag) => SELL_BLOCKERS[flag]).join("; ")
      return `a sell is not expected to execute (${why}); submitting it would only cost fees`
    }
  },
  {
    id: "honeypot",
    decision: "reject",
    reasonOf: (facts) =>
      isBuy(facts) && facts.input.assessment.flags.includes("honeypot")
        ? "a simulated sell failed: tokens bought now could not be sold"
        : null
  },
  {
    id: "hard_cap",
    decision: "reject",
    reasonOf: (facts) => (isBuy(facts) && blockingCaps(facts).length > 0 ? `${capsText(facts)} apply` : null)
  },
  {
    id: "verdict_block",
    decision: "reject",
    reasonOf: (facts) =>
      isBuy(facts) && facts.verdict === "block"
        ? `${scoreText(facts)} is below ${VERDICT_FLOOR.warn} (verdict block)`
        : null
  },
  {
    id: "stale_evidence",
    decision: "review_required",
    reasonOf: (facts) =>
      facts.stale
        ? `the latest scan is ${Math.round(facts.input.evidenceAgeSeconds)} s old, older than the allowed ${facts.maxAgeSeconds} s; ` +
          "rescan before trading"
        : null
  },
  {
    id: "liquidity_unknown",
    decision: "review_required",
    reasonOf: (facts) =>
      facts.input.sizeUsd !== null && facts.liquidityUsd === null
        ? `pool liquidity was not observed, so the price impact of a ${formatUsd(facts.input.sizeUsd)} ${facts.input.side} ` +
          "cannot be estimated"
        : null
  },
  {
    id: "size_review",
    decision: "review_required",
    reasonOf: (facts) =>
      facts.sizeShare !== null && facts.sizeShare > SIZE_REVIEW_SHARE
        ? sizeText(facts, facts.sizeShare, SIZE_REVIEW_SHARE)
        : null
  },
  {
    id: "wallet_high_risk",
    decision: "review_required",
    reasonOf: (facts) => {
      const level = walletLevel(facts)
      return level === "high" || level === "critical" ? `the trading wallet screens ${level} risk` : null
    }
  },
  {
    id: "borderline_partial_scan",
    decision: "review_required",
    reasonOf: (facts) =>
      facts.input.evidence.scanDepth !== "full" && isBorderline(facts.score)
        ? `a ${facts.input.evidence.scanDepth} scan gave ${scoreText(facts)}, less than ${BORDERLINE_MARGIN} points above a ` +
          "verdict threshold; findings it missed could only lower it"
        : null
  },
  {
    id: "risky_exit",
    decision: "proceed_with_caution",
    reasonOf: (facts) =>
      isSell(facts) && (facts.verdict === "block" || blockingCaps(facts).length > 0)
        ? `selling reduces exposure to a token with ${scoreText(facts)}${
            blockingCaps(facts).length > 0 ? ` and ${capsText(facts)}` : ""
          }; the sell is expected to execute, expect a poor price`
        : null
  },
  {
    id: "size_caution",
    decision: "proceed_with_caution",
    reasonOf: (facts) =>
      facts.sizeShare !== null && facts.sizeShare > SIZE_CAUTION_SHARE && facts.sizeShare <= SIZE_REVIEW_SHARE
        ? sizeText(facts, facts.sizeShare, SIZE_CAUTION_SHARE)
        : null
  },
  {
    id: "verdict_warn",
    decision: "proceed_with_caution",
    reasonOf: (facts) =>
      facts.verdict === "warn"
        ? `${scoreText(facts)} is in the warn band (${VERDICT_FLOOR.warn} to ${VERDICT_FLOOR.ok - 1})`
        : null
  },
  {
    id: "caution_flags",
    decision: "proceed_with_caution",
    reasonOf: (facts) => {
      const flags = flagsIn(facts, CAUTION_FLAGS)
      return flags.length > 0 ? `flags ${flags.join(", ")}` : null
    }
  },
  {
    id: "wallet_medium_risk",
    decision: "proceed_with_caution",
    reasonOf: (facts) => (walletLevel(facts) === "medium" ? "the trading wallet screens medium risk" : null)
  }
]

// Decides when no rule above matched.
export const PRE_TRADE_FALLBACK = {
  id: "clear",
  decision: "proceed",
  reasonOf: (facts: PreTradeFacts): string =>
    `${scoreText(facts)} (verdict ${facts.verdict}), no caution flag, size and evidence age within limits`
} as const satisfies PreTradeRule
