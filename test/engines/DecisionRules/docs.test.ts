import { describe, expect, test } from "bun:test"
import {
  ACTION_BY_DECISION,
  CAUTION_FLAGS,
  DECISION_MODEL_VERSION,
  LIMITATIONS,
  MONITOR_FALLBACK,
  MONITOR_RULES,
  PRE_TRADE_FALLBACK,
  PRE_TRADE_RULES,
  preTradeDecision,
  type PreTradeInput,
  SELL_BLOCKING_FLAGS,
  WATCH_COMPARISONS,
  WATCH_METRICS
} from "../../../src/engines/DecisionRules/index.ts"
import * as M from "../../../src/engines/DecisionRules/model.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { decodeEvidence } from "../TokenScoring/fixtures.ts"
import { readDoc } from "../../support/markdownDoc.ts"

const { doc, jsonAfter, lines, rowOf: rowIn, sectionOf } = await readDoc("decision-engine.md")
const scoring = await readDoc("scoring-model.md")

const flat = (text: string) => text.replace(/\s+/g, " ")

const missingIn = (text: string, fragments: ReadonlyArray<string>) =>
  fragments.filter((fragment) => !flat(text).includes(fragment))

const ruleRows = (section: string) =>
  [...section.matchAll(/^\| (\d+) \| `([a-z_]+)` \| `([a-z_]+)` \|/gm)].map((match) => [
    Number(match[1]),
    match[2],
    match[3]
  ])

const backticked = (text: string) => [...text.matchAll(/`([a-z0-9_]+)`/g)].map((match) => match[1])

const paragraphAfter = (marker: string) => {
  const from = doc.indexOf(marker)
  return doc.slice(from + marker.length, doc.indexOf("\n\n", from))
}

const tiers = (entries: ReadonlyArray<M.PressureTier>) =>
  entries.map((tier) => `>= ${tier.threshold}: ${tier.level}`).join("; ")
const pct = (share: number) => `${share * 100}%`

