import { describe, expect, test } from "bun:test"
import { sqlServices } from "../../support/layers.ts"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { WalletRepo } from "../../../src/features/WalletRisk/WalletRepo.ts"
import type { HttpClientResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import type { Scope } from "../../../src/domain/Scope.ts"
import { WalletEvidenceLine } from "../../../src/domain/WalletEvidence.ts"
import { drainingPositionScans } from "../../../src/features/Demo/positions.ts"
import type { ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"
import type { MonitorRequest, PreTradeRequest } from "../../../src/features/Decisions/Schemas.ts"
import { SetWatchRequest } from "../../../src/features/Watches/Schemas.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { postJson, read, testApp, testClient } from "../../support/http.ts"

// The decision routes and watch contracts end to end on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const keyWith = (scopes: ReadonlyArray<Scope>) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("decision tests", { plan: "whale" })
      return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
    })
  )
const { accountId, key } = await keyWith(["token:risk:read", "watch:write"])
const used = async () => (await run(Quota.usedThisMonth(accountId))).used

const stored = async (scan: ScanEvidenceEncoded) => {
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}

// Through the typed client, as a caller's code sees the routes. A body decodes only at the status the contract
// declares (200, or 201 for set-watch) and an error class only at its own status and code, so `_tag` stands for both.
const clientFor = (withKey: string) => testClient(app, { authorization: `Bearer ${withKey}` })
const client = clientFor(key)
const call = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))
const preTrade = (payload: typeof PreTradeRequest.Type) => call(client.decision.preTrade({ payload }))
const monitor = (payload: typeof MonitorRequest.Type) => call(client.decision.monitorPosition({ payload }))
// The client takes the request decoded, its defaults (ttlSeconds, pollSeconds) included: decoding it as a caller
// writes it fills them in.
const setWatchRequest = Schema.decodeSync(SetWatchRequest)
const setWatch = (request: typeof SetWatchRequest.Encoded, via = client) =>
  call(via.watch.setWatch({ payload: setWatchRequest(request) }))

// A success with its status and the JSON as sent (the bytes the client decoded, which it keeps): decoding drops
// any key the schema does not name, so only the wire shows the exact field set.
// Bodies as sent are whatever the server wrote: tests index into them freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Wire = any
const withWire = <A, E>(effect: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E>) =>
  Effect.runPromise(
    Effect.flatMap(effect, ([body, response]) =>
      Effect.map(response.arrayBuffer, (bytes): { body: A; status: number; wire: Wire } => ({
        body,
        status: response.status,
        wire: JSON.parse(new TextDecoder().decode(bytes))
      }))
    )
  )

// Raw, for what the typed client cannot send or see: bodies its schemas refuse to encode, the envelope's details.
const post = async (path: string, body: unknown, withKey = key) =>
  read(await app(path, postJson(body, { authorization: `Bearer ${withKey}` })))
const preTradeRaw = (body: unknown) => post("/api/v1/decision/pre-trade", body)
const setWatchRaw = (body: unknown) => post("/api/v1/decision/set-watch", body)

