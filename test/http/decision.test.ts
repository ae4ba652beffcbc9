import { describe, expect, test } from "bun:test"
import { sqlServices } from "../support/layers.ts"
import { Accounts } from "../../src/Accounts/Accounts.ts"
import { Quota } from "../../src/Accounts/Quota.ts"
import { ScansRepo } from "../../src/Scans/ScansRepo.ts"
import { WalletRepo } from "../../src/Wallet/WalletRepo.ts"
import { Effect, Layer, Schema } from "effect"
import type { Scope } from "../../src/Domain/Scope.ts"
import { WalletEvidenceLine } from "../../src/Domain/WalletEvidence.ts"
import { drainingPositionScans } from "../../src/Demo/positions.ts"
import type { ScanEvidenceEncoded } from "../../src/Domain/ScanEvidence.ts"
import { TestDatabase, databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../support/fixtures.ts"
import { postJson, read, testApp } from "../support/http.ts"

// The decision routes and watch contracts end to end on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const keyWith = (scopes: ReadonlyArray<Scope>) =>
  run(Effect.gen(function*() {
    const account = yield* Accounts.create("decision tests", { plan: "whale" })
    return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
  }))
const { accountId, key } = await keyWith(["token:risk:read", "watch:write"])
const used = async () => (await run(Quota.usedThisMonth(accountId))).used

const stored = async (scan: ScanEvidenceEncoded) => {
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}
const post = async (path: string, body: unknown, withKey = key) =>
  read(await app(path, postJson(body, { authorization: `Bearer ${withKey}` })))
const preTrade = (body: unknown, withKey = key) => post("/api/v1/decision/pre-trade", body, withKey)
const monitor = (body: unknown, withKey = key) => post("/api/v1/decision/monitor-position", body, withKey)
const setWatch = (body: unknown, withKey = key) => post("/api/v1/decision/set-watch", body, withKey)

const warnScan = (mint: string) => cleanScan(mint, {
  freezeAuthority: newAddress(),
  liquidity: { liquidityUsd: 2_500_000, lpLocked: false, lpLockPercentage: 0, lpLockExpiresAt: null, poolCount: 3 }
})

describe(`POST /api/v1/decision/pre-trade on ${databaseKind}`, () => {
  test("each decision value on a matching token, with the packet, meta and a charge of 3 units", async () => {
    const cases = [
      ["proceed", await stored(cleanScan(newAddress()))],
      ["proceed_with_caution", await stored(warnScan(newAddress()))],
      ["review_required", await stored(cleanScan(newAddress(), { scannedAt: minutesAgo(180) }))],
      ["reject", await stored(cleanScan(newAddress(), { trading: { isHoneypot: true, buyTax: 0, sellTax: 100 } }))]
    ] as const
    for (const [decision, mint] of cases) {
      const before = await used()
      const got = await preTrade({ mint, side: "buy", sizeUsd: 1_000 })
      expect([mint, got.status, got.body.data.decision]).toEqual([mint, 200, decision])
      expect(await used() - before).toBe(3)
    }
    const got = await preTrade({ mint: cases[0][1], side: "buy" })
    expect(Object.keys(got.body.data).sort()).toEqual([
      "cache_status", "confidence", "decision", "edge_summary", "evidence_age_seconds", "horizon", "invalidation",
      "limitations", "next_check_after_seconds", "reasons", "recommended_action", "risk", "sources", "token"
    ])
    expect(got.body.meta).toMatchObject({ scope: "token:risk:read", costUnits: 3, contractVersion: "decision-pre-trade-v0-cache" })
    expect(got.body.meta.agentRequestId).not.toBe(got.body.meta.requestId)
    expect(got.body.data.edge_summary).toContain("100/100")
    expect(got.body.data.limitations).toContain("wallet_profile_may_be_missing")
  })

  test("the size matters: the same token proceeds small and needs review when large against liquidity", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const decisions = []
    for (const sizeUsd of [1_000, 100_000, 500_000]) decisions.push((await preTrade({ mint, side: "buy", sizeUsd })).body.data.decision)
    expect(decisions).toEqual(["proceed", "proceed_with_caution", "review_required"])
  })

  test("evidence older than the caller's maximum age is review_required with the reason", async () => {
    const mint = await stored(cleanScan(newAddress(), { scannedAt: minutesAgo(20) }))
    const fine = await preTrade({ mint, side: "buy" })
    const strict = await preTrade({ mint, side: "buy", maxEvidenceAgeSeconds: 300 })
    expect([fine.body.data.decision, strict.body.data.decision]).toEqual(["proceed", "review_required"])
    expect(strict.body.data.reasons.join(" ")).toContain("300")
    expect(strict.body.data.limitations).toContain("stale_evidence")
  })

  test("a screened trader wallet is used: no wallet_profile_may_be_missing, and a sanctioned trader needs review", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const trader = newAddress()
    await run(WalletRepo.record(Schema.decodeUnknownSync(Schema.Array(WalletEvidenceLine))([{
      type: "label", address: trader, label: "sanctioned", category: "sanctions", severity: "critical",
      source: "ofac_list", observedAt: minutesAgo(600)
    }])))
    const got = await preTrade({ mint, side: "buy", wallet: trader })
    expect(got.body.data.decision).toBe("review_required")
    expect(got.body.data.limitations).not.toContain("wallet_profile_may_be_missing")
    expect(got.body.data.sources).toContain("svc_wallet_screening")
  })

  test("errors: 401, 403, 400 for bad input, 404 for a mint never scanned — none charged", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    expect((await read(await app("/api/v1/decision/pre-trade", postJson({ mint, side: "buy" })))).status).toBe(401)
    const watchOnly = await keyWith(["watch:write"])
    const forbidden = await preTrade({ mint, side: "buy" }, watchOnly.key)
    expect([forbidden.status, forbidden.body.error.message.includes("token:risk:read")]).toEqual([403, true])
    const bad: Array<[unknown, string]> = [
      [{ mint: "nope", side: "buy" }, "invalid_address"],
      [{ mint, side: "buy", wallet: "nope" }, "invalid_address"],
      [{ mint, side: "hold" }, "invalid_request"],
      [{ mint }, "invalid_request"],
      [{ mint, side: "buy", sizeUsd: -5 }, "invalid_request"],
      [{ mint, side: "buy", size: 5 }, "invalid_request"]
    ]
    for (const [body, code] of bad) {
      const got = await preTrade(body)
      expect([JSON.stringify(body), got.status, got.body.error.code]).toEqual([JSON.stringify(body), 400, code])
    }
    const never = await preTrade({ mint: newAddress(), side: "buy" })
    expect([never.status, never.body.error.code]).toEqual([404, "not_scanned"])
    expect(await used()).toBe(before)
  })
})

