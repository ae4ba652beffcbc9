import * as M from "../../../src/engines/WalletScoring/model.ts"
import { COUNTERPARTY, type EvidencePatch, exposureOf, labelOf, tokenOf } from "./fixtures.ts"

// Evidence that should make `signal` fire once with `points`. Exposures of $1,000,000 weigh fully, so at
// hop 1 an exposure signal gets exactly its base points (or its cap).
export interface SignalCase {
  readonly title: string
  readonly signal: string
  readonly points: number
  readonly evidence: EvidencePatch
}

// Evidence that should leave `signal` silent.
export interface SilentCase {
  readonly title: string
  readonly signal: string
  readonly evidence: EvidencePatch
}

const FULL = { exposureAmountUsd: M.FULL_WEIGHT_USD, exposurePct: 0 }
const unflagged = (fields: Parameters<typeof exposureOf>[0] = {}) =>
  exposureOf({ category: "exchange", ...FULL, ...fields })
const counterpartyLabel = (fields: Parameters<typeof labelOf>[0]) => labelOf({ address: COUNTERPARTY, ...fields })
const tokens = (count: number, fields: Parameters<typeof tokenOf>[1]) =>
  Array.from({ length: count }, (_, n) => tokenOf(n, fields))

export const SIGNAL_CASES: ReadonlyArray<SignalCase> = [
  ...(["medium", "high", "critical"] as const).map((severity) => ({
    title: `adverse_label of severity ${severity}`,
    signal: "adverse_label",
    points: M.ADVERSE_LABEL_POINTS[severity],
    evidence: { labels: [labelOf({ label: "sanctioned", category: "sanctions", severity, source: "ofac_list" })] }
  })),
  ...(["medium", "high", "critical"] as const).map((severity) => ({
    title: `flagged_counterparty_exposure to a counterparty labelled ${severity}`,
    signal: "flagged_counterparty_exposure",
    points: Math.min(M.FLAGGED_EXPOSURE_CAP, M.COUNTERPARTY_SEVERITY_POINTS[severity]),
    evidence: { exposures: [unflagged()], counterpartyLabels: [counterpartyLabel({ label: "scam", severity })] }
  })),
  ...Object.entries(M.ADVERSE_EXPOSURE_CATEGORIES).map(([category, severity]) => ({
    title: `flagged_counterparty_exposure in category ${category}`,
    signal: "flagged_counterparty_exposure",
    points: Math.min(M.FLAGGED_EXPOSURE_CAP, M.COUNTERPARTY_SEVERITY_POINTS[severity]),
    evidence: { exposures: [unflagged({ category })] }
  })),
  {
    title: "flagged_counterparty_exposure in category Mixer, in another case",
    signal: "flagged_counterparty_exposure",
    points: M.COUNTERPARTY_SEVERITY_POINTS.high,
    evidence: { exposures: [unflagged({ category: " Mixer " })] }
  },
  {
    title: "repeat_deployer_exposure to a deployer with two rugs on record",
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.serial,
    evidence: {
      exposures: [unflagged()],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 3, rugged: 2, honeypots: 0 }]]
    }
  },
  {
    title: "repeat_deployer_exposure to a deployer with a rug and a honeypot on record",
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.serial,
    evidence: {
      exposures: [unflagged()],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 3, rugged: 1, honeypots: 1 }]]
    }
  },
  {
    title: "repeat_deployer_exposure to a deployer with one honeypot on record",
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.single,
    evidence: {
      exposures: [unflagged()],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 3, rugged: 0, honeypots: 1 }]]
    }
  },
  {
    title: "repeat_deployer_exposure to a deployer whose only launch both rugged and was a honeypot",
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.single,
    evidence: {
      exposures: [unflagged()],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 1, rugged: 1, honeypots: 1 }]]
    }
  },
  ...M.DEPLOYER_CONDUCT_LABELS.map((label) => ({
    title: `repeat_deployer_exposure to a counterparty labelled ${label}`,
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.serial,
    evidence: {
      exposures: [unflagged()],
      counterpartyLabels: [counterpartyLabel({ label, category: "deployer", severity: "high" })]
    }
  })),
  {
    title: "repeat_deployer_exposure to a deployer the exposure names a rugger",
    signal: "repeat_deployer_exposure",
    points: M.REPEAT_DEPLOYER_POINTS.serial,
    evidence: { exposures: [unflagged({ category: "deployer", counterpartyLabel: "rugger" })] }
  },
  ...M.DEPLOYED_RUG_TIERS.map((tier) => ({
    title: `deployed_rugs at ${tier.threshold}`,
    signal: "deployed_rugs",
    points: tier.points,
    evidence: { deployedTokens: tokens(tier.threshold, { outcome: "rugged", safetyScore: 5 }) }
  })),
  ...M.DEPLOYED_HONEYPOT_TIERS.map((tier) => ({
    title: `deployed_honeypots at ${tier.threshold}`,
    signal: "deployed_honeypots",
    points: tier.points,
    evidence: { deployedTokens: tokens(tier.threshold, { isHoneypot: true, safetyScore: 5 }) }
  })),
  ...M.DEPLOYED_LOW_SCORE_TIERS.map((tier) => ({
    title: `deployed_low_score_tokens at ${tier.threshold}`,
    signal: "deployed_low_score_tokens",
    points: tier.points,
    evidence: { deployedTokens: tokens(tier.threshold, { safetyScore: M.LOW_SAFETY_SCORE - 1 }) }
  }))
]

