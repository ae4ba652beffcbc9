import { describe, expect, test } from "bun:test"
import { assessWallet, SCREENING_NOTICE, WALLET_MODEL_VERSION } from "../../../src/engines/WalletScoring/index.ts"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import {
  CLEAN_EVIDENCE,
  COUNTERPARTY,
  evidenceOf,
  type EvidencePatch,
  exposureOf,
  labelOf,
  OTHER_COUNTERPARTY,
  tokenOf
} from "./fixtures.ts"

const SANCTIONED = labelOf({
  label: "sanctioned",
  category: "sanctions",
  severity: "critical",
  source: "ofac_list",
  detail: "SDN list entry"
})

describe("a wallet with no cached evidence", () => {
  const assessment = assessWallet(evidenceOf())

  test("is a low-confidence answer that monitors, never a confident low risk", () => {
    const { summary: _summary, ...fields } = assessment
    expect(fields).toEqual({
      riskScore: 0,
      riskLevel: "low",
      confidence: "low",
      recommendedAction: "monitor",
      signals: [],
      sources: [],
      modelVersion: WALLET_MODEL_VERSION,
      hasEvidence: false
    })
  })

  test("says that no evidence was found and that this is not a finding of low risk", () => {
    expect(assessment.summary).toContain("No cached evidence for this wallet")
    expect(assessment.summary).toContain("not a finding of low risk")
    expect(assessment.summary).toContain("absence of evidence is not evidence of low risk")
    expect(assessment.summary).toContain(SCREENING_NOTICE)
  })

  test("stays so when only counterparty data is present without exposures", () => {
    const orphan = evidenceOf({
      counterpartyLabels: [labelOf({ address: COUNTERPARTY, severity: "critical" })],
      counterpartyLaunches: [[COUNTERPARTY, { launches: 3, rugged: 3, honeypots: 0 }]]
    })
    expect(assessWallet(orphan)).toEqual(assessment)
  })
})

describe("a sanctioned wallet", () => {
  test("is critical and escalates on the label alone, with high confidence", () => {
    const assessment = assessWallet(evidenceOf({ labels: [SANCTIONED] }))
    expect([assessment.riskScore, assessment.riskLevel, assessment.recommendedAction, assessment.confidence]).toEqual([
      100,
      "critical",
      "escalate",
      "high"
    ])
    expect(assessment.signals).toEqual([
      {
        label: "adverse_label",
        severity: "critical",
        points: 100,
        detail:
          "Labelled sanctioned (category sanctions, severity critical) by ofac_list, observed 2026-06-01T12:00:00.000Z: SDN list entry",
        source: "ofac_list"
      }
    ])
    expect(assessment.sources).toEqual(["wallet_labels"])
  })

  test("stays critical beside benign evidence", () => {
    const clean = CLEAN_EVIDENCE
    const assessment = assessWallet(evidenceOf({ ...clean, labels: [...(clean.labels ?? []), SANCTIONED] }))
    expect([assessment.riskLevel, assessment.recommendedAction]).toEqual(["critical", "escalate"])
  })

  test("counts the same label from two sources once and names the other source", () => {
    const again = labelOf({ label: "sanctioned", category: "sanctions", severity: "high", source: "community_report" })
    const signals = assessWallet(evidenceOf({ labels: [again, SANCTIONED] })).signals
    expect(signals.map((signal) => [signal.points, signal.source])).toEqual([[100, "ofac_list"]])
    expect(signals[0]?.detail).toContain("also reported by community_report")
  })
})

describe("a deployer", () => {
  const assess = (tokens: EvidencePatch["deployedTokens"]) => assessWallet(evidenceOf({ deployedTokens: tokens ?? [] }))
  const levelOf = (tokens: EvidencePatch["deployedTokens"]) => {
    const assessment = assess(tokens)
    return [assessment.riskLevel, assessment.recommendedAction, assessment.confidence]
  }

  test("with two rugged launches is a critical serial rugger", () => {
    expect(levelOf([tokenOf(1, { outcome: "rugged" }), tokenOf(2, { outcome: "rugged" }), tokenOf(3)])).toEqual([
      "critical",
      "escalate",
      "high"
    ])
  })

  test("with a rug and a honeypot is critical", () => {
    expect(levelOf([tokenOf(1, { outcome: "rugged" }), tokenOf(2, { isHoneypot: true })])).toEqual([
      "critical",
      "escalate",
      "high"
    ])
  })

  test("with two honeypots is critical", () => {
    expect(levelOf([tokenOf(1, { isHoneypot: true }), tokenOf(2, { isHoneypot: true })])).toEqual([
      "critical",
      "escalate",
      "high"
    ])
  })

  test("with one rugged honeypot is one bad launch: high, not critical", () => {
    expect(levelOf([tokenOf(1, { outcome: "rugged", isHoneypot: true })])).toEqual(["high", "review", "high"])
  })

  test("with healthy launches only is low and allowed", () => {
    expect(levelOf([tokenOf(1), tokenOf(2), tokenOf(3)])).toEqual(["low", "allow", "medium"])
  })
})

