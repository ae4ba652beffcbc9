import { describe, expect, test } from "bun:test"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import {
  batchAnswer,
  batchOf,
  checkAnswer,
  neverScannedJson,
  riskCheckOf
} from "../../../src/features/RiskCheck/Answer.ts"
import { newAddress } from "../../support/fixtures.ts"
import type { StoredScan } from "../../../src/features/Scans/ScansRepo.ts"

// The answers are spliced from pre-serialized fragments (src/features/RiskCheck/Answer.ts): held here to the bytes
// JSON.stringify gives for the object riskCheckOf and batchOf build, at every age band, and in a batch.

const dataset = generateDemoDataset({ now: new Date(), tokens: 40 })
const scans: ReadonlyArray<StoredScan> = dataset.scans.map((evidence, i) => ({
  id: String(i),
  evidence: evidence as ScanEvidence
}))
const AGES = [0, 1, 299, 300, 301, 3_600, 3_601, 86_400, 86_401, 10_000_000]

/** The scan as if taken `ageSeconds` before now (a new object: fragments are kept per scan object). */
const agedBy = (scan: StoredScan, ageSeconds: number, now: number): StoredScan => ({
  id: scan.id,
  evidence: { ...scan.evidence, scannedAt: new Date(now - ageSeconds * 1000 - 200).toISOString() }
})

describe("pre-serialized risk-check answers", () => {
  test("a never-scanned answer is JSON.stringify of riskCheckOf, whatever the address and the latency", () => {
    const addresses = [
      ...Array.from({ length: 20 }, newAddress),
      "So11111111111111111111111111111111111111112",
      "11111111111111111111111111111111"
    ]
    for (const address of addresses) {
      for (const latency of [0, 1, 9, 987, 987_654_321]) {
        expect(neverScannedJson(address, latency)).toBe(
          JSON.stringify(riskCheckOf(address, undefined, Date.now(), latency))
        )
      }
      const started = performance.now()
      const answer = checkAnswer(address, null, started)
      expect(answer.body).toBe(
        JSON.stringify(riskCheckOf(address, undefined, Date.now(), JSON.parse(answer.body).latency_ms))
      )
      expect(answer.cacheControl).toBe("no-cache")
    }
  })

  test("a single answer is JSON.stringify of riskCheckOf, for every age band, and again from the kept fragments", () => {
    for (const scan of scans.slice(0, 20)) {
      for (const age of AGES) {
        const aged = agedBy(scan, age, Date.now())
        for (let round = 0; round < 2; round++) {
          const started = performance.now()
          const answer = checkAnswer(aged.evidence.mint, aged, started)
          const expected = riskCheckOf(aged.evidence.mint, aged, Date.now(), JSON.parse(answer.body).latency_ms)
          expect(answer.body).toBe(JSON.stringify(expected))
        }
      }
    }
  })

  test("a batch is JSON.stringify of batchOf: scanned, never scanned, invalid and array-index addresses", () => {
    const now = Date.now()
    const held = new Map<string, StoredScan | null>(
      scans.slice(0, 30).map((scan, i) => [scan.evidence.mint, agedBy(scan, AGES[i % AGES.length]!, now)])
    )
    const never = "So11111111111111111111111111111111111111112"
    held.set(never, null)
    const cases: ReadonlyArray<ReadonlyArray<string>> = [
      [...held.keys()],
      [...held.keys(), "not-an-address", 'a"quote'],
      ["123", ...held.keys()].slice(0, 50),
      [never],
      ["not-an-address"],
      [] // what a batch of only "__proto__" leaves
    ]
    for (const distinct of [...cases, ...cases]) {
      // twice: the second time from the entries kept
      const answer = batchAnswer(distinct, (address) => held.get(address), performance.now())
      const parsed = JSON.parse(answer.body) as { readonly latency_ms: number }
      expect(answer.body).toBe(
        JSON.stringify(batchOf(distinct, (address) => held.get(address), Date.now(), parsed.latency_ms))
      )
      expect(answer.cacheControl).toBe("no-store")
    }
  })
})
