import { describe, expect, test } from "bun:test"
import { sqlServices } from "../support/layers.ts"
import { Accounts } from "../../src/Accounts/Accounts.ts"
import { Quota } from "../../src/Accounts/Quota.ts"
import { ScansRepo } from "../../src/Scans/ScansRepo.ts"
import { WalletRepo } from "../../src/Wallet/WalletRepo.ts"
import { Effect, Layer, Schema } from "effect"
import type { Scope } from "../../src/Domain/Scope.ts"
import { WalletEvidenceLine } from "../../src/Domain/WalletEvidence.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../support/fixtures.ts"
import { postJson, read, testApp } from "../support/http.ts"

// Wallet screening and deployer history end to end on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const keyWith = (scopes: ReadonlyArray<Scope>) =>
  run(Effect.gen(function*() {
    const account = yield* Accounts.create("wallet tests", { plan: "whale" })
    return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
  }))
const { accountId, key } = await keyWith(["wallet:risk:read", "deployer:history:read"])

const decodeLines = Schema.decodeUnknownSync(Schema.Array(WalletEvidenceLine))
const storeLines = (lines: ReadonlyArray<unknown>) => run(WalletRepo.record(decodeLines(lines)))
const label = (address: string, name: string, severity: string, category = "sanctions") =>
  ({ type: "label", address, label: name, category, severity, source: "manual_review", detail: "", observedAt: minutesAgo(600) })
const exposure = (wallet: string, counterparty: string, hopDistance: number, exposureAmountUsd = 20_000, category = "sanctions") => ({
  type: "exposure", walletAddress: wallet, counterpartyAddress: counterparty, counterpartyLabel: "", category,
  direction: "inbound", exposureType: "transfer", hopDistance, exposureAmountUsd, exposurePct: 20, txCount: 3, lastSeenAt: minutesAgo(60)
})

const walletRisk = async (walletAddress: unknown, withKey = key) =>
  read(await app("/api/v1/wallet/risk", postJson({ walletAddress }, { authorization: `Bearer ${withKey}` })))
const history = async (wallet: string, query = "", withKey = key) =>
  read(await app(`/api/v1/deployer/${wallet}/history${query}`, { headers: { authorization: `Bearer ${withKey}` } }))

describe(`POST /api/v1/wallet/risk on ${databaseKind}`, () => {
  test("a sanctioned wallet is critical and escalates, with the packet fields, meta and disclaimer", async () => {
    const wallet = newAddress()
    await storeLines([label(wallet, "sanctioned", "critical")])
    const before = await run(Quota.usedThisMonth(accountId))
    const got = await walletRisk(wallet)
    expect(got.status).toBe(200)
    expect(Object.keys(got.body.data).sort()).toEqual([
      "confidence", "deployedTokens", "disclaimer", "exposures", "generatedAt", "modelVersion", "recommendedAction",
      "riskLevel", "riskScore", "signals", "sources", "summary", "walletAddress"
    ])
    expect([got.body.data.riskLevel, got.body.data.recommendedAction, got.body.data.signals[0].label])
      .toEqual(["critical", "escalate", "adverse_label"])
    expect(got.body.data.disclaimer).toContain("not a legal compliance determination")
    expect(got.body.meta).toMatchObject({ scope: "wallet:risk:read", costUnits: 2, contractVersion: "2026-11-01" })
    expect((await run(Quota.usedThisMonth(accountId))).used - before.used).toBe(2)
  })

  test("exposures are listed with the spec's fields; the same exposure weighs less at a greater hop distance", async () => {
    const flagged = newAddress()
    await storeLines([label(flagged, "sanctioned", "critical")])
    const [near, far] = [newAddress(), newAddress()]
    await storeLines([exposure(near, flagged, 1), exposure(far, flagged, 2)])
    const nearRisk = (await walletRisk(near)).body.data
    const farRisk = (await walletRisk(far)).body.data
    expect(Object.keys(nearRisk.exposures[0]).sort()).toEqual([
      "category", "counterparty_address", "counterparty_label", "direction", "exposure_amount_usd", "exposure_pct",
      "exposure_type", "hop_distance", "last_seen_at", "tx_count"
    ])
    expect(nearRisk.signals[0].label).toBe("flagged_counterparty_exposure")
    expect(nearRisk.riskScore).toBeGreaterThan(farRisk.riskScore)
    expect(farRisk.riskScore).toBeGreaterThan(0)
  })

  test("a wallet with no cached evidence is a normal answer with low confidence that says so", async () => {
    const got = await walletRisk(newAddress())
    expect(got.status).toBe(200)
    expect([got.body.data.confidence, got.body.data.recommendedAction, got.body.data.signals, got.body.data.sources])
      .toEqual(["low", "monitor", [], []])
    expect(got.body.data.summary).toContain("No cached evidence")
  })

  test("a deployer's own launches appear as deployedTokens and rugs as a signal", async () => {
    const deployer = newAddress()
    const drained = cleanScan(newAddress(), { scannedAt: minutesAgo(60 * 24) })
    await run(ScansRepo.record([
      decodeScan({ ...drained, deployer: { address: deployer, priorLaunches: 0, priorRugs: 0, priorHoneypots: 0, flagged: false } }),
      decodeScan({
        ...drained,
        scannedAt: minutesAgo(5),
        deployer: { address: deployer, priorLaunches: 0, priorRugs: 0, priorHoneypots: 0, flagged: false },
        liquidity: { liquidityUsd: 50, lpLocked: false, lpLockPercentage: 0, lpLockExpiresAt: null, poolCount: 1 },
        market: { ...drained.market!, liquidityUsd: 50 }
      })
    ]))
    const got = (await walletRisk(deployer)).body.data
    expect(got.deployedTokens.map((token: { address: string }) => token.address)).toEqual([drained.mint])
    expect(got.signals.map((signal: { label: string }) => signal.label)).toContain("deployed_rugs")
  })

  test("errors: 401 without a key, 403 without the scope, 400 for bad input, none charged", async () => {
    const tokenOnly = await keyWith(["token:risk:read"])
    const before = await run(Quota.usedThisMonth(accountId))
    expect((await read(await app("/api/v1/wallet/risk", postJson({ walletAddress: newAddress() })))).status).toBe(401)
    const forbidden = await walletRisk(newAddress(), tokenOnly.key)
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, "forbidden"])
    expect(forbidden.body.error.message).toContain("wallet:risk:read")
    for (const [body, code] of [["nope", "invalid_address"], [42, "invalid_request"]] as const) {
      const got = await walletRisk(body)
      expect([got.status, got.body.error.code]).toEqual([400, code])
    }
    const unknownField = await read(await app("/api/v1/wallet/risk", postJson({ walletAddress: newAddress(), wallet: "x" }, { authorization: `Bearer ${key}` })))
    expect([unknownField.status, unknownField.body.error.code]).toEqual([400, "invalid_request"])
    expect((await run(Quota.usedThisMonth(accountId))).used).toBe(before.used)
  })
})

