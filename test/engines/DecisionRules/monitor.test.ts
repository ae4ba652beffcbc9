import { describe, expect, test } from "bun:test"
import {
  MONITOR_FALLBACK,
  MONITOR_RULES,
  monitorDecision,
  type MonitorDecision,
  type MonitorInput,
  PRESSURE_LEVELS,
  type PressureLevel,
  type WatchRule
} from "../../../src/engines/DecisionRules/index.ts"
import { MONITOR_NEXT_CHECK_BY_PRESSURE } from "../../../src/engines/DecisionRules/model.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { type EvidencePatch, evidenceWith, hoursAfterScan, WALLETS } from "../TokenScoring/fixtures.ts"

// A scan `hours` after the first one; the clean scan's price is $0.005 and its liquidity $500,000.
const scanAt = (hours: number, patch: EvidencePatch = {}): ScanEvidence =>
  evidenceWith({ ...patch, scannedAt: hoursAfterScan(hours) })

const withLiquidity = (hours: number, liquidityUsd: number, patch: EvidencePatch = {}): ScanEvidence =>
  scanAt(hours, { ...patch, liquidity: { liquidityUsd }, market: { ...patch.market, liquidityUsd } })

const inputOf = (scans: ReadonlyArray<ScanEvidence>, overrides: Partial<MonitorInput> = {}): MonitorInput => {
  const [first, ...rest] = scans.length > 0 ? scans : [scanAt(0)]
  const history = [first ?? scanAt(0), ...rest] as const
  return {
    history,
    assessment: assessToken(history[history.length - 1] ?? history[0]),
    entryAssessment: null,
    evidenceAgeSeconds: 60,
    entryPriceUsd: 0.005,
    entryTime: null,
    sizeUsd: null,
    watchRules: null,
    maxEvidenceAgeSeconds: null,
    ...overrides
  }
}

const outcome = (decision: MonitorDecision) => ({
  decision: decision.decision,
  rule: decision.reasons[0]?.split(":")[0]
})

const levels = (decision: MonitorDecision): Readonly<Record<string, PressureLevel>> =>
  Object.fromEntries(decision.pressure.map((signal) => [signal.signal, signal.level]))

const SELLING = { market: { buyCount24h: 250, sellCount24h: 750 } } as const
const BLOCKED = {
  mintAuthority: WALLETS[5],
  freezeAuthority: WALLETS[5],
  extensions: { permanentDelegate: WALLETS[5] },
  liquidity: { lpLocked: false }
} as const
const WARN = {
  holders: { top: WALLETS.slice(0, 5).map((address) => ({ address, pct: 16, kind: "holder" as const })) },
  createdAt: "2026-06-01T11:30:00.000Z"
} as const

const TABLE: ReadonlyArray<readonly [string, MonitorInput, MonitorDecision["decision"], string]> = [
  ["a hard cap appeared", inputOf([scanAt(0), scanAt(1, { deployer: { priorRugs: 2 } })]), "exit", "new_hard_cap"],
  ["a honeypot appeared", inputOf([scanAt(0), scanAt(1, { trading: { isHoneypot: true } })]), "exit", "new_hard_cap"],
  ["the token is blocked", inputOf([scanAt(0, BLOCKED), scanAt(1, BLOCKED)]), "exit", "verdict_block"],
  ["liquidity drained by 60%", inputOf([scanAt(0), withLiquidity(1, 200_000)]), "exit", "liquidity_drain"],
  [
    "heavy selling and a 60% drawdown",
    inputOf([scanAt(0), scanAt(1, { market: { ...SELLING.market, priceUsd: 0.002 } })]),
    "exit",
    "stacked_pressure"
  ],
  [
    "stale evidence",
    inputOf([scanAt(0), scanAt(1)], { evidenceAgeSeconds: 7_200 }),
    "review_required",
    "stale_evidence"
  ],
  [
    "a watch rule hit",
    inputOf([scanAt(0), scanAt(1)], { watchRules: [{ metric: "price_usd", comparison: "lte", threshold: 0.005 }] }),
    "reduce",
    "watch_rule_hit"
  ],
  ["heavy selling", inputOf([scanAt(0), scanAt(1, SELLING)]), "reduce", "high_pressure"],
  ["liquidity down 30%", inputOf([scanAt(0), withLiquidity(1, 350_000)]), "tighten", "medium_pressure"],
  ["a position of 12% of liquidity", inputOf([scanAt(0), scanAt(1)], { sizeUsd: 60_000 }), "tighten", "large_position"],
  ["a warn token", inputOf([scanAt(0, WARN), scanAt(1, WARN)]), "tighten", "verdict_warn"],
  ["nothing moved", inputOf([scanAt(0), scanAt(1)]), "hold", "steady"]
]

