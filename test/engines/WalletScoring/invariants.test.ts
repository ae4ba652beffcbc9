import { describe, expect, test } from "bun:test"
import { seededRandom, type Random } from "../../../src/features/Demo/random.ts"
import type { Severity } from "../../../src/domain/WalletEvidence.ts"
import {
  ACTION_BY_LEVEL,
  assessWallet,
  riskLevelOf,
  type WalletAssessment
} from "../../../src/engines/WalletScoring/index.ts"
import * as M from "../../../src/engines/WalletScoring/model.ts"
import { addressOf, type EvidencePatch, evidenceOf, exposureOf, labelOf, tokenOf, WALLET } from "./fixtures.ts"

const RUNS = 1_000
const SEVERITIES: ReadonlyArray<Severity> = ["info", "low", "medium", "high", "critical"]
const LABELS = ["sanctioned", "scam", "mixer", "rugger", "exchange", "market_maker", "drainer", "honeypot_deployer"]
const CATEGORIES = [
  "sanctions",
  "mixer",
  "scam",
  "exploit",
  "fraud",
  "stolen_funds",
  "exchange",
  "dex",
  "deployer",
  "service"
]
const SIGNALS = [
  "adverse_label",
  "flagged_counterparty_exposure",
  "repeat_deployer_exposure",
  "deployed_rugs",
  "deployed_honeypots",
  "deployed_low_score_tokens"
]
const RANK: Readonly<Record<Severity, number>> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 }

const randomLabel = (random: Random, address: string) =>
  labelOf({
    address,
    label: random.pick(LABELS),
    severity: random.pick(SEVERITIES),
    source: random.pick(["ofac_list", "manual_review"])
  })

// Empty about a fifth of the time, so that the no-evidence case is drawn too.
const randomEvidence = (random: Random): EvidencePatch => {
  const counterparties = Array.from({ length: random.int(0, 5) }, () => addressOf(random.int(2, 30)))
  const some = <A>(make: () => A, max: number): ReadonlyArray<A> =>
    random.chance(0.4) ? [] : Array.from({ length: random.int(1, max) }, make)
  return {
    labels: some(() => randomLabel(random, WALLET), 3),
    exposures: counterparties.flatMap((counterpartyAddress) =>
      some(
        () =>
          exposureOf({
            counterpartyAddress,
            category: random.pick(CATEGORIES),
            counterpartyLabel: random.chance(0.2) ? "rugger" : "",
            hopDistance: random.int(1, 6),
            exposureAmountUsd: random.chance(0.1) ? 0 : random.logUniform(1, 10_000_000),
            exposurePct: random.float(0, 100)
          }),
        3
      )
    ),
    counterpartyLabels: counterparties.flatMap((address) => some(() => randomLabel(random, address), 2)),
    counterpartyLaunches: counterparties.flatMap((address) =>
      random.chance(0.5)
        ? []
        : [[address, { launches: random.int(1, 8), rugged: random.int(0, 3), honeypots: random.int(0, 3) }] as const]
    ),
    deployedTokens: some(
      () =>
        tokenOf(random.int(0, 50), {
          safetyScore: random.int(0, 100),
          isHoneypot: random.pick([true, false, null]),
          outcome: random.pick(["active", "rugged", "abandoned", null])
        }),
      6
    )
  }
}

const random = seededRandom(20_260_601)
const assessments = Array.from({ length: RUNS }, () => assessWallet(evidenceOf(randomEvidence(random))))

// Every assessment that breaks `holds`, so that a failure prints what it got.
const violations = (holds: (assessment: WalletAssessment) => boolean) =>
  assessments.filter((a) => !holds(a)).slice(0, 3)

describe(`invariants over ${RUNS} seeded random evidences`, () => {
  test("draws every level and the no-evidence case", () => {
    const seen = new Set(assessments.map((a) => (a.hasEvidence ? a.riskLevel : "none")))
    expect([...seen].sort()).toEqual(["critical", "high", "low", "medium", "none"])
  })

  test("riskScore is an integer from 0 to 100 and the capped sum of the signal points", () => {
    expect(
      violations(
        (a) =>
          Number.isInteger(a.riskScore) &&
          a.riskScore >= 0 &&
          a.riskScore <= M.MAX_RISK_SCORE &&
          a.riskScore ===
            Math.min(
              M.MAX_RISK_SCORE,
              a.signals.reduce((total, signal) => total + signal.points, 0)
            )
      )
    ).toEqual([])
  })

  test("level and action follow from the score, and no evidence monitors with low confidence", () => {
    expect(
      violations(
        (a) =>
          a.riskLevel === riskLevelOf(a.riskScore) &&
          (a.hasEvidence
            ? a.recommendedAction === ACTION_BY_LEVEL[a.riskLevel] && a.confidence !== "low"
            : a.recommendedAction === "monitor" && a.confidence === "low" && a.riskScore === 0)
      )
    ).toEqual([])
  })

  test("signals are documented, positive integers, most severe first, never above the wallet's level", () => {
    expect(
      violations((a) =>
        a.signals.every(
          (signal, i) =>
            SIGNALS.includes(signal.label) &&
            Number.isInteger(signal.points) &&
            signal.points > 0 &&
            RANK[signal.severity] <= RANK[a.riskLevel] &&
            (i === 0 ||
              (signal.points <= a.signals[i - 1]!.points && RANK[signal.severity] <= RANK[a.signals[i - 1]!.severity]))
        )
      )
    ).toEqual([])
  })

  test("exposure signals stay under their caps", () => {
    const caps: Readonly<Record<string, number>> = {
      flagged_counterparty_exposure: M.FLAGGED_EXPOSURE_CAP,
      repeat_deployer_exposure: M.REPEAT_DEPLOYER_CAP
    }
    expect(
      violations((a) => a.signals.every((signal) => signal.points <= (caps[signal.label] ?? M.MAX_RISK_SCORE)))
    ).toEqual([])
  })

  test("sources are known, in order, and empty exactly without evidence", () => {
    const order = ["wallet_labels", "wallet_exposures", "token_scans"]
    expect(
      violations(
        (a) =>
          a.sources.every(
            (source, i) =>
              order.includes(source) && (i === 0 || order.indexOf(source) > order.indexOf(a.sources[i - 1]!))
          ) && (a.sources.length === 0) === !a.hasEvidence
      )
    ).toEqual([])
  })

  test("every summary quotes the score and level and states that this is screening", () => {
    expect(
      violations(
        (a) =>
          a.summary.includes("not a legal compliance determination") &&
          (a.hasEvidence
            ? a.summary.startsWith(`Risk score ${a.riskScore}/100: ${a.riskLevel} risk`)
            : a.summary.includes("No cached evidence"))
      )
    ).toEqual([])
  })
})
