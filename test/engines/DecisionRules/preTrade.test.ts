import { describe, expect, test } from "bun:test"
import {
  ACTION_BY_DECISION,
  PRE_TRADE_FALLBACK,
  PRE_TRADE_RULES,
  preTradeDecision,
  type PreTradeDecision,
  type PreTradeInput
} from "../../../src/engines/DecisionRules/index.ts"
import { PRE_TRADE_NEXT_CHECK_SECONDS } from "../../../src/engines/DecisionRules/model.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { type EvidencePatch, evidenceWith, hoursAfterScan, SCANNED_AT, WALLETS } from "../TokenScoring/fixtures.ts"

const inputOf = (patch: EvidencePatch = {}, overrides: Partial<PreTradeInput> = {}): PreTradeInput => {
  const evidence = evidenceWith(patch)
  return {
    evidence,
    assessment: assessToken(evidence),
    evidenceAgeSeconds: 60,
    side: "buy",
    sizeUsd: null,
    maxEvidenceAgeSeconds: null,
    wallet: { riskLevel: "low", hasEvidence: true },
    ...overrides
  }
}

const outcome = (decision: PreTradeDecision) => ({
  decision: decision.decision,
  action: decision.recommended_action,
  rule: decision.reasons[0]?.split(":")[0]
})

const minutesBefore = (minutes: number) => new Date(Date.parse(SCANNED_AT) - minutes * 60_000).toISOString()

// Five holders at 16% each: 80% in the top 10 with no single large wallet.
const SPREAD_HOLDERS = WALLETS.slice(0, 5).map((address) => ({ address, pct: 16, kind: "holder" as const }))

// Each row names the rule that must decide it; together they cover every rule of the table.
const TABLE: ReadonlyArray<readonly [string, PreTradeInput, PreTradeDecision["decision"], string]> = [
  ["a sell of a honeypot", inputOf({ trading: { isHoneypot: true } }, { side: "sell" }), "reject", "cannot_sell"],
  ["a sell with no market", inputOf({ liquidity: { poolCount: 0 } }, { side: "sell" }), "reject", "cannot_sell"],
  ["a buy of a honeypot", inputOf({ trading: { isHoneypot: true } }), "reject", "honeypot"],
  ["a buy under a hard cap", inputOf({ deployer: { priorRugs: 2 } }), "reject", "hard_cap"],
  [
    "a buy of a blocked token without caps",
    // 2.1: a permanent delegate caps at 25 (a hard cap that rejects): a transfer hook instead, and LP widely held.
    inputOf({
      mintAuthority: WALLETS[5],
      freezeAuthority: WALLETS[5],
      extensions: { transferHook: WALLETS[5] },
      liquidity: { lpLocked: false, lpTopWalletsPct: 12 }
    }),
    "reject",
    "verdict_block"
  ],
  [
    "evidence older than the default limit",
    inputOf({}, { evidenceAgeSeconds: 7200 }),
    "review_required",
    "stale_evidence"
  ],
  [
    "evidence older than the caller's limit",
    inputOf({}, { evidenceAgeSeconds: 400, maxEvidenceAgeSeconds: 300 }),
    "review_required",
    "stale_evidence"
  ],
  [
    "a size without observed liquidity",
    inputOf({ liquidity: { liquidityUsd: null }, market: { liquidityUsd: null } }, { sizeUsd: 1_000 }),
    "review_required",
    "liquidity_unknown"
  ],
  ["a size over 10% of liquidity", inputOf({}, { sizeUsd: 60_000 }), "review_required", "size_review"],
  [
    "a high-risk wallet",
    inputOf({}, { wallet: { riskLevel: "high", hasEvidence: true } }),
    "review_required",
    "wallet_high_risk"
  ],
  [
    "a critical wallet",
    inputOf({}, { wallet: { riskLevel: "critical", hasEvidence: true } }),
    "review_required",
    "wallet_high_risk"
  ],
  [
    "a partial scan just above 60",
    // 2.0: a live mint authority would cap at 59; an unlocked LP (-30) and mutable metadata (-5) leave 65
    // (2.1: with the LP observed to be widely held, or Pullable Liquidity caps it at 59).
    inputOf({ scanDepth: "partial", liquidity: { lpLocked: false, lpTopWalletsPct: 12 }, metadata: { mutable: true } }),
    "review_required",
    "borderline_partial_scan"
  ],
  [
    "a sell of a capped token",
    inputOf({ deployer: { priorRugs: 2 } }, { side: "sell" }),
    "proceed_with_caution",
    "risky_exit"
  ],
  ["a size over 2% of liquidity", inputOf({}, { sizeUsd: 20_000 }), "proceed_with_caution", "size_caution"],
  [
    "a warn verdict",
    inputOf({ holders: { top: SPREAD_HOLDERS }, createdAt: minutesBefore(30) }),
    "proceed_with_caution",
    "verdict_warn"
  ],
  [
    "an ok token with a caution flag",
    inputOf({ liquidity: { lpLocked: false, lpTopWalletsPct: 12 } }),
    "proceed_with_caution",
    "caution_flags"
  ],
  [
    "a medium-risk wallet",
    inputOf({}, { wallet: { riskLevel: "medium", hasEvidence: true } }),
    "proceed_with_caution",
    "wallet_medium_risk"
  ],
  ["an ok token with nothing else", inputOf(), "proceed", "clear"],
  ["a sell of an ok token", inputOf({}, { side: "sell", sizeUsd: 1_000 }), "proceed", "clear"]
]

