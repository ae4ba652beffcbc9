import { describe, expect } from "bun:test"
import { Effect, Layer, Option, Schema } from "effect"
import { ScanEvidence } from "../../src/Domain/ScanEvidence.ts"
import { ScansRepo, ScansRepoMemory } from "../../src/Scans/ScansRepo.ts"
import { assessToken } from "../../src/Scoring/index.ts"
import { databaseKind, TestDatabase } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, minutesAgo, newAddress } from "../support/fixtures.ts"

// Model 2.0 reads the liquidity trend across a mint's scan history: the latest scan carries the highest
// liquidity of the 24 hours before it, and a drop of half or more caps the score (liquidity_drop).
const decode = Schema.decodeUnknownSync(ScanEvidence)
const scanAt = (mint: string, minutes: number, liquidityUsd: number) =>
  decode(cleanScan(mint, { scannedAt: minutesAgo(minutes), liquidity: { liquidityUsd, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 2 } }))

const trend = (run: ReturnType<typeof runtimeFor<ScansRepo, never>>["it"]) => {
  run("a drop of 70% from the 24 h high is read with the latest scan and caps it; scans older than 24 h do not count", () =>
    Effect.gen(function*() {
      const [pulled, steady] = [newAddress(), newAddress()]
      yield* ScansRepo.record([
        scanAt(pulled, 26 * 60, 900_000), // older than 24 h before the latest: not counted
        scanAt(pulled, 20 * 60, 200_000),
        scanAt(pulled, 5, 60_000),
        scanAt(steady, 60, 100_000),
        scanAt(steady, 5, 90_000)
      ])
      const latest = Option.getOrThrow(yield* ScansRepo.latest(pulled))
      expect(latest.evidence.liquidity.peak24hUsd).toBe(200_000)
      const assessment = assessToken(latest.evidence)
      expect(assessment.flags).toContain("liquidity_drop")
      expect(assessment.hardCaps).toContain("Liquidity Pull:20")
      const many = yield* ScansRepo.latestMany([pulled, steady] as never)
      expect(many.get(pulled)?.evidence.liquidity.peak24hUsd).toBe(200_000)
      expect(assessToken(many.get(steady)!.evidence).flags).not.toContain("liquidity_drop")
    }))
}

describe(`liquidity trend on ${databaseKind}`, () => {
  const { it } = runtimeFor(ScansRepo.Default.pipe(Layer.provideMerge(TestDatabase)))
  trend(it)
})

describe("liquidity trend in the in-memory repository", () => {
  const { it } = runtimeFor(ScansRepoMemory)
  trend(it)
})