describe("a clean wallet", () => {
  const assessment = assessWallet(evidenceOf(CLEAN_EVIDENCE))

  test("with an exchange label and unflagged counterparties is low and allowed, with confidence", () => {
    expect([assessment.riskScore, assessment.riskLevel, assessment.recommendedAction, assessment.hasEvidence]).toEqual([
      0,
      "low",
      "allow",
      true
    ])
    expect(["high", "medium"]).toContain(assessment.confidence)
    expect(assessment.sources).toEqual(["wallet_labels", "wallet_exposures", "token_scans"])
  })

  test("says what was screened and which labels add no risk", () => {
    expect(assessment.summary).toBe(
      "Risk score 0/100: low risk, recommended action allow (confidence high). No risk signal fired on 1 label, " +
        `2 exposures and 0 deployed tokens. Labels that add no risk: exchange (info). ${SCREENING_NOTICE}`
    )
  })

  test("with exposures only has medium confidence", () => {
    const exposuresOnly = assessWallet(evidenceOf({ exposures: CLEAN_EVIDENCE.exposures ?? [] }))
    expect([
      exposuresOnly.riskLevel,
      exposuresOnly.recommendedAction,
      exposuresOnly.confidence,
      exposuresOnly.sources
    ]).toEqual(["low", "allow", "medium", ["wallet_exposures"]])
  })
})

describe("the packet of the spec", () => {
  test("an adverse label and a repeat-deployer exposure: critical, escalate, most severe first", () => {
    const assessment = assessWallet(
      evidenceOf({
        labels: [labelOf({ label: "scam", category: "fraud", severity: "critical" })],
        exposures: [
          exposureOf({
            category: "deployer",
            counterpartyLabel: "rugger",
            exposureType: "swap",
            exposureAmountUsd: 500_000
          })
        ]
      })
    )
    expect(assessment.signals.map((signal) => [signal.label, signal.severity, signal.source])).toEqual([
      ["adverse_label", "critical", "manual_review"],
      ["repeat_deployer_exposure", "high", "wallet_exposures"]
    ])
    expect([assessment.riskLevel, assessment.recommendedAction, assessment.confidence]).toEqual([
      "critical",
      "escalate",
      "high"
    ])
    expect(assessment.summary).toStartWith(
      "Risk score 100/100: critical risk, recommended action escalate (confidence high). " +
        "Main signals: labelled scam by manual_review (critical, 100 points); exposure to 1 repeat deployer, nearest at hop 1"
    )
  })
})

describe("determinism", () => {
  const RICH: EvidencePatch = {
    labels: [
      SANCTIONED,
      labelOf({ label: "scam", severity: "medium", source: "community_report" }),
      labelOf({ label: "exchange", severity: "info" })
    ],
    exposures: [
      exposureOf({ hopDistance: 2 }),
      exposureOf({
        counterpartyAddress: OTHER_COUNTERPARTY,
        category: "deployer",
        exposureType: "swap",
        exposureAmountUsd: 3_000
      }),
      exposureOf({ category: "mixer", direction: "inbound", exposureAmountUsd: 800 }),
      exposureOf({ category: "mixer", direction: "inbound", exposureAmountUsd: 800, exposurePct: 1 })
    ],
    counterpartyLabels: [labelOf({ address: COUNTERPARTY, label: "drainer", severity: "high" })],
    counterpartyLaunches: [[OTHER_COUNTERPARTY, { launches: 6, rugged: 1, honeypots: 2 }]],
    deployedTokens: [
      tokenOf(1, { outcome: "rugged" }),
      tokenOf(2, { safetyScore: 12 }),
      tokenOf(3, { isHoneypot: true })
    ]
  }

  test("the same evidence gives the same assessment", () => {
    expect(assessWallet(evidenceOf(RICH))).toEqual(assessWallet(evidenceOf(RICH)))
  })

  test("the order of the evidence does not matter", () => {
    const reference = assessWallet(evidenceOf(RICH))
    const random = seededRandom(4)
    for (let run = 0; run < 20; run++) {
      const shuffled: EvidencePatch = {
        labels: random.shuffle(RICH.labels ?? []),
        exposures: random.shuffle(RICH.exposures ?? []),
        counterpartyLabels: random.shuffle(RICH.counterpartyLabels ?? []),
        counterpartyLaunches: random.shuffle(RICH.counterpartyLaunches ?? []),
        deployedTokens: random.shuffle(RICH.deployedTokens ?? [])
      }
      expect(assessWallet(evidenceOf(shuffled))).toEqual(reference)
    }
  })
})
