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
import { HistoryQuery } from "../../../src/features/Deployer/Schemas.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { postJson, read, testApp, testClient } from "../../support/http.ts"

// Wallet screening and deployer history end to end on the real database.
const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const keyWith = (scopes: ReadonlyArray<Scope>) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("wallet tests", { plan: "whale" })
      return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
    })
  )
const { accountId, key } = await keyWith(["wallet:risk:read", "deployer:history:read"])

const decodeLines = Schema.decodeUnknownSync(Schema.Array(WalletEvidenceLine))
const storeLines = (lines: ReadonlyArray<unknown>) => run(WalletRepo.record(decodeLines(lines)))
const label = (address: string, name: string, severity: string, category = "sanctions") => ({
  type: "label",
  address,
  label: name,
  category,
  severity,
  source: "manual_review",
  detail: "",
  observedAt: minutesAgo(600)
})
const exposure = (
  wallet: string,
  counterparty: string,
  hopDistance: number,
  exposureAmountUsd = 20_000,
  category = "sanctions"
) => ({
  type: "exposure",
  walletAddress: wallet,
  counterpartyAddress: counterparty,
  counterpartyLabel: "",
  category,
  direction: "inbound",
  exposureType: "transfer",
  hopDistance,
  exposureAmountUsd,
  exposurePct: 20,
  txCount: 3,
  lastSeenAt: minutesAgo(60)
})

// Through the typed client, as a caller's code sees the routes. A body decodes only at the status the contract
// declares (200) and an error class only at its own status and code, so `_tag` stands for both.
const clientFor = (withKey: string) => testClient(app, { authorization: `Bearer ${withKey}` })
const client = clientFor(key)
const anonymous = testClient(app)
const walletRisk = (walletAddress: string, via = client) =>
  Effect.runPromise(via.wallet.risk({ payload: { walletAddress } }))
const walletRiskFailure = (walletAddress: string, via = client) =>
  Effect.runPromise(Effect.flip(via.wallet.risk({ payload: { walletAddress } })))
// The client takes the query decoded, its default limit included: decoding it as a caller writes it fills that in.
const historyRequest = (wallet: string, query: typeof HistoryQuery.Encoded = {}) => ({
  path: { wallet },
  urlParams: Schema.decodeSync(HistoryQuery)(query)
})
const history = (wallet: string, query?: typeof HistoryQuery.Encoded, via = client) =>
  Effect.runPromise(via.deployer.history(historyRequest(wallet, query)))
const historyFailure = (wallet: string, query?: typeof HistoryQuery.Encoded, via = client) =>
  Effect.runPromise(Effect.flip(via.deployer.history(historyRequest(wallet, query))))

// A success with its status and the JSON as sent (the bytes the client decoded, which it keeps): decoding drops
// any key the schema does not name, so only the wire shows the exact field set.
// Bodies as sent are whatever the server wrote: tests index into them freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Wire = any
const withWire = <A, E>(call: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E>) =>
  Effect.runPromise(
    Effect.flatMap(call, ([body, response]) =>
      Effect.map(response.arrayBuffer, (bytes): { body: A; status: number; wire: Wire } => ({
        body,
        status: response.status,
        wire: JSON.parse(new TextDecoder().decode(bytes))
      }))
    )
  )

// Raw, for requests the typed client cannot send: bodies and queries its schemas refuse to encode.
const walletRiskRaw = async (body: unknown) =>
  read(await app("/api/v1/wallet/risk", postJson(body, { authorization: `Bearer ${key}` })))
const historyRaw = async (wallet: string, query: string) =>
  read(await app(`/api/v1/deployer/${wallet}/history${query}`, { headers: { authorization: `Bearer ${key}` } }))

