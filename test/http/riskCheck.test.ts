import { describe, expect, test } from "bun:test"
import { sqlServices } from "../support/layers.ts"
import { ScansRepo } from "../../src/Scans/ScansRepo.ts"
import { Effect, Layer } from "effect"
import type { ScanEvidenceEncoded } from "../../src/Domain/ScanEvidence.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../support/fixtures.ts"
import { postJson, read, testApp } from "../support/http.ts"

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

const check = async (address: string) => read(await app(`/api/risk-check/${address}`))

describe(`GET /api/risk-check/{address} on ${databaseKind}`, () => {
  test("a clean fresh token is ok, with the whole result body", async () => {
    const scan = okScan()
    const address = await stored(scan)
    const got = await check(address)
    expect(got.status).toBe(200)
    expect({ ...got.body, age_seconds: "any", latency_ms: "any" }).toEqual({
      address,
      symbol: "CLEAN",
      verdict: "ok",
      score: 100,
      confidence: 90, // the fixture lists no top holders: less evidence, less confidence
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
    expect(got.body.age_seconds).toBeGreaterThanOrEqual(59)
    expect(got.body.age_seconds).toBeLessThan(120)
    expect(Number.isInteger(got.body.latency_ms)).toBe(true)
    expect(got.headers["cache-control"]).toBe("public, max-age=60, stale-while-revalidate=300")
  })

  test("verdicts follow the score bands: warn 30-59, block < 30 with the buy-relevant flags", async () => {
    const warn = await check(await stored(warnScan()))
    const block = await check(await stored(blockScan()))
    expect([warn.body.verdict, warn.body.score, warn.body.flags]).toEqual(["warn", 50, ["freeze_authority_active", "lp_unlocked"]])
    expect([block.body.verdict, block.body.score]).toEqual(["block", 0])
    expect(block.body.flags).toContain("honeypot")
  })

  test("freshness is the scan's age at request time: stale 5-60 min, cold beyond, with matching caching", async () => {
    const stale = await check(await stored(okScan(30)))
    const cold = await check(await stored(okScan(61)))
    expect([stale.body.freshness, stale.headers["cache-control"]]).toEqual(["stale", "public, max-age=15"])
    expect([cold.body.freshness, cold.headers["cache-control"]]).toEqual(["cold", "no-cache"])
    expect(cold.body.confidence).toBeLessThan(stale.body.confidence)
  })

  test("the latest scan decides: a token that turned into a honeypot blocks", async () => {
    const first = okScan(20)
    await stored(first)
    await stored({ ...first, scannedAt: minutesAgo(1), trading: { isHoneypot: true, buyTax: 0, sellTax: 100 } })
    expect((await check(first.mint)).body.verdict).toBe("block")
  })

  test("a mint never scanned is a normal 200 unknown with a rescan link", async () => {
    const address = newAddress()
    const got = await check(address)
    expect(got.status).toBe(200)
    expect({ ...got.body, latency_ms: "any" }).toEqual({
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
    expect(got.headers["cache-control"]).toBe("no-cache")
  })

  test("an invalid address is 400 invalid_address naming the value", async () => {
    for (const bad of ["abc", "0".repeat(44), "I".repeat(40), `${newAddress()}x`]) {
      const got = await check(bad)
      expect([got.status, got.body.error.code]).toEqual([400, "invalid_address"])
      expect(got.body.error.message).toContain(bad)
    }
  })
})

describe(`POST /api/risk-check/batch on ${databaseKind}`, () => {
  const batch = async (addresses: unknown) => read(await app("/api/risk-check/batch", postJson({ addresses })))

  test("answers each distinct address once, keyed by address, bad ones in their own entry", async () => {
    const ok = await stored(okScan())
    const block = await stored(blockScan())
    const never = newAddress()
    const got = await batch([ok, block, "not-a-mint", ok, never])
    expect(got.status).toBe(200)
    expect(got.headers["cache-control"]).toBe("no-store")
    expect(Object.keys(got.body.results).sort()).toEqual([ok, block, "not-a-mint", never].sort())
    expect(got.body.count).toBe(4)
    expect([got.body.results[ok].verdict, got.body.results[block].verdict, got.body.results[never].verdict])
      .toEqual(["ok", "block", "unknown"])
    expect(got.body.results["not-a-mint"]).toEqual({
      address: "not-a-mint",
      error: { code: "invalid_address", message: "\"not-a-mint\" is not a Solana address (base58 of 32 bytes)." }
    })
  })

  test("object-key names are answered as bad addresses; __proto__, which JSON encoders drop, is not counted", async () => {
    const ok = await stored(okScan())
    const got = await batch(["__proto__", ok, "constructor"])
    expect(Object.keys(got.body.results).sort()).toEqual(["constructor", ok].sort())
    expect(got.body.results["constructor"].error.code).toBe("invalid_address")
    expect(got.body.count).toBe(2)
  })

  test("a batch result equals the single check for the same mint", async () => {
    const address = await stored(warnScan(12))
    const single = (await check(address)).body
    const inBatch = (await batch([address])).body.results[address]
    expect({ ...inBatch, latency_ms: 0, age_seconds: 0 }).toEqual({ ...single, latency_ms: 0, age_seconds: 0 })
  })

  test("50 addresses are answered; 51 are 400 batch_too_large", async () => {
    const fifty = Array.from({ length: 50 }, () => newAddress())
    const ok = await batch(fifty)
    expect([ok.status, ok.body.count]).toEqual([200, 50])
    const over = await batch([...fifty, newAddress()])
    expect([over.status, over.body.error.code]).toEqual([400, "batch_too_large"])
  })

  test("an empty list, a non-list and a non-string element are 400 invalid_request", async () => {
    for (const addresses of [[], "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", [null], [{ address: "x" }]]) {
      const got = await batch(addresses)
      expect([got.status, got.body.error.code]).toEqual([400, "invalid_request"])
      expect(got.body.error.details[0].path).toStartWith("addresses")
    }
  })
})

describe(`POST /api/risk-check/{address}/rescan on ${databaseKind}`, () => {
  const rescan = async (address: string) => read(await app(`/api/risk-check/${address}/rescan`, { method: "POST" }))

  test("records one pending request per mint; asking again returns it with the count raised", async () => {
    const address = newAddress()
    const first = await rescan(address)
    const second = await rescan(address)
    expect([first.status, first.body.status, first.body.request_count]).toEqual([202, "pending", 1])
    expect([second.status, second.body.id, second.body.request_count]).toEqual([202, first.body.id, 2])
    expect(second.body.requested_at).toBe(first.body.requested_at)
    expect(second.body.check_url).toBe(`/api/risk-check/${address}`)
  })

  test("nothing is scanned inline: the verdict stays unknown", async () => {
    const address = newAddress()
    await rescan(address)
    expect((await check(address)).body.verdict).toBe("unknown")
  })

  test("an invalid address is 400 invalid_address", async () => {
    const got = await rescan("nope")
    expect([got.status, got.body.error.code]).toEqual([400, "invalid_address"])
  })
})

