import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { monitorDecision, preTradeDecision } from "../../../src/engines/DecisionRules/index.ts"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import { riskCheckOf } from "../../../src/features/RiskCheck/Answer.ts"
import { answerOf, assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { tokenRiskPacketOf } from "../../../src/features/TokenRisk/Packet.ts"
import { randomEvidence } from "./randomEvidence.ts"

// 2.1, "one answer": verdict, safetyScore, riskLevel and recommendedAction come from one function (answerOf)
// and agree on every route over random evidence: risk-check, the token risk packet, pre-trade and monitor
// (MCP's tools answer with these routes' bodies: test/interfaces/Mcp holds them equal).
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000)
const params = { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20_261_126) }
const LEVEL_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const

describe(`one answer on every route (fast-check, ${RUNS} runs)`, () => {
  test("risk-check, token risk, pre-trade and monitor agree with answerOf(safetyScore)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 200_000 }),
        (seed, ageSeconds) => {
          const evidence = randomEvidence(seededRandom(seed))
          const now = Date.parse(evidence.scannedAt) + ageSeconds * 1000
          const assessment = assessToken(evidence)
          const answer = answerOf(assessment.safetyScore)
          const check = riskCheckOf(evidence.mint, { id: "1", evidence } as Parameters<typeof riskCheckOf>[1], now, 0)
          const packet = tokenRiskPacketOf(evidence, now)
          const buy = preTradeDecision({
            evidence,
            assessment,
            evidenceAgeSeconds: 0,
            side: "buy",
            sizeUsd: null,
            maxEvidenceAgeSeconds: null,
            wallet: null
          })
          const held = monitorDecision({
            history: [evidence],
            assessment,
            entryAssessment: null,
            evidenceAgeSeconds: 0,
            entryPriceUsd: null,
            entryTime: null,
            sizeUsd: null,
            watchRules: null,
            maxEvidenceAgeSeconds: null
          })
          const got = {
            assessment: {
              verdict: assessment.verdict,
              riskLevel: assessment.riskLevel,
              action: assessment.recommendedAction,
              riskScore: assessment.riskScore
            },
            riskCheck: { verdict: check.verdict, score: check.score },
            packet: {
              score: packet.safetyScore,
              riskLevel: packet.riskLevel,
              action: packet.recommendedAction,
              riskScore: packet.riskScore
            },
            preTrade: {
              rejectedWhenBlocked: answer.verdict !== "block" || buy.decision === "reject",
              proceedsOnlyWhenOk: buy.decision !== "proceed" || answer.verdict === "ok",
              riskNoLower: LEVEL_RANK[buy.risk] >= LEVEL_RANK[answer.riskLevel]
            },
            monitor: {
              exitsWhenBlocked: answer.verdict !== "block" || held.decision === "exit",
              holdsOnlyWhenOk: held.decision !== "hold" || answer.verdict === "ok",
              riskNoLower: LEVEL_RANK[held.risk] >= LEVEL_RANK[answer.riskLevel]
            }
          }
          expect(got).toEqual({
            assessment: {
              verdict: answer.verdict,
              riskLevel: answer.riskLevel,
              action: answer.recommendedAction,
              riskScore: answer.riskScore
            },
            riskCheck: { verdict: answer.verdict, score: answer.safetyScore },
            packet: {
              score: answer.safetyScore,
              riskLevel: answer.riskLevel,
              action: answer.recommendedAction,
              riskScore: answer.riskScore
            },
            preTrade: { rejectedWhenBlocked: true, proceedsOnlyWhenOk: true, riskNoLower: true },
            monitor: { exitsWhenBlocked: true, holdsOnlyWhenOk: true, riskNoLower: true }
          })
        }
      ),
      params
    )
  }, 300_000)

  test("the issue's case: thin evidence is warn on risk-check and high, caution in the packet", () => {
    const thin = randomEvidence(seededRandom(7))
    const evidence = { ...thin, holders: { ...thin.holders, top: [] }, trading: { ...thin.trading, isHoneypot: false } }
    const now = Date.parse(evidence.scannedAt)
    const check = riskCheckOf(evidence.mint, { id: "1", evidence } as Parameters<typeof riskCheckOf>[1], now, 0)
    const packet = tokenRiskPacketOf(evidence, now)
    expect(check.flags).toContain("thin_evidence")
    expect(check.verdict === "ok" || packet.riskLevel === "low" || packet.recommendedAction === "proceed").toBe(false)
  })
})