describe(`GET /api/v1/deployer/{wallet}/history on ${databaseKind}`, () => {
  const deployer = newAddress()
  const launches = Array.from({ length: 7 }, (_, i) => cleanScan(newAddress(), {
    scannedAt: minutesAgo(10 + i * 60),
    symbol: `L${i}`,
    deployer: { address: deployer, priorLaunches: i, priorRugs: 0, priorHoneypots: 0, flagged: false },
    trading: { isHoneypot: i === 3, buyTax: 0, sellTax: i === 3 ? 100 : 0 }
  }))

  test("lists every launch with metrics that match the scans", async () => {
    await run(ScansRepo.record(launches.map((scan) => decodeScan(scan))))
    const got = await history(deployer)
    expect(got.status).toBe(200)
    expect(got.body.data.launches.map((launch: { symbol: string }) => launch.symbol)).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L6"])
    expect(got.body.data.summary).toMatchObject({
      launchCount: 7, honeypotCount: 1, ruggedCount: 0, launchesLast24h: 7, riskLevel: "high"
    })
    expect(got.body.data.launches[3]).toMatchObject({ isHoneypot: true, verdict: "block" })
    expect(got.body.meta).toMatchObject({ scope: "deployer:history:read", costUnits: 1 })
  })

  test("cursor pagination returns every launch exactly once, then a null cursor", async () => {
    const seen: Array<string> = []
    let query = "?limit=3"
    for (let page = 0; page < 5; page++) {
      const got = await history(deployer, query)
      seen.push(...got.body.data.launches.map((launch: { symbol: string }) => launch.symbol))
      if (got.body.data.page.nextCursor === null) break
      query = `?limit=3&cursor=${got.body.data.page.nextCursor}`
    }
    expect(seen).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L6"])
  })

  test("a wallet with no launches is a normal answer", async () => {
    const got = await history(newAddress())
    expect([got.status, got.body.data.summary.launchCount, got.body.data.summary.riskLevel, got.body.data.launches])
      .toEqual([200, 0, "none", []])
  })

  test("errors: bad wallet, bad cursor, limit out of range, unknown parameter, missing scope", async () => {
    expect((await history("not-a-wallet")).body.error.code).toBe("invalid_address")
    for (const query of ["?cursor=garbage", "?limit=0", "?limit=201", "?limit=abc", "?page=2"]) {
      const got = await history(deployer, query)
      expect([query, got.status, got.body.error.code]).toEqual([query, 400, "invalid_request"])
    }
    const walletOnly = await keyWith(["wallet:risk:read"])
    const forbidden = await history(deployer, "", walletOnly.key)
    expect([forbidden.status, forbidden.body.error.message.includes("deployer:history:read")]).toEqual([403, true])
  })
})