export const SILENT_CASES: ReadonlyArray<SilentCase> = [
  ...(["info", "low"] as const).map((severity) => ({
    title: `a ${severity} label`,
    signal: "adverse_label",
    evidence: { labels: [labelOf({ label: "exchange", category: "service", severity })] }
  })),
  ...(["info", "low"] as const).map((severity) => ({
    title: `a counterparty labelled ${severity}`,
    signal: "flagged_counterparty_exposure",
    evidence: { exposures: [unflagged()], counterpartyLabels: [counterpartyLabel({ label: "exchange", severity })] }
  })),
  {
    title: "a counterparty labelled only as a rugger (scored by repeat_deployer_exposure)",
    signal: "flagged_counterparty_exposure",
    evidence: {
      exposures: [unflagged()],
      counterpartyLabels: [counterpartyLabel({ label: "rugger", severity: "high" })]
    }
  },
  {
    title: "a flagged exposure of $0 and 0% (weight 0)",
    signal: "flagged_counterparty_exposure",
    evidence: { exposures: [exposureOf({ category: "sanctions", exposureAmountUsd: 0, exposurePct: 0 })] }
  },
  {
    title: "labels of another counterparty",
    signal: "flagged_counterparty_exposure",
    evidence: {
      exposures: [unflagged()],
      counterpartyLabels: [labelOf({ address: tokenOf(9).address, severity: "critical" })]
    }
  },
  {
    title: "a deployer with launches but no rug or honeypot",
    signal: "repeat_deployer_exposure",
    evidence: {
      exposures: [unflagged()],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 12, rugged: 0, honeypots: 0 }]]
    }
  },
  {
    title: "a rugger label of low severity",
    signal: "repeat_deployer_exposure",
    evidence: {
      exposures: [unflagged()],
      counterpartyLabels: [counterpartyLabel({ label: "rugger", severity: "low" })]
    }
  },
  {
    title: "an exposure naming a rugger outside category deployer",
    signal: "repeat_deployer_exposure",
    evidence: { exposures: [unflagged({ counterpartyLabel: "rugger" })] }
  },
  {
    title: "a counterparty with a sanctions label only",
    signal: "repeat_deployer_exposure",
    evidence: {
      exposures: [unflagged()],
      counterpartyLabels: [counterpartyLabel({ label: "sanctioned", severity: "critical" })]
    }
  },
  ...(["active", "abandoned", null] as const).map((outcome) => ({
    title: `deployed tokens with outcome ${outcome}`,
    signal: "deployed_rugs",
    evidence: { deployedTokens: tokens(3, { outcome }) }
  })),
  ...([false, null] as const).map((isHoneypot) => ({
    title: `deployed tokens with isHoneypot ${isHoneypot}`,
    signal: "deployed_honeypots",
    evidence: { deployedTokens: tokens(3, { isHoneypot }) }
  })),
  {
    title: "a rugged honeypot (counted as a rug)",
    signal: "deployed_honeypots",
    evidence: { deployedTokens: tokens(1, { isHoneypot: true, outcome: "rugged" }) }
  },
  {
    title: `deployed tokens scoring exactly ${M.LOW_SAFETY_SCORE}`,
    signal: "deployed_low_score_tokens",
    evidence: { deployedTokens: tokens(3, { safetyScore: M.LOW_SAFETY_SCORE }) }
  },
  {
    title: "low-scoring honeypots and rugs (counted there)",
    signal: "deployed_low_score_tokens",
    evidence: {
      deployedTokens: [
        tokenOf(1, { isHoneypot: true, safetyScore: 3 }),
        tokenOf(2, { outcome: "rugged", safetyScore: 3 })
      ]
    }
  }
]
