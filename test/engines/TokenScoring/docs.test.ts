import { describe, expect, test } from "bun:test"
import {
  assessToken,
  confidenceOf,
  EVIDENCE_WEIGHTS,
  FLAGS,
  MODEL_VERSION
} from "../../../src/engines/TokenScoring/index.ts"
import {
  AGE_FACTOR_PCT,
  BLOCK_COMPLETENESS_FLOOR_PCT,
  CONFIDENCE_LABEL_THRESHOLDS,
  SCAN_DEPTH_FACTOR_PCT
} from "../../../src/engines/TokenScoring/confidence.ts"
import * as M from "../../../src/engines/TokenScoring/model.ts"
import { decodeEvidence } from "./fixtures.ts"
import { FIRING_CASES } from "./ruleCases.ts"
import { readDoc } from "../../support/markdownDoc.ts"

const { doc, jsonAfter, lines, rowOf, sectionOf } = await readDoc("scoring-model.md")

const atLeast = (tiers: ReadonlyArray<M.Tier>) => tiers.map((tier) => `>= ${tier.threshold}: ${tier.points}`).join("; ")
const below = (tiers: ReadonlyArray<M.Tier>) => tiers.map((tier) => `< ${tier.threshold}: ${tier.points}`).join("; ")
const issuer = (control: M.IssuerControlPoints) => `${control.points}; verified ${control.verifiedPoints}`
const cap = (hardCap: M.HardCap) => `${hardCap.name}:${hardCap.ceiling}`