const warnScan = (mint: string) =>
  cleanScan(mint, {
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
      const { body, status } = await withWire(
        client.decision.preTrade({ payload: { mint, side: "buy", sizeUsd: 1_000 }, withResponse: true })
      )
      expect([mint, status, body.data.decision]).toEqual([mint, 200, decision])
      expect((await used()) - before).toBe(3)
    }
    const { body, wire } = await withWire(
      client.decision.preTrade({ payload: { mint: cases[0][1], side: "buy" }, withResponse: true })
    )
    expect(Object.keys(wire.data).sort()).toEqual([
      "cache_status",
      "confidence",
      "decision",
      "edge_summary",
      "evidence_age_seconds",
      "horizon",
      "invalidation",
      "limitations",
      "next_check_after_seconds",
      "reasons",
      "recommended_action",
      "risk",
      "sources",
      "token"
    ])
    expect(body.meta).toMatchObject({
      scope: "token:risk:read",
      costUnits: 3,
      contractVersion: "decision-pre-trade-v0-cache"
    })
    expect(body.meta.agentRequestId).not.toBe(body.meta.requestId)
    expect(body.data.edge_summary).toContain("100/100")
    expect(body.data.limitations).toContain("wallet_profile_may_be_missing")
  })

  test("the size matters: the same token proceeds small and needs review when large against liquidity", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const decisions = []
    for (const sizeUsd of [1_000, 100_000, 500_000])
      decisions.push((await preTrade({ mint, side: "buy", sizeUsd })).data.decision)
    expect(decisions).toEqual(["proceed", "proceed_with_caution", "review_required"])
  })

  test("evidence older than the caller's maximum age is review_required with the reason", async () => {
    const mint = await stored(cleanScan(newAddress(), { scannedAt: minutesAgo(20) }))
    const fine = await preTrade({ mint, side: "buy" })
    const strict = await preTrade({ mint, side: "buy", maxEvidenceAgeSeconds: 300 })
    expect([fine.data.decision, strict.data.decision]).toEqual(["proceed", "review_required"])
    expect(strict.data.reasons.join(" ")).toContain("300")
    expect(strict.data.limitations).toContain("stale_evidence")
  })

  test("a screened trader wallet is used: no wallet_profile_may_be_missing, and a sanctioned trader needs review", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const trader = newAddress()
    await run(
      WalletRepo.record(
        Schema.decodeUnknownSync(Schema.Array(WalletEvidenceLine))([
          {
            type: "label",
            address: trader,
            label: "sanctioned",
            category: "sanctions",
            severity: "critical",
            source: "ofac_list",
            observedAt: minutesAgo(600)
          }
        ])
      )
    )
    const got = await preTrade({ mint, side: "buy", wallet: trader })
    expect(got.data.decision).toBe("review_required")
    expect(got.data.limitations).not.toContain("wallet_profile_may_be_missing")
    expect(got.data.sources).toContain("svc_wallet_screening")
  })

  test("errors: 401, 403, 400 for an address that is not one, 404 for a mint never scanned — none charged", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    const unauthorized = await failure(testClient(app).decision.preTrade({ payload: { mint, side: "buy" } }))
    expect(unauthorized._tag).toBe("Unauthorized")
    expect(unauthorized.message).toContain("Authorization: Bearer")
    const watchOnly = await keyWith(["watch:write"])
    const forbidden = await failure(clientFor(watchOnly.key).decision.preTrade({ payload: { mint, side: "buy" } }))
    expect(forbidden._tag).toBe("Forbidden")
    expect(forbidden.message).toContain("token:risk:read")
    for (const payload of [
      { mint: "nope", side: "buy" },
      { mint, side: "buy", wallet: "nope" }
    ] as const) {
      const invalid = await failure(client.decision.preTrade({ payload }))
      expect([JSON.stringify(payload), invalid._tag]).toEqual([JSON.stringify(payload), "InvalidAddress"])
      expect(invalid.message).toContain(`"nope"`)
    }
    const neverScanned = newAddress()
    const never = await failure(client.decision.preTrade({ payload: { mint: neverScanned, side: "buy" } }))
    expect(never._tag).toBe("NotScanned")
    expect(never.message).toContain(neverScanned)
    expect(await used()).toBe(before)
  })

  test("errors: 400 invalid_request for a body the schema refuses — none charged", async () => {
    // Raw: the typed client cannot send any of these bodies.
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    const bad: Array<unknown> = [
      { mint, side: "hold" },
      { mint },
      { mint, side: "buy", sizeUsd: -5 },
      { mint, side: "buy", size: 5 }
    ]
    for (const body of bad) {
      const got = await preTradeRaw(body)
      expect([JSON.stringify(body), got.status, got.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        "invalid_request"
      ])
    }
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
      const { body, status } = await withWire(
        client.decision.monitorPosition({
          payload: { mint, entryTime, entryPriceUsd: 0.02, maxEvidenceAgeSeconds: 6 * 3600 },
          withResponse: true
        })
      )
      expect(status).toBe(200)
      guidance.push(body.data.next_check_after_seconds)
    }
    for (let i = 1; i < guidance.length; i++) expect(guidance[i]!).toBeLessThanOrEqual(guidance[i - 1]!)
    expect(guidance.at(-1)!).toBeLessThan(guidance[0]!)
    const last = await monitor({ mint, entryTime, entryPriceUsd: 0.02 })
    expect(last.data.pressure.map((signal) => signal.signal)).toEqual([
      "liquidity_drain",
      "sell_pressure",
      "drawdown",
      "holder_concentration",
      "new_hard_caps",
      "deployer_activity"
    ])
    expect(last.data.scans_considered).toBe(5)
    expect(last.meta).toMatchObject({ costUnits: 2, contractVersion: "decision-monitor-position-v0-cache" })
  })

  test("a watch's rules are evaluated: a rule that fires escalates the decision; one that does not, does not", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const quiet = (await setWatch({ mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] })).data
    const firing = (
      await setWatch({ mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 5_000_000 }] })
    ).data
    const calm = await monitor({ mint, watchId: quiet.watch_id })
    const hit = await monitor({ mint, watchId: firing.watch_id })
    expect([calm.data.watch_rules_hit[0]?.hit, calm.data.decision]).toEqual([false, "hold"])
    expect(hit.data.watch_rules_hit[0]).toMatchObject({ hit: true, value: 2_500_000 })
    expect(["reduce", "exit"]).toContain(hit.data.decision)
  })

  test("errors: another account's watch is 404, a watch of another mint is 400, bad entryTime is 400", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const other = await keyWith(["token:risk:read", "watch:write"])
    const theirs = (
      await setWatch(
        { mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] },
        clientFor(other.key)
      )
    ).data
    const notMine = await failure(client.decision.monitorPosition({ payload: { mint, watchId: theirs.watch_id } }))
    expect(notMine._tag).toBe("WatchNotFound")
    expect(notMine.message).toContain(theirs.watch_id)
    const otherMint = await stored(cleanScan(newAddress()))
    const mine = (
      await setWatch({ mint: otherMint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] })
    ).data
    const wrongMint = await failure(client.decision.monitorPosition({ payload: { mint, watchId: mine.watch_id } }))
    expect(wrongMint._tag).toBe("InvalidRequest")
    expect(wrongMint.message).toContain(`watchId: watch ${mine.watch_id} is for mint ${otherMint}`)
    for (const entryTime of ["yesterday", "2999-01-01T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01"]) {
      const badEntry = await failure(client.decision.monitorPosition({ payload: { mint, entryTime } }))
      expect([entryTime, badEntry._tag]).toEqual([entryTime, "InvalidRequest"])
      expect(badEntry.message).toContain("entryTime")
    }
    const neverScanned = newAddress()
    const never = await failure(client.decision.monitorPosition({ payload: { mint: neverScanned } }))
    expect(never._tag).toBe("NotScanned")
    expect(never.message).toContain(neverScanned)
  })
})

