import { describe, expect } from "bun:test"
import { Effect, Layer } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ScanRequestsMemory, ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { newAddress } from "../../support/fixtures.ts"

// The scanner takes a launch first, then a state event, then the rest; a stream request raises a
// pending request of the same mint, never lowers it. The SQL queue and its in-memory double agree.

const cases = (name: string, layer: Layer.Layer<ScanRequestsRepo>) => {
  const { it } = runtimeFor(layer)
  describe(`scan request priority (${name})`, () => {
    it("claims launch, then event, then rescan, whatever the order they came in", () =>
      Effect.gen(function* () {
        const repo = yield* ScanRequestsRepo
        // Drain what earlier tests left.
        while ((yield* repo.claim("drain", 100, 60_000)).length > 0) {
          // nothing: each claim takes a batch off
        }
        const rescan = newAddress() as Address
        const event = newAddress() as Address
        const launch = newAddress() as Address
        yield* repo.request(rescan)
        yield* repo.requestPriority(event, "event")
        yield* repo.requestPriority(launch, "launch")
        // One at a time, as each scanner lane claims (the rows of one claim come back in no set order).
        const claimed = []
        for (let i = 0; i < 3; i++) claimed.push(...(yield* repo.claim("w", 1, 60_000)))
        expect(claimed.map((claim) => [claim.mint, claim.reason])).toEqual([
          [launch, "launch"],
          [event, "event"],
          [rescan, "rescan"]
        ])
      }))

    it("a launch raises a pending rescan of the mint; a later rescan does not lower it", () =>
      Effect.gen(function* () {
        const repo = yield* ScanRequestsRepo
        const first = newAddress() as Address
        const mint = newAddress() as Address
        yield* repo.requestPriority(first, "event")
        yield* repo.request(mint)
        yield* repo.requestPriority(mint, "launch")
        const raised = yield* repo.request(mint)
        expect(raised.requestCount).toBe(3)
        const claimed = [...(yield* repo.claim("w2", 1, 60_000)), ...(yield* repo.claim("w2", 1, 60_000))]
        expect(claimed.map((claim) => [claim.mint, claim.reason])).toEqual([
          [mint, "launch"],
          [first, "event"]
        ])
      }))
  })
}

cases("PostgreSQL or PGlite", ScanRequestsRepo.Default.pipe(Layer.provide(TestDatabase)))
cases("memory", ScanRequestsMemory)