// What the row of each rule must say, built from the constants of the model.
const ROWS: Readonly<Record<string, ReadonlyArray<string>>> = {
  honeypot: [`| ${M.HONEYPOT_POINTS} |`, cap(M.CAPS.honeypot)],
  non_transferable: [`| ${M.NON_TRANSFERABLE_POINTS} |`, cap(M.CAPS.nonTransferable)],
  default_frozen: [issuer(M.ISSUER_CONTROL.defaultFrozen), cap(M.CAPS.defaultFrozen)],
  mint_authority_active: [issuer(M.ISSUER_CONTROL.mintAuthority), `${cap(M.CAPS.mintAuthority)} (not when verified)`],
  freeze_authority_active: [
    issuer(M.ISSUER_CONTROL.freezeAuthority),
    `${cap(M.CAPS.freezeAuthority)} (not when verified)`
  ],
  permanent_delegate: [
    issuer(M.ISSUER_CONTROL.permanentDelegate),
    `${cap(M.CAPS.permanentDelegate)} (not when verified)`
  ],
  transfer_hook: [issuer(M.ISSUER_CONTROL.transferHook), `${cap(M.CAPS.transferHook)} (not when verified)`],
  pausable: [issuer(M.ISSUER_CONTROL.pausable), `${cap(M.CAPS.pausable)} (not when verified, unless paused now)`],
  mint_close_authority: [issuer(M.ISSUER_CONTROL.mintCloseAuthority)],
  transfer_fee: [`| ${M.TRANSFER_FEE_POINTS} |`],
  buy_tax: [atLeast(M.BUY_TAX_TIERS)],
  sell_tax: [
    atLeast(M.SELL_TAX_TIERS),
    `${cap(M.CAPS.extremeTax)} (at >= ${M.EXTREME_TAX_PCT}); ${cap(M.CAPS.severeTax)} (at >= ${M.SEVERE_TAX_PCT}); ${cap(M.CAPS.highTax)} (at >= ${M.HIGH_TAX_PCT})`
  ],
  thin_liquidity_for_cap: [`× 100 < ${M.LIQUIDITY_TO_MCAP_PCT}`, `| ${M.THIN_LIQUIDITY_FOR_CAP_POINTS} |`],
  liquidity_drop: [`>= ${M.LIQUIDITY_DROP_PCT}`, `| ${M.LIQUIDITY_DROP_POINTS} |`, cap(M.CAPS.liquidityPull)],
  thin_evidence: [`completeness < ${M.THIN_EVIDENCE_COMPLETENESS_PCT}%`, "| 0 |", cap(M.CAPS.thinEvidence)],
  impersonation: [`| ${M.IMPERSONATION_POINTS} |`, `${cap(M.CAPS.impersonation)} (not when listed)`],
  no_market: [`| ${M.NO_MARKET_POINTS} |`, cap(M.CAPS.noMarket)],
  low_liquidity: [below(M.LIQUIDITY_USD_TIERS)],
  lp_unlocked: [
    `| ${M.LP_UNLOCKED_POINTS} |`,
    `${cap(M.CAPS.pullableLiquidity)} (not when verified`,
    `under ${M.LP_WIDELY_HELD_PCT})`
  ],
  positions_unlocked: [
    atLeast(M.POSITIONS_CREATOR_PCT_TIERS),
    `${cap(M.CAPS.pullableLiquidity)} (at >= ${M.POSITIONS_PULLABLE_PCT}, not when verified)`
  ],
  lp_partially_locked: [below(M.LP_LOCKED_PCT_TIERS)],
  lp_lock_expiring: [`within ${M.LP_LOCK_EXPIRY_WINDOW_HOURS} hours`, `| ${M.LP_LOCK_EXPIRING_POINTS} |`],
  rugged: [`| ${M.RUGGED_POINTS} |`, cap(M.CAPS.rugged)],
  top10_concentration: [atLeast(M.TOP10_PCT_TIERS)],
  single_holder_concentration: [atLeast(M.SINGLE_HOLDER_PCT_TIERS)],
  creator_holding: [atLeast(M.CREATOR_PCT_TIERS)],
  bundled_launch: [
    atLeast(M.BUNDLED_LAUNCH_PCT_TIERS),
    `${cap(M.CAPS.launchCapture)} (launch capture >= ${M.LAUNCH_CAPTURE_PCT})`
  ],
  insider_holding: [atLeast(M.INSIDER_PCT_TIERS)],
  sniped_launch: [
    atLeast(M.SNIPER_PCT_TIERS),
    `${cap(M.CAPS.launchCapture)} (launch capture >= ${M.LAUNCH_CAPTURE_PCT})`
  ],
  dev_sold: [
    atLeast(M.DEV_SOLD_PCT_TIERS),
    `\`deployer.initialPct\` < ${M.DEV_SOLD_MIN_INITIAL_PCT} `,
    `${cap(M.CAPS.devSold)} (at >= ${M.DEV_SOLD_CAP_PCT}, token younger than ${M.DEV_SOLD_YOUNG_HOURS} hours`
  ],
  deployer_prior_rugs: [
    atLeast(M.PRIOR_RUG_TIERS),
    `${cap(M.CAPS.serialRugger)} (at >= ${M.SERIAL_OFFENCE_COUNT})`,
    `\`deployer.priorLaunches\` >= ${M.RATE_MIN_LAUNCHES}: under ${M.RARE_RUG_RATE_PCT}% of launches costs ${M.RARE_RUG_POINTS}`
  ],
  deployer_prior_honeypots: [
    atLeast(M.PRIOR_HONEYPOT_TIERS),
    `${cap(M.CAPS.serialHoneypotDeployer)} (at >= ${M.SERIAL_OFFENCE_COUNT})`
  ],
  new_token: [below(M.TOKEN_AGE_HOURS_TIERS)],
  few_holders: [below(M.HOLDER_COUNT_TIERS)],
  wash_trading: [`volume / depth >= ${M.WASH_VOLUME_TO_LIQUIDITY}`, `| ${M.WASH_TRADING_POINTS} |`],
  low_organic_volume: [
    `trade count >= ${M.TRADES_PER_TRADER_MIN_TRADES}`,
    `\`market.uniqueTraders24h\` >= ${M.TRADES_PER_TRADER}`,
    `| ${M.LOW_ORGANIC_VOLUME_POINTS} |`
  ],
  extreme_volatility: [atLeast(M.VOLATILITY_PCT_TIERS)],
  sell_pressure: [
    `>= ${M.SELL_PRESSURE_MIN_TRADES}`,
    `(buys + sells) >= ${M.SELL_PRESSURE_SHARE}`,
    `| ${M.SELL_PRESSURE_POINTS} |`
  ],
  micro_market_cap: [below(M.MARKET_CAP_USD_TIERS)],
  abandoned: [`| ${M.ABANDONED_POINTS} |`, cap(M.CAPS.abandoned)],
  mutable_metadata: [`| ${M.MUTABLE_METADATA_POINTS}; listed ${M.LISTED_MUTABLE_METADATA_POINTS} |`],
  missing_name_or_symbol: [`| ${M.MISSING_NAME_OR_SYMBOL_POINTS} |`],
  copycat: [`| ${M.COPYCAT_POINTS}; listed ${M.LISTED_COPYCAT_POINTS} |`],
  deployer_flagged: [`| ${M.DEPLOYER_FLAGGED_POINTS} |`],
  flagged_holders: [`${atLeast(M.FLAGGED_HOLDER_PCT_TIERS)}; any: ${M.FLAGGED_HOLDER_ANY_POINTS}`]
}