describe("monitor decision table", () => {
  for (const [name, input, decision, rule] of TABLE) {
    test(`${name}: ${decision} by ${rule}`, () => {
      expect(outcome(monitorDecision(input))).toEqual({ decision, rule })
    })
  }

  test("the table exercises every rule and every decision value", () => {
    const rules = [...MONITOR_RULES, MONITOR_FALLBACK].map((rule) => rule.id)
    expect([...new Set(TABLE.map((row) => row[3]))].sort()).toEqual([...rules].sort())
    expect([...new Set(TABLE.map((row) => row[2]))].sort()).toEqual([
      "exit",
      "hold",
      "reduce",
      "review_required",
      "tighten"
    ])
  })

  test("a watch rule hit escalates a tighten to reduce", () => {
    const watch: ReadonlyArray<WatchRule> = [{ metric: "liquidity_change_pct", comparison: "lt", threshold: -20 }]
    const scans = [scanAt(0), withLiquidity(1, 350_000)]
    expect([
      outcome(monitorDecision(inputOf(scans))),
      outcome(monitorDecision(inputOf(scans, { watchRules: watch })))
    ]).toEqual([
      { decision: "tighten", rule: "medium_pressure" },
      { decision: "reduce", rule: "watch_rule_hit" }
    ])
  })

  test("an exit rule outranks a watch rule hit and stale evidence", () => {
    const decision = monitorDecision(
      inputOf([scanAt(0), withLiquidity(1, 100_000)], {
        evidenceAgeSeconds: 7_200,
        watchRules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 200_000 }]
      })
    )
    expect(decision.reasons.map((reason) => reason.split(":")[0])).toEqual([
      "liquidity_drain",
      "stale_evidence",
      "watch_rule_hit",
      "high_pressure"
    ])
  })
})