describe(`watch contracts on ${databaseKind}`, () => {
  test("set-watch stores normalised rules with expiry and next check, 201, 1 unit", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    const { body, status } = await withWire(
      client.watch.setWatch({
        payload: setWatchRequest({
          mint,
          label: "my position",
          ttlSeconds: 600,
          pollSeconds: 120,
          rules: [
            { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 },
            { metric: "safety_score", comparison: "lt", threshold: 60 },
            { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 }
          ]
        }),
        withResponse: true
      })
    )
    expect(status).toBe(201)
    expect(body.data.rules).toEqual([
      { metric: "safety_score", comparison: "lt", threshold: 60 },
      { metric: "sell_share_24h", comparison: "gt", threshold: 0.7 }
    ])
    const created = Date.parse(body.data.created_at)
    expect([Date.parse(body.data.expires_at) - created, Date.parse(body.data.next_check_at) - created]).toEqual([
      600_000, 120_000
    ])
    expect([body.data.stored_only, body.data.label, (await used()) - before]).toEqual([true, "my position", 1])
  })

  test("read, list and delete are the owner's only, and free", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const watch = (await setWatch({ mint, rules: [{ metric: "volume_24h", comparison: "lt", threshold: 10 }] })).data
    const other = clientFor((await keyWith(["watch:write"])).key)
    const path = { id: watch.watch_id }
    const before = await used()
    expect((await call(client.watch.getWatch({ path }))).data.watch_id).toBe(watch.watch_id)
    const hidden = await failure(other.watch.getWatch({ path }))
    expect([hidden._tag, hidden.message]).toEqual(["WatchNotFound", `No watch ${watch.watch_id} for this account.`])
    const tokenOnly = clientFor((await keyWith(["token:risk:read"])).key)
    const refused = await failure(tokenOnly.watch.listWatches())
    expect([refused._tag, refused.message]).toEqual([
      "Forbidden",
      "This key lacks the scope this route needs: watch:write."
    ])
    const list = await call(client.watch.listWatches())
    expect(list.data.map((item) => item.watch_id)).toContain(watch.watch_id)
    expect((await call(other.watch.listWatches())).data).toEqual([])
    const notTheirs = await failure(other.watch.deleteWatch({ path }))
    expect([notTheirs._tag, notTheirs.message]).toEqual([
      "WatchNotFound",
      `No watch ${watch.watch_id} for this account.`
    ])
    expect((await call(client.watch.deleteWatch({ path }))).data).toEqual({ watch_id: watch.watch_id, deleted: true })
    const gone = await failure(client.watch.deleteWatch({ path }))
    expect([gone._tag, gone.message]).toEqual(["WatchNotFound", `No watch ${watch.watch_id} for this account.`])
    expect(await used()).toBe(before)
  })

  test("a watch id that is not a uuid is 400 invalid_request, as the contract's format says (on read, delete and monitor-position)", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const headers = { authorization: `Bearer ${key}` }
    for (const method of ["GET", "DELETE"]) {
      const { body, status } = await read(await app("/api/v1/decision/watches/not-a-uuid", { method, headers }))
      expect([method, status, body.error.code]).toEqual([method, 400, "invalid_request"])
    }
    const pasted = await post("/api/v1/decision/monitor-position", { mint, watchId: "<optional>" })
    expect([pasted.status, pasted.body.error.code]).toEqual([400, "invalid_request"])
    expect(pasted.body.error.message).toContain("watchId")
  })

  test("a label PostgreSQL cannot store (a NUL, an unpaired surrogate) is 400 naming the field, and nothing is stored", async () => {
    const mint = await stored(cleanScan(newAddress()))
    const before = await used()
    for (const label of ["a\u0000b", "a\uD800b", "\uDC00"]) {
      const got = await setWatchRaw({ mint, label, rules: [{ metric: "volume_24h", comparison: "lt", threshold: 10 }] })
      expect([got.status, got.body.error.code, got.body.error.details[0].path]).toEqual([
        400,
        "invalid_request",
        "label"
      ])
    }
    expect(await used()).toBe(before)
  })

  test("bad rules are 400 naming the field: unknown metric, bad comparison, no rules, too long a ttl", async () => {
    // Raw: the typed client cannot send these bodies, and the field is named in the envelope's details.
    const mint = await stored(cleanScan(newAddress()))
    const bad: Array<[unknown, string]> = [
      [{ mint, rules: [{ metric: "vibes", comparison: "lt", threshold: 1 }] }, "rules[0].metric"],
      [{ mint, rules: [{ metric: "safety_score", comparison: "==", threshold: 1 }] }, "rules[0].comparison"],
      [{ mint, rules: [] }, "rules"],
      [
        { mint, rules: [{ metric: "safety_score", comparison: "lt", threshold: 1 }], ttlSeconds: 99_999_999 },
        "ttlSeconds"
      ]
    ]
    for (const [body, path] of bad) {
      const got = await setWatchRaw(body)
      expect([got.status, got.body.error.code, got.body.error.details[0].path]).toEqual([400, "invalid_request", path])
    }
  })

  test("a mint that is not an address is 400 invalid_address", async () => {
    const invalid = await failure(
      client.watch.setWatch({
        payload: setWatchRequest({ mint: "nope", rules: [{ metric: "safety_score", comparison: "lt", threshold: 1 }] })
      })
    )
    expect(invalid._tag).toBe("InvalidAddress")
    expect(invalid.message).toContain(`"nope"`)
  })
})
