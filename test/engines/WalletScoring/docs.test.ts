import { describe, expect, test } from "bun:test"
import type { Tier } from "../../../src/engines/TokenScoring/model.ts"
import { assessWallet, WALLET_MODEL_VERSION } from "../../../src/engines/WalletScoring/index.ts"
import { riskLevelOf } from "../../../src/engines/WalletScoring/levels.ts"
import * as M from "../../../src/engines/WalletScoring/model.ts"
import { SIGNAL_CASES } from "./signalCases.ts"
import { walletEvidenceFromJson } from "./workedExample.ts"
import { readDoc } from "../../support/markdownDoc.ts"

const { doc, jsonAfter, lines, rowOf, sectionOf } = await readDoc("wallet-model.md")

const atLeast = (tiers: ReadonlyArray<Tier>) => tiers.map((tier) => `>= ${tier.threshold}: ${tier.points}`).join("; ")
const bySeverity = (points: Readonly<Record<"medium" | "high" | "critical", number>>) =>
  `medium ${points.medium}; high ${points.high}; critical ${points.critical}`

// What the row of each signal must say, built from the constants of the model.
const ROWS: Readonly<Record<string, ReadonlyArray<string>>> = {
  adverse_label: [`| ${bySeverity(M.ADVERSE_LABEL_POINTS)} |`, "the label's `source`"],
  flagged_counterparty_exposure: [
    `base: ${bySeverity(M.COUNTERPARTY_SEVERITY_POINTS)}`,
    `cap ${M.FLAGGED_EXPOSURE_CAP}`,
    "`wallet_exposures`"
  ],
  repeat_deployer_exposure: [
    `base: serial ${M.REPEAT_DEPLOYER_POINTS.serial}; single ${M.REPEAT_DEPLOYER_POINTS.single}`,
    `>= ${M.SERIAL_OFFENCE_COUNT} bad launches`,
    `cap ${M.REPEAT_DEPLOYER_CAP}`,
    "`wallet_exposures`"
  ],
  deployed_rugs: [atLeast(M.DEPLOYED_RUG_TIERS), "`token_scans`"],
  deployed_honeypots: [atLeast(M.DEPLOYED_HONEYPOT_TIERS), "`token_scans`"],
  deployed_low_score_tokens: [
    atLeast(M.DEPLOYED_LOW_SCORE_TIERS),
    `\`safetyScore\` < ${M.LOW_SAFETY_SCORE}`,
    "`token_scans`"
  ]
}

describe("docs/wallet-model.md matches the code", () => {
  test("names the model version", () => {
    expect(lines[0]).toBe(`# Wallet risk model \`${WALLET_MODEL_VERSION}\``)
  })

  test("documents exactly the signals the tests exercise", () => {
    const documented = [...sectionOf("## Signals").matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((match) => match[1])
    const signals = Object.keys(ROWS).sort()
    expect(documented.sort()).toEqual(signals)
    expect([...new Set(SIGNAL_CASES.map((signalCase) => signalCase.signal))].sort()).toEqual(signals)
  })

  for (const [signal, fragments] of Object.entries(ROWS)) {
    test(`the row of ${signal} has its points, thresholds, cap and source`, () => {
      const row = rowOf(signal)
      expect(fragments.filter((fragment) => !row.includes(fragment))).toEqual([])
    })
  }

  test("lists the adverse categories and the deployer-conduct labels", () => {
    const fragments = [
      ...Object.entries(M.ADVERSE_EXPOSURE_CATEGORIES).map(([category, severity]) => `\`${category}\` (${severity})`),
      `Deployer-conduct labels: ${M.DEPLOYER_CONDUCT_LABELS.map((label) => `\`${label}\``).join(", ")}.`
    ]
    expect(fragments.filter((fragment) => !doc.includes(fragment))).toEqual([])
  })

  test("states the weighting formula, the level thresholds and the confidence rule", () => {
    const { critical, high, medium } = M.RISK_LEVEL_THRESHOLDS
    const fragments = [
      `max(log10(1 + exposureAmountUsd) / log10(1 + ${M.FULL_WEIGHT_USD}), exposurePct / ${M.FULL_WEIGHT_PCT})`,
      `hop decay = ${M.HOP_DECAY} ^ (hopDistance - 1)`,
      `| ${critical}–${M.MAX_RISK_SCORE} | \`critical\` | \`escalate\``,
      `| ${high}–${critical - 1} | \`high\` | \`review\``,
      `| ${medium}–${high - 1} | \`medium\` | \`monitor\``,
      `| 0–${medium - 1} | \`low\` | \`allow\``,
      `evidence came from at least ${M.CONFIDENT_SOURCE_COUNT} sources`,
      "**`confidence` `low`**, **`recommendedAction` `monitor`** (not `allow`)",
      "not a legal compliance determination",
      "must not be used to automate final legal decisions"
    ]
    expect(fragments.filter((fragment) => !doc.includes(fragment))).toEqual([])
  })

  test("label points give the label's own severity", () => {
    const severities = (["medium", "high", "critical"] as const).map((severity) =>
      riskLevelOf(M.ADVERSE_LABEL_POINTS[severity])
    )
    expect(severities).toEqual(["medium", "high", "critical"])
  })

  test("the worked example is what the model computes", () => {
    const assessment = assessWallet(walletEvidenceFromJson(jsonAfter("<!-- worked-example-evidence -->")))
    expect(assessment as unknown).toEqual(jsonAfter("<!-- worked-example-result -->"))
  })
})