describe("docs/decision-engine.md matches the code", () => {
  const preTrade = sectionOf("## Pre-trade decision")
  const monitor = sectionOf("## Position monitor")

  test("names the model version", () => {
    expect(lines[0]).toBe(`# Decision engine \`${DECISION_MODEL_VERSION}\``)
  })

  test("the pre-trade rule table is the rule list, in order", () => {
    const rules = [...PRE_TRADE_RULES, PRE_TRADE_FALLBACK].map((rule, index) => [index + 1, rule.id, rule.decision])
    expect(ruleRows(sectionOf("### Pre-trade rules"))).toEqual(rules)
  })

  test("the monitor rule table is the rule list, in order", () => {
    const rules = [...MONITOR_RULES, MONITOR_FALLBACK].map((rule, index) => [index + 1, rule.id, rule.decision])
    expect(ruleRows(sectionOf("### Monitor rules"))).toEqual(rules)
  })

  test("documents every decision value, with its action", () => {
    const preTradeRows = Object.entries(ACTION_BY_DECISION).map(
      ([decision, action]) => `| \`${decision}\` | \`${action}\` |`
    )
    const monitorRows = Object.keys(M.MONITOR_NEXT_CHECK_BY_DECISION).map((decision) => `| \`${decision}\` |`)
    expect([...missingIn(preTrade, preTradeRows), ...missingIn(sectionOf("### Decision values"), monitorRows)]).toEqual(
      []
    )
  })

  test("lists exactly the sell-blocking and the caution flags", () => {
    expect(backticked(paragraphAfter("Flags that stop a sell (rule 1):"))).toEqual([...SELL_BLOCKING_FLAGS])
    expect(backticked(paragraphAfter("verdict lets through:"))).toEqual([...CAUTION_FLAGS])
  })

  test("states the pre-trade thresholds and next-check times", () => {
    const fragments = [
      `or **${M.DEFAULT_MAX_EVIDENCE_AGE_SECONDS}** s`,
      `\`block\` below ${M.VERDICT_FLOOR.warn}, \`warn\` ${M.VERDICT_FLOOR.warn} to ${M.VERDICT_FLOOR.ok - 1}, \`ok\` ${M.VERDICT_FLOOR.ok} and above`,
      `more than **${pct(M.SIZE_REVIEW_SHARE)}** of liquidity`,
      `more than **${pct(M.SIZE_CAUTION_SHARE)}** and at most ${pct(M.SIZE_REVIEW_SHARE)} of liquidity`,
      `less than ${M.VERDICT_FLOOR.warn} + ${M.BORDERLINE_MARGIN}, or at least ${M.VERDICT_FLOOR.ok} and less than ${M.VERDICT_FLOOR.ok} + ${M.BORDERLINE_MARGIN}`,
      `of **${M.FAST_MOVE_PCT}**% or more`,
      `never below **${M.MIN_NEXT_CHECK_SECONDS}** s; **${M.MIN_NEXT_CHECK_SECONDS}** s when the evidence is stale`,
      ...Object.entries(M.PRE_TRADE_NEXT_CHECK_SECONDS).map(([risk, seconds]) => `| \`${risk}\` | ${seconds} |`)
    ]
    expect(missingIn(preTrade, fragments)).toEqual([])
  })

  test("each pressure signal row has its levels", () => {
    const signals = sectionOf("### Pressure signals")
    const rows: Readonly<Record<string, ReadonlyArray<string>>> = {
      liquidity_drain: [tiers(M.LIQUIDITY_DRAIN_PCT_TIERS)],
      sell_pressure: [tiers(M.SELL_SHARE_TIERS), `fewer than ${M.SELL_PRESSURE_MIN_TRADES} trades`],
      drawdown: [tiers(M.DRAWDOWN_PCT_TIERS)],
      holder_concentration: [tiers(M.CONCENTRATION_GAIN_PP_TIERS)],
      new_hard_caps: ["any: high"],
      deployer_activity: [
        "gained any, or flagged since the first scan: high; flagged: medium; more launches: low",
        `${tiers(M.DEV_SOLD_GAIN_PP_TIERS)}. The level is the higher of the two`
      ]
    }
    const missing = Object.entries(rows).flatMap(([signal, fragments]) =>
      missingIn(rowIn(signal, signals), fragments).map((f) => `${signal}: ${f}`)
    )
    expect(missing).toEqual([])
  })

  test("states the monitor's next-check times and confidence factor", () => {
    const fragments = [
      ...Object.entries(M.MONITOR_NEXT_CHECK_BY_PRESSURE).map(([level, seconds]) => `| \`${level}\` | ${seconds} |`),
      ...Object.entries(M.MONITOR_NEXT_CHECK_BY_DECISION).map(
        ([decision, seconds]) => `| \`${decision}\` | ${seconds} |`
      ),
      `times **${M.SINGLE_SCAN_CONFIDENCE_FACTOR}** when the window holds a single scan`,
      `more than ${pct(M.SIZE_REVIEW_SHARE)} of the latest liquidity`
    ]
    expect(missingIn(monitor, fragments)).toEqual([])
  })

  test("the watch metric table is the metric list, in order, with the comparisons", () => {
    const watch = sectionOf("## Watch rules")
    expect([...watch.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((match) => match[1])).toEqual([...WATCH_METRICS])
    expect(
      missingIn(
        watch,
        WATCH_COMPARISONS.map((comparison) => `\`${comparison}\``)
      )
    ).toEqual([])
  })

  test("names every limitation", () => {
    expect(LIMITATIONS.filter((limitation) => !doc.includes(`\`${limitation}\``))).toEqual([])
  })

  test("the worked example is what the engine decides", () => {
    const evidence = decodeEvidence(scoring.jsonAfter("<!-- worked-example-evidence -->"))
    const given = jsonAfter("<!-- worked-example-input -->") as Omit<PreTradeInput, "evidence" | "assessment">
    const decision = preTradeDecision({ ...given, evidence, assessment: assessToken(evidence) })
    expect(decision as unknown).toEqual(jsonAfter("<!-- worked-example-result -->"))
  })
})