describe(`POST /api/v1/wallet/risk on ${databaseKind}`, () => {
  test("a sanctioned wallet is critical and escalates, with the packet fields, meta and disclaimer", async () => {
    const wallet = newAddress()
    await storeLines([label(wallet, "sanctioned", "critical")])
    const before = await run(Quota.usedThisMonth(accountId))
    const { body, status, wire } = await withWire(
      client.wallet.risk({ payload: { walletAddress: wallet }, withResponse: true })
    )
    expect(status).toBe(200)
    expect(Object.keys(wire.data).sort()).toEqual([
      "confidence",
      "deployedTokens",
      "disclaimer",
      "exposures",
      "generatedAt",
      "modelVersion",
      "recommendedAction",
      "riskLevel",
      "riskScore",
      "signals",
      "sources",
      "summary",
      "walletAddress"
    ])
    expect([body.data.riskLevel, body.data.recommendedAction, body.data.signals[0]?.label]).toEqual([
      "critical",
      "escalate",
      "adverse_label"
    ])
    expect(body.data.disclaimer).toContain("not a legal compliance determination")
    expect(body.meta).toMatchObject({ scope: "wallet:risk:read", costUnits: 2, contractVersion: "2026-11-01" })
    expect((await run(Quota.usedThisMonth(accountId))).used - before.used).toBe(2)
  })

  test("exposures are listed with the spec's fields; the same exposure weighs less at a greater hop distance", async () => {
    const flagged = newAddress()
    await storeLines([label(flagged, "sanctioned", "critical")])
    const [near, far] = [newAddress(), newAddress()]
    await storeLines([exposure(near, flagged, 1), exposure(far, flagged, 2)])
    const {
      body: { data: nearRisk },
      wire: nearWire
    } = await withWire(client.wallet.risk({ payload: { walletAddress: near }, withResponse: true }))
    const farRisk = (await walletRisk(far)).data
    expect(Object.keys(nearWire.data.exposures[0]).sort()).toEqual([
      "category",
      "counterparty_address",
      "counterparty_label",
      "direction",
      "exposure_amount_usd",
      "exposure_pct",
      "exposure_type",
      "hop_distance",
      "last_seen_at",
      "tx_count"
    ])
    expect(nearRisk.signals[0]?.label).toBe("flagged_counterparty_exposure")
    expect(nearRisk.riskScore).toBeGreaterThan(farRisk.riskScore)
    expect(farRisk.riskScore).toBeGreaterThan(0)
  })

  test("a wallet with no cached evidence is a normal answer with low confidence that says so", async () => {
    const {
      body: { data: got },
      status
    } = await withWire(client.wallet.risk({ payload: { walletAddress: newAddress() }, withResponse: true }))
    expect(status).toBe(200)
    expect([got.confidence, got.recommendedAction, got.signals, got.sources]).toEqual(["low", "monitor", [], []])
    expect(got.summary).toContain("No cached evidence")
  })

  test("a deployer's own launches appear as deployedTokens and rugs as a signal", async () => {
    const deployer = newAddress()
    const drained = cleanScan(newAddress(), { scannedAt: minutesAgo(60 * 24) })
    await run(
      ScansRepo.record([
        decodeScan({
          ...drained,
          deployer: { address: deployer, priorLaunches: 0, priorRugs: 0, priorHoneypots: 0, flagged: false }
        }),
        decodeScan({
          ...drained,
          scannedAt: minutesAgo(5),
          deployer: { address: deployer, priorLaunches: 0, priorRugs: 0, priorHoneypots: 0, flagged: false },
          liquidity: { liquidityUsd: 50, lpLocked: false, lpLockPercentage: 0, lpLockExpiresAt: null, poolCount: 1 },
          market: { ...drained.market!, liquidityUsd: 50 }
        })
      ])
    )
    const got = (await walletRisk(deployer)).data
    expect(got.deployedTokens.map((token) => token.address)).toEqual([drained.mint])
    expect(got.signals.map((signal) => signal.label)).toContain("deployed_rugs")
  })

  test("errors: 401 without a key, 403 without the scope, 400 for an address that is not one, none charged", async () => {
    const tokenOnly = await keyWith(["token:risk:read"])
    const before = await run(Quota.usedThisMonth(accountId))
    const unauthorized = await walletRiskFailure(newAddress(), anonymous)
    expect(unauthorized._tag).toBe("Unauthorized")
    expect(unauthorized.message).toContain("Authorization: Bearer")
    const forbidden = await walletRiskFailure(newAddress(), clientFor(tokenOnly.key))
    expect(forbidden._tag).toBe("Forbidden")
    expect(forbidden.message).toContain("wallet:risk:read")
    const invalid = await walletRiskFailure("nope")
    expect(invalid._tag).toBe("InvalidAddress")
    expect(invalid.message).toContain(`"nope"`)
    expect((await run(Quota.usedThisMonth(accountId))).used).toBe(before.used)
  })

  test("errors: 400 invalid_request for a body the schema refuses (not a string, an unknown field), none charged", async () => {
    // Raw: the typed client cannot send either body.
    const before = await run(Quota.usedThisMonth(accountId))
    for (const body of [{ walletAddress: 42 }, { walletAddress: newAddress(), wallet: "x" }]) {
      const got = await walletRiskRaw(body)
      expect([JSON.stringify(body), got.status, got.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        "invalid_request"
      ])
    }
    expect((await run(Quota.usedThisMonth(accountId))).used).toBe(before.used)
  })
})