describe("pre-trade decision table", () => {
  for (const [name, input, decision, rule] of TABLE) {
    test(`${name}: ${decision} by ${rule}`, () => {
      expect(outcome(preTradeDecision(input))).toEqual({ decision, action: ACTION_BY_DECISION[decision], rule })
    })
  }

  test("the table exercises every rule and every decision value", () => {
    const rules = [...PRE_TRADE_RULES, PRE_TRADE_FALLBACK].map((rule) => rule.id)
    expect([...new Set(TABLE.map((row) => row[3]))].sort()).toEqual([...rules].sort())
    expect([...new Set(TABLE.map((row): string => row[2]))].sort()).toEqual(Object.keys(ACTION_BY_DECISION).sort())
  })

  test("each decision value has its own action", () => {
    expect(ACTION_BY_DECISION).toEqual({
      proceed: "execute",
      proceed_with_caution: "execute_reduced_size",
      review_required: "human_review",
      reject: "do_not_trade"
    })
  })

  test("a token the verdict lets through, whose dev sold its launch holding or was sniped, is a caution", () => {
    // A year-old token: dev_sold costs its points without the Dev Sold cap; 12% sniped stays under Launch Capture.
    for (const patch of [{ deployer: { initialPct: 5, soldPct: 100 } }, { holders: { sniperPct: 12 } }]) {
      const decision = preTradeDecision(inputOf(patch))
      expect(decision.decision).toBe("proceed_with_caution")
      expect(decision.reasons[0]).toMatch(/^caution_flags: .*(dev_sold|sniped_launch)/)
    }
  })

  test("a full scan with the same borderline score is not sent to review", () => {
    const decision = preTradeDecision(
      inputOf({ liquidity: { lpLocked: false, lpTopWalletsPct: 12 }, metadata: { mutable: true } })
    )
    expect(outcome(decision)).toEqual({
      decision: "proceed_with_caution",
      action: "execute_reduced_size",
      rule: "caution_flags"
    })
  })

  test("a sell of a blocked token that can execute is not rejected", () => {
    const blocked = {
      mintAuthority: WALLETS[5],
      freezeAuthority: WALLETS[5],
      extensions: { permanentDelegate: WALLETS[5] },
      liquidity: { lpLocked: false }
    }
    expect(outcome(preTradeDecision(inputOf(blocked, { side: "sell" })))).toEqual({
      decision: "proceed_with_caution",
      action: "execute_reduced_size",
      rule: "risky_exit"
    })
  })

  test("reasons list every matching rule, the deciding one first", () => {
    const decision = preTradeDecision(inputOf({ trading: { isHoneypot: true } }, { evidenceAgeSeconds: 7200 }))
    expect(decision.reasons.map((reason) => reason.split(":")[0])).toEqual([
      "honeypot",
      "hard_cap",
      "verdict_block",
      "stale_evidence"
    ])
  })
})