describe("pressure signals", () => {
  test("all six are reported, each with a level", () => {
    const decision = monitorDecision(inputOf([scanAt(0), scanAt(1)]))
    expect(levels(decision)).toEqual({
      liquidity_drain: "none",
      sell_pressure: "none",
      drawdown: "none",
      holder_concentration: "none",
      new_hard_caps: "none",
      deployer_activity: "none"
    })
  })

  test("each signal rises from its own evidence", () => {
    const concentrated = {
      holders: {
        top: [
          { address: WALLETS[1], pct: 15, kind: "holder" as const },
          { address: WALLETS[2], pct: 10, kind: "holder" as const }
        ]
      }
    }
    const decision = monitorDecision(
      inputOf([
        scanAt(0),
        withLiquidity(1, 420_000, {
          ...concentrated,
          market: { priceUsd: 0.0035, buyCount24h: 380, sellCount24h: 620 },
          deployer: { priorLaunches: 3 }
        })
      ])
    )
    expect(levels(decision)).toEqual({
      liquidity_drain: "low",
      sell_pressure: "medium",
      drawdown: "medium",
      // 2.0 leaves the exchange wallet of the clean scan out of the top 10: 5% at entry, 25% now (+20 points).
      holder_concentration: "high",
      new_hard_caps: "none",
      deployer_activity: "low"
    })
    expect(decision.pressure.map((signal) => signal.value)).toEqual([16, 0.62, 30, 20, 0, 0])
  })

  test("liquidity drain is measured from the highest liquidity since entry", () => {
    const decision = monitorDecision(inputOf([scanAt(0), withLiquidity(1, 800_000), withLiquidity(2, 500_000)]))
    expect(decision.pressure[0]).toEqual({
      signal: "liquidity_drain",
      level: "medium",
      value: 37.5,
      detail: "liquidity $500,000 is 37.5% below the highest $800,000 since entry"
    })
  })

  test("without an entry price, drawdown reads the highest price since entry and the price windows", () => {
    const fromPeak = monitorDecision(
      inputOf([scanAt(0, { market: { priceUsd: 0.01 } }), scanAt(1)], { entryPriceUsd: null })
    )
    const fromWindow = monitorDecision(
      inputOf([scanAt(0, { market: { priceChange24h: -30 } })], { entryPriceUsd: null })
    )
    expect([fromPeak.pressure[2]?.value, fromWindow.pressure[2]?.value, fromWindow.pressure[2]?.level]).toEqual([
      50,
      30,
      "medium"
    ])
  })

  test("too few trades are no sell pressure", () => {
    const decision = monitorDecision(inputOf([scanAt(0), scanAt(1, { market: { buyCount24h: 1, sellCount24h: 9 } })]))
    expect(decision.pressure[1]).toMatchObject({ level: "none", value: 0.9 })
  })

  test("hard caps are compared with the entry assessment when given", () => {
    const capped = scanAt(1, { deployer: { priorRugs: 2 } })
    const already = monitorDecision(inputOf([capped], { entryAssessment: assessToken(capped) }))
    const appeared = monitorDecision(inputOf([capped], { entryAssessment: assessToken(scanAt(0)) }))
    expect([levels(already).new_hard_caps, levels(appeared).new_hard_caps]).toEqual(["none", "high"])
  })

  test("a deployer flagged since entry is high deployer activity", () => {
    const decision = monitorDecision(inputOf([scanAt(0), scanAt(1, { deployer: { flagged: true } })]))
    expect(levels(decision).deployer_activity).toBe("high")
  })

  test("a dev selling its launch holding after entry raises deployer activity by the points sold", () => {
    const soldAt = (hours: number, soldPct: number | null, initialPct = 10) =>
      scanAt(hours, { deployer: { initialPct, soldPct } })
    const level = (scans: ReadonlyArray<ScanEvidence>) => levels(monitorDecision(inputOf(scans))).deployer_activity
    expect([
      level([soldAt(0, 0), soldAt(1, 0)]),
      level([soldAt(0, 0), soldAt(1, 10)]),
      level([soldAt(0, 10), soldAt(1, 40)]),
      level([soldAt(0, 20), soldAt(1, 80)]),
      // Not observed at entry counts 0; a dust holding is ignored.
      level([soldAt(0, null), soldAt(1, 90)]),
      level([soldAt(0, 0, 0.5), soldAt(1, 100, 0.5)])
    ]).toEqual(["none", "low", "medium", "high", "high", "none"])
    const decision = monitorDecision(inputOf([soldAt(0, 0), soldAt(1, 80)]))
    expect(decision.pressure[5]?.detail).toBe(
      "the deployer sold 80% more of its launch holding since entry (dev sold 80%)"
    )
    // Below high, the invalidation names the dev sold % that would make it high.
    expect(monitorDecision(inputOf([soldAt(0, 10), soldAt(1, 40)])).invalidation).toContain(
      "the deployer gains a rugged or honeypot launch, or is flagged, or dev sold % reaches 60% (high deployer_activity)"
    )
  })

  test("scans before the entry time are left out, except the last one before it", () => {
    const history = [withLiquidity(0, 900_000), withLiquidity(1, 500_000), withLiquidity(3, 480_000)]
    const decision = monitorDecision(inputOf(history, { entryTime: hoursAfterScan(2) }))
    expect(decision.pressure[0]).toMatchObject({ level: "none", value: 4 })
  })
})