describe(`GET /api/v1/deployer/{wallet}/history on ${databaseKind}`, () => {
  const deployer = newAddress()
  const launches = Array.from({ length: 7 }, (_, i) =>
    cleanScan(newAddress(), {
      scannedAt: minutesAgo(10 + i * 60),
      symbol: `L${i}`,
      deployer: { address: deployer, priorLaunches: i, priorRugs: 0, priorHoneypots: 0, flagged: false },
      trading: { isHoneypot: i === 3, buyTax: 0, sellTax: i === 3 ? 100 : 0 }
    })
  )

  test("lists every launch with metrics that match the scans", async () => {
    await run(ScansRepo.record(launches.map((scan) => decodeScan(scan))))
    const { body: got, status } = await withWire(
      client.deployer.history({ ...historyRequest(deployer), withResponse: true })
    )
    expect(status).toBe(200)
    expect(got.data.launches.map((launch) => launch.symbol)).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L6"])
    expect(got.data.summary).toMatchObject({
      launchCount: 7,
      honeypotCount: 1,
      ruggedCount: 0,
      launchesLast24h: 7,
      riskLevel: "high"
    })
    expect(got.data.launches[3]).toMatchObject({ isHoneypot: true, verdict: "block" })
    expect(got.meta).toMatchObject({ scope: "deployer:history:read", costUnits: 1 })
  })

  test("cursor pagination returns every launch exactly once, then a null cursor", async () => {
    const seen: Array<string | null> = []
    let query: typeof HistoryQuery.Encoded = { limit: "3" }
    for (let page = 0; page < 5; page++) {
      const got = await history(deployer, query)
      seen.push(...got.data.launches.map((launch) => launch.symbol))
      if (got.data.page.nextCursor === null) break
      query = { limit: "3", cursor: got.data.page.nextCursor }
    }
    expect(seen).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L6"])
  })

  test("a wallet with no launches is a normal answer", async () => {
    const { body: got, status } = await withWire(
      client.deployer.history({ ...historyRequest(newAddress()), withResponse: true })
    )
    expect([status, got.data.summary.launchCount, got.data.summary.riskLevel, got.data.launches]).toEqual([
      200,
      0,
      "none",
      []
    ])
  })

  test("errors: bad wallet, bad cursor, missing scope", async () => {
    const badWallet = await historyFailure("not-a-wallet")
    expect(badWallet._tag).toBe("InvalidAddress")
    expect(badWallet.message).toContain(`"not-a-wallet"`)
    const badCursor = await historyFailure(deployer, { cursor: "garbage" })
    expect(badCursor._tag).toBe("InvalidRequest")
    expect(badCursor.message).toContain("cursor")
    const walletOnly = await keyWith(["wallet:risk:read"])
    const forbidden = await historyFailure(deployer, undefined, clientFor(walletOnly.key))
    expect(forbidden._tag).toBe("Forbidden")
    expect(forbidden.message).toContain("deployer:history:read")
  })

  test("without a limit a page holds up to 50 launches (the default the client always sends)", async () => {
    // Raw: the typed client fills in the default itself, so only a raw request shows the server's.
    const got = await historyRaw(deployer, "")
    expect([got.status, got.body.data.page.limit, got.body.data.launches.length]).toEqual([200, 50, 7])
  })

  test("errors: limit out of range or not a number, unknown parameter", async () => {
    // Raw: the typed client cannot send a query its schema refuses.
    for (const query of ["?limit=0", "?limit=201", "?limit=abc", "?limit=1e2", "?limit=%205", "?page=2"]) {
      const got = await historyRaw(deployer, query)
      expect([query, got.status, got.body.error.code]).toEqual([query, 400, "invalid_request"])
    }
  })
})