describe("size against liquidity", () => {
  const bySize = (sizeUsd: number | null) => outcome(preTradeDecision(inputOf({}, { sizeUsd })))

  test("the same token: a small size proceeds, a larger one needs caution, a large one review", () => {
    const got = [null, 1_000, 10_000, 10_001, 50_000, 50_001, 200_000].map((size) => [size, bySize(size).decision])
    expect(got).toEqual([
      [null, "proceed"],
      [1_000, "proceed"],
      [10_000, "proceed"],
      [10_001, "proceed_with_caution"],
      [50_000, "proceed_with_caution"],
      [50_001, "review_required"],
      [200_000, "review_required"]
    ])
  })

  test("the reason states the share of liquidity and the price impact of a constant-product pool", () => {
    const decision = preTradeDecision(inputOf({}, { sizeUsd: 20_000 }))
    expect(decision.reasons[0]).toBe(
      "size_caution: a $20,000 buy is 4% of pool liquidity $500,000 (about 8% average price impact), above 2%"
    )
    expect(decision.risk).toBe("medium")
  })

  test("a large size raises the risk of the trade to high", () => {
    expect(preTradeDecision(inputOf({}, { sizeUsd: 60_000 })).risk).toBe("high")
  })

  test("a size over 10% is decided by size_review alone, and invalidation names the liquidity that would allow it", () => {
    const decision = preTradeDecision(inputOf({}, { sizeUsd: 60_000 }))
    expect([decision.reasons, decision.invalidation.filter((line) => line.startsWith("liquidity"))]).toEqual([
      ["size_review: a $60,000 buy is 12% of pool liquidity $500,000 (about 24% average price impact), above 10%"],
      [
        "liquidity rises to $3,000,000 or more (the $60,000 buy would be within 2% of it)",
        "liquidity rises to $600,000 or more (the $60,000 buy would be within 10% of it)"
      ]
    ])
  })

  test("invalidation names the liquidity at which the size crosses the next share", () => {
    const decision = preTradeDecision(inputOf({}, { sizeUsd: 5_000 }))
    expect(decision.invalidation).toContain("liquidity falls below $250,000 (the $5,000 buy would exceed 2% of it)")
    expect(decision.invalidation).toContain("liquidity falls below $50,000 (the $5,000 buy would exceed 10% of it)")
  })
})

describe("stale evidence", () => {
  test("is review_required with a reason naming both ages, the stale_evidence limitation and an early re-check", () => {
    const decision = preTradeDecision(inputOf({}, { evidenceAgeSeconds: 5_400 }))
    expect({
      decision: decision.decision,
      reason: decision.reasons[0],
      stale: decision.limitations.includes("stale_evidence"),
      next: decision.next_check_after_seconds
    }).toEqual({
      decision: "review_required",
      reason: "stale_evidence: the latest scan is 5400 s old, older than the allowed 3600 s; rescan before trading",
      stale: true,
      next: 60
    })
    expect(decision.invalidation).toContain("a scan younger than 3600 s is available (rescan)")
  })

  test("evidence exactly at the limit is not stale", () => {
    const decision = preTradeDecision(inputOf({}, { evidenceAgeSeconds: 3_600 }))
    expect([decision.decision, decision.limitations.includes("stale_evidence")]).toEqual(["proceed", false])
  })

  test("older evidence lowers confidence", () => {
    const confidences = [60, 1_000, 7_200, 100_000].map(
      (age) => preTradeDecision(inputOf({}, { evidenceAgeSeconds: age })).confidence
    )
    expect(confidences).toEqual([1, 0.9, 0.7, 0.5])
  })
})

describe("limitations", () => {
  const BASE = ["cache_only_v0", "not_financial_advice", "does_not_execute_trades", "top_trader_flow_not_live_yet"]

  test("wallet_profile_may_be_missing only without wallet evidence", () => {
    const got = [
      null,
      { riskLevel: "low", hasEvidence: false } as const,
      { riskLevel: "low", hasEvidence: true } as const
    ].map((wallet): ReadonlyArray<string> => preTradeDecision(inputOf({}, { wallet })).limitations)
    expect(got).toEqual([[...BASE, "wallet_profile_may_be_missing"], [...BASE, "wallet_profile_may_be_missing"], BASE])
  })
})

