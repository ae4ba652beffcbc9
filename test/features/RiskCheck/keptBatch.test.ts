import { describe, expect, test } from "bun:test"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { batchBodyAt, batchOf } from "../../../src/features/RiskCheck/Answer.ts"
import { keptBatchAnswer, makeKeptBatches } from "../../../src/features/RiskCheck/KeptBatch.ts"
import type { CheckedScan, StoredScan } from "../../../src/features/Scans/ScansRepo.ts"

// The batch fast path keeps recent batch bodies and their last answer (src/features/RiskCheck/KeptBatch.ts):
// a kept answer must be the bytes a new one would be, and must stop being reused the moment one entry's
// age changes, or one of its scans is replaced.

const dataset = generateDemoDataset({ now: new Date(), tokens: 20 })
// One scan of each mint (the dataset holds several scans of some mints).
const firstScans = [...new Map(dataset.scans.map((scan) => [scan.mint, scan as ScanEvidence])).values()]
const mints = firstScans.map((scan) => scan.mint)
const NOW = Date.parse("2026-11-28T12:00:00.000Z")
/** The i-th mint's scan, taken `ageMs` before NOW (a new object each time: answers are kept per scan object). */
const takenBefore = (i: number, ageMs: number): StoredScan => ({
  id: String(i),
  evidence: { ...firstScans[i]!, scannedAt: new Date(NOW - ageMs).toISOString() }
})
const NEVER = "So11111111111111111111111111111111111111112"

const expected = (
  distinct: ReadonlyArray<string>,
  scans: ReadonlyArray<CheckedScan | null | undefined>,
  now: number,
  latencyMs: number
) => {
  const byAddress = new Map(distinct.map((address, i) => [address, scans[i]]))
  return JSON.stringify(batchOf(distinct, (address) => byAddress.get(address), now, latencyMs))
}

describe("kept batch answers", () => {
  test("a body is parsed once per text; a body that is not exactly the contract's is not a batch", () => {
    const batches = makeKeptBatches()
    const text = JSON.stringify({ addresses: [NEVER, "b", NEVER] })
    const first = batches.of(text)
    expect(first?.distinct).toEqual([NEVER, "b"])
    expect(batches.of(text)).toBe(first!)
    expect(batches.of(JSON.stringify({ addresses: [NEVER], extra: 1 }))).toBeUndefined()
    expect(batches.of(JSON.stringify({ addresses: [] }))).toBeUndefined()
    expect(batches.of("{")).toBeUndefined()
    expect(batches.size()).toBe(1)
  })

  test("at most 64 bodies are kept, the oldest let go first", () => {
    const batches = makeKeptBatches()
    const texts = Array.from({ length: 65 }, (_, i) => JSON.stringify({ addresses: [`a${i}`] }))
    const first = batches.of(texts[0]!)
    for (const text of texts.slice(1)) batches.of(text)
    expect(batches.size()).toBe(64)
    expect(batches.of(texts[0]!)).not.toBe(first!) // parsed anew
    expect(batches.of(texts[64]!)).toBe(batches.of(texts[64]!))
  })

  test("until says when the first entry's age changes: the body is the same before, different from then", () => {
    const distinct = mints.slice(0, 3)
    // ages 10.2 s, 3.9 s and 7.0 s: the second entry turns 4 s old first, 100 ms after NOW
    const scans = [takenBefore(0, 10_200), takenBefore(1, 3_900), takenBefore(2, 7_000)]
    const { body, until } = batchBodyAt(distinct, scans, NOW, 3)
    expect(until).toBe(NOW + 100)
    expect(body).toBe(expected(distinct, scans, NOW, 3))
    expect(batchBodyAt(distinct, scans, until - 1, 3).body).toBe(body)
    expect(batchBodyAt(distinct, scans, until, 3).body).not.toBe(body)
    expect(batchBodyAt(distinct, scans, until, 3).body).toBe(expected(distinct, scans, until, 3))
  })

  test("a batch without a scanned entry never changes with time", () => {
    const { until } = batchBodyAt([NEVER, "not-an-address"], [null, undefined], NOW, 0)
    expect(until).toBe(Number.POSITIVE_INFINITY)
  })

  test("the kept answer is reused only for the same scans and latency within its time, and is the same bytes", () => {
    const batches = makeKeptBatches()
    const distinct = [...mints.slice(0, 4), NEVER, "not-an-address"]
    const batch = batches.of(JSON.stringify({ addresses: distinct }))!
    const scans = [
      takenBefore(0, 1_000),
      takenBefore(1, 60_000),
      takenBefore(2, 7_200_000),
      takenBefore(3, 5),
      null,
      undefined
    ]
    const answerNow = () => {
      const answer = keptBatchAnswer(batch, [...scans], performance.now())
      const { latency_ms } = JSON.parse(answer.body) as { readonly latency_ms: number }
      expect(answer.body).toBe(expected(distinct, scans, Date.now(), latency_ms))
      return answer
    }
    const first = answerNow()
    const second = answerNow()
    // the same second and latency (0 ms: nothing awaits between the two): the kept answer
    const kept = batch.last
    if (kept !== undefined && kept.until > Date.now() && kept.latencyMs === JSON.parse(first.body).latency_ms) {
      expect(second.body).toBe(first.body)
      expect(batch.last).toBe(kept)
    }
    // a scan replaced (a new scan object for the same mint): made anew from it
    const before = batch.last
    scans[1] = takenBefore(1, 30_000)
    answerNow()
    expect(batch.last).not.toBe(before)
    expect(batch.last!.scans[1]).toBe(scans[1])
  })
})