describe(`POST /api/v1/decision/monitor-position on ${databaseKind}`, () => {
  test("as pressure rises across scans since entry, next-check guidance shortens", async () => {
    const scans = drainingPositionScans(new Date()).map((scan) => ({ ...scan, mint: newAddress() }))
    const mint = scans[0]!.mint
    const leak = scans.map((scan) => ({ ...scan, mint }))
    const entryTime = new Date(Date.parse(leak[0]!.scannedAt) - 60_000).toISOString()
    const guidance: Array<number> = []
    for (const scan of leak) {
      await stored(scan)
      // The early scans are hours old: allow that, so only pressure moves the guidance.
      const got = await monitor({ mint, entryTime, entryPriceUsd: 0.02, maxEvidenceAgeSeconds: 6 * 3600 })
      expect(got.status).toBe(200)
      guidance.push(got.body.data.next_check_after_seconds)
    }
    for (let i = 1; i < guidance.length; i++) expect(guidance[i]!).toBeLessThanOrEqual(guidance[i - 1]!)
    expect(guidance.at(-1)!).toBeLessThan(guidance[0]!)
    const last = await monitor({ mint, entryTime, entryPriceUsd: 0.02 })
    expect(last.body.data.pressure.map((signal: { signal: string }) => signal.signal)).toEqual([
      "liquidity_drain", "sell_pressure", "drawdown", "holder_concentration", "new_hard_caps", "deployer_activity"
    ])
    expect(last.body.data.scans_considered).toBe(5)
    expect(last.body.meta).toMatchObject({ costUnits: 2, contractVersion: "decision-monitor-position-v0-cache" })
  })

  test("a watch's rules are evaluated: a rule that fires escalates the decision; one that does not, does not", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const quiet = (await setWatch({ mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] })).body.data
    const firing = (await setWatch({ mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 5_000_000 }] })).body.data
    const calm = await monitor({ mint, watchId: quiet.watch_id })
    const hit = await monitor({ mint, watchId: firing.watch_id })
    expect([calm.body.data.watch_rules_hit[0].hit, calm.body.data.decision]).toEqual([false, "hold"])
    expect(hit.body.data.watch_rules_hit[0]).toMatchObject({ hit: true, value: 2_500_000 })
    expect(["reduce", "exit"]).toContain(hit.body.data.decision)
  })

  test("errors: another account's watch is 404, a watch of another mint is 400, bad entryTime is 400", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const other = await keyWith(["token:risk:read", "watch:write"])
    const theirs = (await setWatch({ mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] }, other.key)).body.data
    const notMine = await monitor({ mint, watchId: theirs.watch_id })
    expect([notMine.status, notMine.body.error.code]).toEqual([404, "watch_not_found"])
    const otherMint = await stored(cleanScan(newAddress()))
    const mine = (await setWatch({ mint: otherMint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] })).body.data
    expect((await monitor({ mint, watchId: mine.watch_id })).body.error.code).toBe("invalid_request")
    for (const entryTime of ["yesterday", "2999-01-01T00:00:00Z"]) {
      expect((await monitor({ mint, entryTime })).body.error.code).toBe("invalid_request")
    }
    expect((await monitor({ mint: newAddress() })).body.error.code).toBe("not_scanned")
  })
})