describe("edge summary", () => {
  test("quotes score, risk level, liquidity, volume, deployer evidence and no hard caps", () => {
    const summary = preTradeDecision(inputOf()).edge_summary
    const required = [
      "100/100",
      "low risk",
      "liquidity $500,000",
      "24h volume $400,000",
      "deployer: 2 prior launches, 0 rugs, 0 honeypots, not flagged",
      "no hard caps"
    ]
    expect(required.filter((fragment) => !summary.includes(fragment))).toEqual([])
  })

  test("quotes the hard caps and the deployer's record when they are there", () => {
    const summary = preTradeDecision(inputOf({ deployer: { priorRugs: 2, flagged: true } })).edge_summary
    const required = ["20/100", "critical risk", "hard caps Serial Rugger:20", "2 rugs", ", flagged"]
    expect(required.filter((fragment) => !summary.includes(fragment))).toEqual([])
  })

  test("says what was not observed", () => {
    const summary = preTradeDecision(
      inputOf({
        liquidity: { liquidityUsd: null },
        market: { liquidityUsd: null, volume24h: null },
        deployer: { priorLaunches: null, priorRugs: null, priorHoneypots: null, flagged: null }
      })
    ).edge_summary
    // 2.1: unobserved liquidity is thin evidence, capped at 59.
    const required = [
      "liquidity not observed",
      "24h volume not observed",
      "deployer evidence not observed",
      "hard caps Thin Evidence:59"
    ]
    expect(required.filter((fragment) => !summary.includes(fragment))).toEqual([])
  })
})

describe("invalidation", () => {
  test("an ok token flips below 60, on a hard cap, on low liquidity, on age and on a risky wallet", () => {
    expect(preTradeDecision(inputOf({}, { evidenceAgeSeconds: 600 })).invalidation).toEqual([
      "safety score drops below 60",
      "a hard cap appears (e.g. Honeypot, Rugged, Serial Rugger)",
      "liquidity falls below $10,000",
      "evidence older than 3600 s (in 3000 s)",
      "the trading wallet screens high or critical risk"
    ])
  })

  test("a warn token flips below 30", () => {
    const decision = preTradeDecision(inputOf({ holders: { top: SPREAD_HOLDERS }, createdAt: minutesBefore(30) }))
    expect(decision.invalidation[0]).toBe("safety score drops below 30")
  })

  test("a rejected buy needs a new scan without caps", () => {
    expect(preTradeDecision(inputOf({ trading: { isHoneypot: true } })).invalidation[0]).toBe(
      "a new scan shows no hard cap and a safety score of 30 or more"
    )
  })
})

describe("next check", () => {
  const nextOf = (patch: EvidencePatch) => preTradeDecision(inputOf(patch)).next_check_after_seconds

  test("comes sooner the riskier the token", () => {
    const got = [
      nextOf({}),
      nextOf({ liquidity: { lpLocked: false, lpTopWalletsPct: 12 }, metadata: { mutable: true } }),
      nextOf({ holders: { top: SPREAD_HOLDERS }, createdAt: minutesBefore(30) }),
      nextOf({ trading: { isHoneypot: true } })
    ]
    expect(got).toEqual([
      PRE_TRADE_NEXT_CHECK_SECONDS.low,
      PRE_TRADE_NEXT_CHECK_SECONDS.medium,
      PRE_TRADE_NEXT_CHECK_SECONDS.high,
      PRE_TRADE_NEXT_CHECK_SECONDS.critical
    ])
  })

  test("is halved on a fast-moving price, and the horizon says so", () => {
    const decision = preTradeDecision(inputOf({ market: { priceChange1h: -25 } }))
    expect([decision.next_check_after_seconds, decision.horizon]).toEqual([
      PRE_TRADE_NEXT_CHECK_SECONDS.low / 2,
      "next 8 minutes"
    ])
  })
})

describe("determinism", () => {
  test("the same input gives the same decision and is not changed", () => {
    const input = inputOf(
      { scannedAt: hoursAfterScan(1), mintAuthority: WALLETS[5] },
      { sizeUsd: 20_000, wallet: null }
    )
    const before = structuredClone(input)
    expect(preTradeDecision(input)).toEqual(preTradeDecision(input))
    expect(input).toEqual(before)
  })

  test("confidence is a fraction with two decimals", () => {
    const confidence = preTradeDecision(
      inputOf({ scanDepth: "partial", holders: { bundledLaunchPct: null } }, { evidenceAgeSeconds: 900 })
    ).confidence
    expect([confidence >= 0 && confidence <= 1, Math.round(confidence * 100) / 100]).toEqual([true, confidence])
  })
})
