import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import type { Meta } from "../../../src/features/Accounts/Meta.ts"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import { epochMillisOf } from "../../../src/domain/ScanEvidence.ts"
import { tokenRiskBodyOf, tokenRiskPacketOf } from "../../../src/features/TokenRisk/Packet.ts"
import { TokenRiskResponse } from "../../../src/features/TokenRisk/Schemas.ts"
import { decodeScan } from "../../support/fixtures.ts"
import { randomEvidence } from "../../engines/TokenScoring/randomEvidence.ts"

// The token risk answer is written from kept JSON fragments, not encoded per call: its bytes must be those
// HttpApi writes for the success schema (JSON.stringify of the encoded TokenRiskResponse), at every age.
const encode = Schema.encodeSync(TokenRiskResponse)
const random = seededRandom(20_261_124)
const evidences = [
  ...generateDemoDataset({ now: new Date(), tokens: 300 }).scans.map((scan) => decodeScan(scan)),
  ...Array.from({ length: 300 }, () => randomEvidence(random))
]
const AGES_SECONDS = [0, 59, 60, 299, 300, 1_800, 3_600, 3_601, 86_400, 10_000_000]

// Fields in another order than the schema's, as a caller of tokenRiskBodyOf may build them.
const metaAt = (now: number, used: number): Meta => ({
  cacheMode: "latest_cached_scan",
  costUnits: 1,
  contractVersion: "2026-11-01",
  generatedAt: new Date(now).toISOString(),
  quota: { remaining: 100 - used, used, limit: 100 },
  scope: "token:risk:read",
  requestId: `req-${used}`
})

describe("token risk answer body", () => {
  test(`is the encoded TokenRiskResponse, byte for byte (${evidences.length} scans × ${AGES_SECONDS.length} ages, twice)`, () => {
    const mismatches: Array<string> = []
    for (const round of [1, 2]) {
      // the second round answers from the kept fragments
      for (const evidence of evidences) {
        for (const age of AGES_SECONDS) {
          const now = epochMillisOf(evidence.scannedAt) + age * 1000 + 250
          const meta = metaAt(now, round)
          const expected = JSON.stringify(encode({ data: tokenRiskPacketOf(evidence, now), meta }))
          const got = tokenRiskBodyOf(evidence, now, meta)
          if (got !== expected && mismatches.length < 3)
            mismatches.push(`${evidence.mint} at ${age} s:\n${got}\n${expected}`)
        }
      }
    }
    expect(mismatches).toEqual([])
  })
})