describe(`watch contracts on ${databaseKind}`, () => {
  test("set-watch stores normalised rules with expiry and next check, 201, 1 unit", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    const got = await setWatch({
      mint,
      label: "my position",
      ttlSeconds: 600,
      pollSeconds: 120,
      rules: [
        { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 },
        { metric: "safety_score", comparison: "lt", threshold: 60 },
        { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 }
      ]
    })
    expect(got.status).toBe(201)
    expect(got.body.data.rules).toEqual([
      { metric: "safety_score", comparison: "lt", threshold: 60 },
      { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 }
    ])
    const created = Date.parse(got.body.data.created_at)
    expect([Date.parse(got.body.data.expires_at) - created, Date.parse(got.body.data.next_check_at) - created]).toEqual([600_000, 120_000])
    expect([got.body.data.stored_only, got.body.data.label, await used() - before]).toEqual([true, "my position", 1])
  })

  test("read, list and delete are the owner's only, and free", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const watch = (await setWatch({ mint, rules: [{ metric: "volume_24h", comparison: "lt", threshold: 10 }] })).body.data
    const other = await keyWith(["watch:write"])
    const get = async (withKey: string) => read(await app(`/api/v1/decision/watches/${watch.watch_id}`, { headers: { authorization: `Bearer ${withKey}` } }))
    const before = await used()
    expect((await get(key)).body.data.watch_id).toBe(watch.watch_id)
    expect((await get(other.key)).status).toBe(404)
    const list = await read(await app("/api/v1/decision/watches", { headers: { authorization: `Bearer ${key}` } }))
    expect(list.body.data.map((item: { watch_id: string }) => item.watch_id)).toContain(watch.watch_id)
    const otherList = await read(await app("/api/v1/decision/watches", { headers: { authorization: `Bearer ${other.key}` } }))
    expect(otherList.body.data).toEqual([])
    const del = async (withKey: string) => read(await app(`/api/v1/decision/watches/${watch.watch_id}`, { method: "DELETE", headers: { authorization: `Bearer ${withKey}` } }))
    expect((await del(other.key)).status).toBe(404)
    expect((await del(key)).body.data).toEqual({ watch_id: watch.watch_id, deleted: true })
    expect((await del(key)).status).toBe(404)
    expect(await used()).toBe(before)
  })

  test("bad rules are 400 naming the field: unknown metric, bad comparison, no rules, too long a ttl", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const bad: Array<[unknown, string]> = [
      [{ mint, rules: [{ metric: "vibes", comparison: "lt", threshold: 1 }] }, "rules[0].metric"],
      [{ mint, rules: [{ metric: "safety_score", comparison: "==", threshold: 1 }] }, "rules[0].comparison"],
      [{ mint, rules: [] }, "rules"],
      [{ mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 1 }], ttlSeconds: 99_999_999 }, "ttlSeconds"]
    ]
    for (const [body, path] of bad) {
      const got = await setWatch(body)
      expect([got.status, got.body.error.code, got.body.error.details[0].path]).toEqual([400, "invalid_request", path])
    }
    expect((await setWatch({ mint: "nope", rules: [{ metric: "safety_score", comparison: "lt", threshold: 1 }] })).body.error.code)
      .toBe("invalid_address")
  })
})