describe("docs/scoring-model.md matches the code", () => {
  test("names the model version", () => {
    expect(lines[0]).toBe(`# Scoring model \`${MODEL_VERSION}\``)
  })

  test("documents exactly the rules the tests exercise", () => {
    const documented = [...sectionOf("## Rules").matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((match) => match[1])
    const rules = Object.keys(ROWS).sort()
    expect(documented.sort()).toEqual(rules)
    expect([...new Set(FIRING_CASES.map((ruleCase) => ruleCase.rule))].sort()).toEqual(rules)
  })

  for (const [rule, fragments] of Object.entries(ROWS)) {
    test(`the row of ${rule} has its points, thresholds and cap`, () => {
      const row = rowOf(rule)
      expect(fragments.filter((fragment) => !row.includes(fragment))).toEqual([])
    })
  }

  test("lists every hard cap with its ceiling", () => {
    const missing = Object.values(M.CAPS).filter((hardCap) => !doc.includes(`| ${cap(hardCap)} | ${hardCap.ceiling} |`))
    expect(missing).toEqual([])
  })

  test("lists exactly the flags of the model, in order", () => {
    const listed = [
      ...sectionOf("## Flags")
        .split("complete list:")[1]!
        .matchAll(/`([a-z0-9_]+)`/g)
    ].map((match) => match[1])
    expect(listed).toEqual([...FLAGS])
  })

  test("states the risk level thresholds, facet multiplier, weights and confidence factors", () => {
    const { low, medium, high } = M.RISK_LEVEL_THRESHOLDS
    const fragments = [
      `| ${low}–100 | \`low\` | \`proceed\``,
      `| ${medium}–${low - 1} | \`medium\` | \`monitor\``,
      `| ${high}–${medium - 1} | \`high\` | \`caution\``,
      `| 0–${high - 1} | \`critical\` | \`avoid\``,
      `loses **${M.FACET_PENALTY_MULTIPLIER} ×**`,
      ...EVIDENCE_WEIGHTS.map((entry) => `| ${entry.evidence} | ${entry.weight} |`),
      `\`full\` ${SCAN_DEPTH_FACTOR_PCT.full}, \`partial\` ${SCAN_DEPTH_FACTOR_PCT.partial}, \`metadata_only\` ${SCAN_DEPTH_FACTOR_PCT.metadata_only}`,
      `(fresh) ${AGE_FACTOR_PCT.fresh}; 300–3600 (stale) ${AGE_FACTOR_PCT.stale}; up to 86400 (a day) ${AGE_FACTOR_PCT.day};\n  older ${AGE_FACTOR_PCT.older}`,
      `counts as at least **${BLOCK_COMPLETENESS_FLOOR_PCT}**`,
      `\`high\` when the score is >= ${CONFIDENCE_LABEL_THRESHOLDS.high}, \`medium\` when >= ${CONFIDENCE_LABEL_THRESHOLDS.medium}`
    ]
    expect(fragments.filter((fragment) => !doc.includes(fragment))).toEqual([])
  })

  test("the worked example is what the engine computes", () => {
    const evidence = decodeEvidence(jsonAfter("<!-- worked-example-evidence -->"))
    const assessment = assessToken(evidence)
    const { summary: _summary, risks: _risks, ...scored } = assessment
    const computed: Record<string, unknown> = {
      ...scored,
      confidenceAt240Seconds: confidenceOf(assessment, evidence, 240)
    }
    expect(computed).toEqual(jsonAfter("<!-- worked-example-result -->") as Record<string, unknown>)
  })
})
