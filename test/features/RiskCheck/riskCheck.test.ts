import { describe, expect, test } from "bun:test"
import { sqlServices } from "../../support/layers.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { Effect } from "effect"
import type { ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { postJson, read, testApp, testClient } from "../../support/http.ts"

// The public routes end to end: HttpApi, handlers, SQL services and the real database.
const { run, runtime } = runtimeFor(sqlServices())
const app = testApp((await runtime.runtime()).context)

const stored = async (scan: ScanEvidenceEncoded): Promise<string> => {
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const okScan = (minutes = 1) => cleanScan(newAddress(), { scannedAt: minutesAgo(minutes) })
const warnScan = (minutes = 1) =>
  cleanScan(newAddress(), {
    scannedAt: minutesAgo(minutes),
    freezeAuthority: newAddress(),
    liquidity: { liquidityUsd: 2_500_000, lpLocked: false, lpLockPercentage: 0, lpLockExpiresAt: null, poolCount: 3 }
  })
const blockScan = (minutes = 1) =>
  cleanScan(newAddress(), { scannedAt: minutesAgo(minutes), trading: { isHoneypot: true, buyTax: 0, sellTax: 100 } })

// Through the typed client, as a caller's code sees the routes. A body decodes only at the status the contract
// declares for the endpoint (200, or 202 for rescan) and an error class only at its own status and code, so
// each also asserts the status. `withResponse` adds the response itself, for its status and headers.
const client = testClient(app)
const check = (address: string) => Effect.runPromise(client.riskCheck.check({ path: { address } }))
const checkWithResponse = (address: string) =>
  Effect.runPromise(client.riskCheck.check({ path: { address }, withResponse: true }))
const checkFailure = (address: string) => Effect.runPromise(Effect.flip(client.riskCheck.check({ path: { address } })))
// Raw, for tests about the JSON as sent. These handlers write their bytes themselves (the fast path sends the
// same), and decoding drops any key the schema does not name: only the raw answer shows there is none.
const checkRaw = async (address: string) => read(await app(`/api/risk-check/${address}`))
const wireFields = async (address: string) => Object.keys((await checkRaw(address)).body).sort()

describe(`GET /api/risk-check/{address} on ${databaseKind}`, () => {
  test("a clean fresh token is ok, with the whole result body", async () => {
    const scan = okScan()
    const address = await stored(scan)
    const [body, response] = await checkWithResponse(address)
    expect(response.status).toBe(200)
    expect({ ...body, age_seconds: "any", latency_ms: "any" }).toEqual({
      address,
      symbol: "CLEAN",
      verdict: "ok",
      score: 100,
      confidence: 100, // every weighted fact observed (the fixture lists its top holders since model 2.1)
      flags: [],
      freshness: "fresh",
      scan_depth: "full",
      scanned_at: scan.scannedAt,
      age_seconds: "any",
      outcome: null,
      latency_ms: "any",
      rescan_url: `/api/risk-check/${address}/rescan`,
      details_url: "/api/v1/token/risk"
    })
    expect(body.age_seconds).toBeGreaterThanOrEqual(59)
    expect(body.age_seconds).toBeLessThan(120)
    expect(Number.isInteger(body.latency_ms)).toBe(true)
    expect(await wireFields(address)).toEqual(Object.keys(body).sort())
    expect(response.headers["cache-control"]).toBe("public, max-age=60, stale-while-revalidate=300")
  })

  test("verdicts follow the score bands: warn 30-59, block < 30 with the buy-relevant flags", async () => {
    const warn = await check(await stored(warnScan()))
    const block = await check(await stored(blockScan()))
    expect([warn.verdict, warn.score, warn.flags]).toEqual(["warn", 50, ["freeze_authority_active", "lp_unlocked"]])
    expect([block.verdict, block.score]).toEqual(["block", 0])
    expect(block.flags).toContain("honeypot")
  })

  test("freshness is the scan's age at request time: stale 5-60 min, cold beyond, with matching caching", async () => {
    const [stale, staleResponse] = await checkWithResponse(await stored(okScan(30)))
    const [cold, coldResponse] = await checkWithResponse(await stored(okScan(61)))
    expect([stale.freshness, staleResponse.headers["cache-control"]]).toEqual(["stale", "public, max-age=15"])
    expect([cold.freshness, coldResponse.headers["cache-control"]]).toEqual(["cold", "no-cache"])
    expect(cold.confidence).toBeLessThan(stale.confidence)
  })

  test("the latest scan decides: a token that turned into a honeypot blocks", async () => {
    const first = okScan(20)
    await stored(first)
    await stored({ ...first, scannedAt: minutesAgo(1), trading: { isHoneypot: true, buyTax: 0, sellTax: 100 } })
    expect((await check(first.mint)).verdict).toBe("block")
  })

  test("a mint never scanned is a normal 200 unknown with a rescan link", async () => {
    const address = newAddress()
    const [body, response] = await checkWithResponse(address)
    expect(response.status).toBe(200)
    expect({ ...body, latency_ms: "any" }).toEqual({
      address,
      symbol: null,
      verdict: "unknown",
      score: null,
      confidence: 0,
      flags: [],
      freshness: "cold",
      scan_depth: "none",
      scanned_at: null,
      age_seconds: null,
      outcome: null,
      latency_ms: "any",
      rescan_url: `/api/risk-check/${address}/rescan`,
      details_url: "/api/v1/token/risk"
    })
    expect(await wireFields(address)).toEqual(Object.keys(body).sort())
    expect(response.headers["cache-control"]).toBe("no-cache")
  })

  test("an invalid address is 400 invalid_address naming the value", async () => {
    // "0" is not a base58 digit: an address with one more valid digit can still decode to 32 bytes.
    for (const bad of ["abc", "0".repeat(44), "I".repeat(40), `${newAddress()}0`]) {
      const failure = await checkFailure(bad)
      expect(failure._tag).toBe("InvalidAddress")
      expect(failure.message).toContain(bad)
    }
  })
})

describe(`POST /api/risk-check/batch on ${databaseKind}`, () => {
  const batch = (addresses: ReadonlyArray<string>) =>
    Effect.runPromise(client.riskCheck.batch({ payload: { addresses } }))
  const batchFailure = (addresses: ReadonlyArray<string>) =>
    Effect.runPromise(Effect.flip(client.riskCheck.batch({ payload: { addresses } })))
  // Raw: bodies the typed client would refuse to encode, and keys its decoding cannot keep.
  const batchRaw = async (addresses: unknown) => read(await app("/api/risk-check/batch", postJson({ addresses })))

  test("answers each distinct address once, keyed by address, bad ones in their own entry", async () => {
    const ok = await stored(okScan())
    const block = await stored(blockScan())
    const never = newAddress()
    // Raw: the bad address's entry is asserted exactly as sent, which decoding (dropping unknown keys) cannot show.
    const got = await batchRaw([ok, block, "not-a-mint", ok, never])
    expect(got.status).toBe(200)
    expect(got.headers["cache-control"]).toBe("no-store")
    expect(Object.keys(got.body.results).sort()).toEqual([ok, block, "not-a-mint", never].sort())
    expect(got.body.count).toBe(4)
    expect([got.body.results[ok].verdict, got.body.results[block].verdict, got.body.results[never].verdict]).toEqual([
      "ok",
      "block",
      "unknown"
    ])
    expect(got.body.results["not-a-mint"]).toEqual({
      address: "not-a-mint",
      error: { code: "invalid_address", message: '"not-a-mint" is not a Solana address (base58 of 32 bytes).' }
    })
  })

  test("object-key names are answered as bad addresses; __proto__, which JSON encoders drop, is not counted", async () => {
    const ok = await stored(okScan())
    // Raw: decoding a record assigns each key, and assigning `__proto__` sets a prototype instead of adding an
    // entry, so only the JSON as sent can show that no `__proto__` entry was answered.
    const got = await batchRaw(["__proto__", ok, "constructor"])
    expect(Object.keys(got.body.results).sort()).toEqual(["constructor", ok].sort())
    expect(got.body.results.constructor.error.code).toBe("invalid_address")
    expect(got.body.count).toBe(2)
  })

  test("a batch result equals the single check for the same mint", async () => {
    const address = await stored(warnScan(12))
    // Raw: decoding would drop a field only one of the two routes sent, and they must send the same answer.
    const single = (await checkRaw(address)).body
    const inBatch = (await batchRaw([address])).body.results[address]
    expect({ ...inBatch, latency_ms: 0, age_seconds: 0 }).toEqual({ ...single, latency_ms: 0, age_seconds: 0 })
  })

  test("50 addresses are answered; 51 are 400 batch_too_large", async () => {
    const fifty = Array.from({ length: 50 }, () => newAddress())
    const ok = await batch(fifty)
    expect([ok.count, Object.keys(ok.results).length]).toEqual([50, 50])
    const over = await batchFailure([...fifty, newAddress()])
    expect([over._tag, over.message]).toEqual(["BatchTooLarge", "At most 50 addresses per batch; got 51."])
  })

  test("an empty list, a non-list and a non-string element are 400 invalid_request", async () => {
    for (const addresses of [[], "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", [null], [{ address: "x" }]]) {
      // Raw: the typed client refuses to encode these, so only a hand-made body reaches the server.
      const got = await batchRaw(addresses)
      expect([got.status, got.body.error.code]).toEqual([400, "invalid_request"])
      expect(got.body.error.details[0].path).toStartWith("addresses")
    }
  })
})

describe(`POST /api/risk-check/{address}/rescan on ${databaseKind}`, () => {
  const rescan = (address: string) => Effect.runPromise(client.riskCheck.rescan({ path: { address } }))
  const rescanFailure = (address: string) =>
    Effect.runPromise(Effect.flip(client.riskCheck.rescan({ path: { address } })))

  test("records one pending request per mint; asking again returns it with the count raised", async () => {
    const address = newAddress()
    const first = await rescan(address) // decoded only from a 202
    const second = await rescan(address)
    expect([first.address, first.status, first.request_count]).toEqual([address, "pending", 1])
    expect([second.id, second.request_count]).toEqual([first.id, 2])
    expect(second.requested_at).toBe(first.requested_at)
    expect(second.check_url).toBe(`/api/risk-check/${address}`)
  })

  test("nothing is scanned inline: the verdict stays unknown", async () => {
    const address = newAddress()
    await rescan(address)
    expect((await check(address)).verdict).toBe("unknown")
  })

  test("an invalid address is 400 invalid_address", async () => {
    const failure = await rescanFailure("nope")
    expect([failure._tag, failure.message]).toEqual([
      "InvalidAddress",
      '"nope" is not a Solana address (base58 of 32 bytes).'
    ])
  })
})