describe("next check", () => {
  test("shortens as pressure rises across a synthetic history", () => {
    const history = [scanAt(0), withLiquidity(1, 440_000), withLiquidity(2, 350_000), withLiquidity(3, 200_000)]
    const steps = history.map((_, index) => {
      const decision = monitorDecision(inputOf(history.slice(0, index + 1)))
      const max = decision.pressure
        .map((signal) => signal.level)
        .reduce((a, b) => (PRESSURE_LEVELS.indexOf(a) >= PRESSURE_LEVELS.indexOf(b) ? a : b))
      return [max, decision.decision, decision.next_check_after_seconds] as const
    })
    expect(steps).toEqual([
      ["none", "hold", 900],
      ["low", "hold", 600],
      ["medium", "tighten", 300],
      ["high", "exit", 60]
    ])
  })

  test("is strictly shorter at each higher pressure level", () => {
    const seconds = PRESSURE_LEVELS.map((level) => MONITOR_NEXT_CHECK_BY_PRESSURE[level])
    expect(seconds.every((value, index) => index === 0 || value < (seconds[index - 1] ?? 0))).toBe(true)
  })

  test("never lengthens as selling rises on the same position", () => {
    const seconds = [400, 560, 620, 700, 800].map(
      (sells) =>
        monitorDecision(
          inputOf([scanAt(0), scanAt(1, { market: { buyCount24h: 1_000 - sells, sellCount24h: sells } })])
        ).next_check_after_seconds
    )
    expect(seconds).toEqual([900, 600, 300, 60, 60])
  })
})

describe("limitations, risk and summary", () => {
  test("a single scan with no entry price says so and lowers confidence", () => {
    const decision = monitorDecision(inputOf([scanAt(0)], { entryPriceUsd: null }))
    expect([decision.limitations, decision.confidence]).toEqual([
      [
        "cache_only_v0",
        "not_financial_advice",
        "does_not_execute_trades",
        "top_trader_flow_not_live_yet",
        "single_scan_history",
        "entry_price_missing"
      ],
      0.8
    ])
  })

  test("stale evidence adds the stale_evidence limitation", () => {
    expect(monitorDecision(inputOf([scanAt(0), scanAt(1)], { evidenceAgeSeconds: 4_000 })).limitations).toContain(
      "stale_evidence"
    )
  })

  test("risk rises with pressure", () => {
    expect(monitorDecision(inputOf([scanAt(0), scanAt(1, SELLING)])).risk).toBe("high")
  })

  test("the summary names the decision, score, pressure, watch rules and next check", () => {
    const summary = monitorDecision(inputOf([scanAt(0), withLiquidity(1, 350_000)])).summary
    const required = [
      "tighten: ",
      "Safety score 100/100, low risk",
      "highest pressure medium (liquidity_drain medium) over 2 scans",
      "0 of 0 watch rules hit",
      "check again in 300 s"
    ]
    expect(required.filter((fragment) => !summary.includes(fragment))).toEqual([])
  })

  test("invalidation names the next level of each signal and the unhit watch rules", () => {
    const decision = monitorDecision(
      inputOf([scanAt(0), scanAt(1)], { watchRules: [{ metric: "price_usd", comparison: "lt", threshold: 0.004 }] })
    )
    expect(decision.invalidation).toEqual([
      "safety score drops below 30 (exit)",
      "liquidity falls below $450,000 (low liquidity_drain)",
      "sells reach 55% of 24h trades (low sell_pressure)",
      "price falls below $0.0045 (low drawdown)",
      "the top-10 holder share reaches 10% (low holder_concentration)",
      "a hard cap appears (high new_hard_caps)",
      "the deployer gains a rugged or honeypot launch, or is flagged (high deployer_activity)",
      "watch rule price_usd < 0.004 hits (reduce)",
      "evidence older than 3600 s (review_required)"
    ])
  })
})

describe("determinism", () => {
  test("the same input gives the same decision and is not changed", () => {
    const input = inputOf([scanAt(0), withLiquidity(1, 300_000, SELLING)], {
      watchRules: [{ metric: "sell_share_24h", comparison: "gte", threshold: 0.7 }],
      sizeUsd: 10_000
    })
    const before = structuredClone(input)
    expect(monitorDecision(input)).toEqual(monitorDecision(input))
    expect(input).toEqual(before)
  })
})
