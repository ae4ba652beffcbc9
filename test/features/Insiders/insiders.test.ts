import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit"
import { Effect, Schema } from "effect"
import type { Scope } from "../../../src/domain/Scope.ts"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { Accounts, type PlanChange } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { makeFundersRepo } from "../../../src/features/Insiders/FundersRepo.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import { scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import { defaultInsiderSettings, memoryFunderBook } from "../../../src/workers/Scanner/stages/FunderBook.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { read, testApp, testClient } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { referenceMarket } from "../../support/solana/Pools.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScanSettings } from "../../support/solana/Settings.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// GET /api/v1/token/{mint}/insiders end to end: a token built in the LiteSVM world (the deployer funds 5 fresh
// wallets that buy in the creation slot and hold 35%), scanned by the scanner with its insiders stage, its
// first funders kept in wallet_funders, then read through the keyed route: the graph, its facts, metering.

const services = sqlServices()
const { run, runtime } = runtimeFor(services)
const app = testApp((await runtime.runtime()).context)

const SOL = 1_000_000_000n
let world: World
let server: RpcServer
let settings: ScanSettings
let deployer: KeyPairSigner
let ring: Array<KeyPairSigner>
let scannedMint: string

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  const { reference } = await referenceMarket(world)
  const book = memoryFunderBook()
  settings = testScanSettings(reference.address, { insiders: { ...defaultInsiderSettings, book } })
  deployer = await world.signer()
  ring = await Promise.all(Array.from({ length: 5 }, () => generateKeyPairSigner()))
  for (const wallet of ring) await world.transferSol(deployer, wallet.address, SOL)
  const mint = await world.inOneSlot(async () => {
    const mint = await world.mint({ deployer, decimals: 6 })
    await world.holders(mint, [
      { owner: deployer, amount: 100_000_000n },
      ...ring.map((owner) => ({ owner, amount: 70_000_000n }))
    ])
    return mint
  })
  world.advance(50n)
  await world.holders(
    mint,
    Array.from({ length: 11 }, () => ({ amount: 50_000_000n }))
  )
  const { counter, rpc } = makeRpcClient(testRpcSettings(server.url)).forScan(200)
  const evidence = Schema.decodeUnknownSync(ScanEvidenceV2)(
    JSON.parse(JSON.stringify(await scanMint(rpc, counter, mint.address, settings)))
  )
  // What the worker does: the scan recorded, the first funders it read kept in wallet_funders.
  await run(ScansRepo.record([evidence]))
  await run(Effect.flatMap(makeFundersRepo, (funders) => funders.remember([...book.records.values()])))
  scannedMint = mint.address
}, 60_000)
afterAll(() => server.stop())

const newKey = async (change: PlanChange = { plan: "free" }, scopes: ReadonlyArray<Scope> = ["token:risk:read"]) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("test", change)
      const { key } = yield* Accounts.createKey(account.id, scopes, null)
      return { key, accountId: account.id }
    })
  )
const used = (accountId: string) => run(Effect.map(Quota.usedThisMonth(accountId), (usage) => usage.used))
const bearer = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { authorization: `Bearer ${key}` }
const insiders = (key: string | undefined, mint: string) =>
  Effect.runPromise(testClient(app, bearer(key)).insiders.insiders({ path: { mint } }))
const insidersFailure = (key: string | undefined, mint: string) =>
  Effect.runPromise(Effect.flip(testClient(app, bearer(key)).insiders.insiders({ path: { mint } })))
const raw = async (key: string | undefined, mint: string) =>
  read(await app(`/api/v1/token/${mint}/insiders`, { headers: bearer(key) }))

describe(`GET /api/v1/token/{mint}/insiders on ${databaseKind}`, () => {
  test("the deployer-funded ring as clusters, launch buyers, dev holding and a graph; charged 1 unit", async () => {
    const { accountId, key } = await newKey()
    const { data, meta } = await insiders(key, scannedMint)
    expect(meta).toMatchObject({ scope: "token:risk:read", costUnits: 1, cacheMode: "latest_cached_scan" })
    expect(await used(accountId)).toBe(1)
    const ringAddresses = ring.map((wallet) => wallet.address as string).sort()

    if (data.clusters.status !== "observed") throw new Error("clusters not observed")
    expect(data.clusters.provenance.source).toBe("scan")
    const funded = data.clusters.value.find((cluster) => cluster.reason === "deployer_funded")!
    expect(funded).toMatchObject({ funder: deployer.address, memberCount: 5, pct: 35 })
    expect(funded.members.map((member) => member.owner as string).sort()).toEqual(ringAddresses)
    expect(funded.risk).toBe(`Deployer-funded cluster of 5 wallets holds 35% of supply (funder ${deployer.address})`)
    expect(data.launchBuyers).toMatchObject({ status: "observed", value: { sameSlotPct: 35, sameSlotCount: 5 } })
    expect(data.deployerHolding).toMatchObject({
      status: "observed",
      value: { deployer: deployer.address, initialPct: 10, currentPct: 10, soldPct: 0 }
    })

    const { nodes, edges } = data.graph
    const node = (id: string) => nodes.find((candidate) => candidate.id === id)
    expect(node(deployer.address)).toMatchObject({ kind: "deployer", pct: 10 })
    expect(node(deployer.address)!.labels).toContain("funder")
    for (const wallet of ringAddresses) {
      expect(node(wallet)).toMatchObject({ kind: "holder", pct: 7 })
      expect(node(wallet)!.labels).toEqual(expect.arrayContaining(["holder", "cluster_member", "same_slot_buyer"]))
    }
    const fundedClusterId = funded.id
    expect(node(fundedClusterId)).toMatchObject({ kind: "cluster", pct: 35, labels: ["deployer_funded"] })
    // Each ring wallet: funded_by the deployer (1 SOL, from wallet_funders), member_of the cluster, same_slot.
    const funding = edges.filter((edge) => edge.kind === "funded_by" && edge.to === deployer.address)
    expect(funding.map((edge) => edge.from).sort()).toEqual(ringAddresses)
    for (const edge of funding) {
      expect(edge.lamports).toBe(String(SOL))
      expect(edge.slot).toBeGreaterThan(0)
      expect(edge.signature).not.toBeNull()
      expect(edge.provenance.source).toBe("wallet_funders")
    }
    const members = edges.filter((edge) => edge.kind === "member_of" && edge.to === fundedClusterId)
    expect(members.map((edge) => [edge.from, edge.pct])).toEqual(
      expect.arrayContaining(ringAddresses.map((wallet) => [wallet, 7]))
    )
    const launch = data.launchBuyers.status === "observed" ? data.launchBuyers.value.creationSlot : -1
    const sameSlot = edges.filter((edge) => edge.kind === "same_slot")
    expect(sameSlot.map((edge) => edge.from).sort()).toEqual(ringAddresses)
    expect(new Set(sameSlot.map((edge) => `${edge.to}@${edge.slot}`))).toEqual(new Set([`launch:${launch}@${launch}`]))
    expect(node(`launch:${launch}`)).toMatchObject({ kind: "launch" })
    // Every edge joins two nodes of the graph.
    for (const edge of edges) expect([node(edge.from)?.id, node(edge.to)?.id]).toEqual([edge.from, edge.to])
    // The 11 strangers were airdropped: no funder edge, no cluster, but they are holders.
    expect(nodes.filter((candidate) => candidate.kind === "holder")).toHaveLength(16)
    expect(data.provenance.fundersKnown).toBeGreaterThanOrEqual(16)
  })

  test("the token risk packet's risks name the cluster and its funder", async () => {
    const { key } = await newKey()
    const { data } = await Effect.runPromise(
      testClient(app, bearer(key)).token.risk({ payload: { address: scannedMint } })
    )
    expect(data.risks).toContain(
      `Deployer-funded cluster of 5 wallets holds 35% of supply (funder ${deployer.address})`
    )
    expect(data.risks).toContain("5 wallets that bought in the creation slot hold 35% of supply")
  })

  test("a scan without an insiders block: every insider fact not_observed with its reason, none guessed", async () => {
    const { key } = await newKey()
    const mint = newAddress()
    await run(ScansRepo.record([decodeScan(cleanScan(mint))]))
    const { data } = await insiders(key, mint)
    for (const fact of [data.clusters, data.launchBuyers, data.deployerHolding]) {
      expect(fact.status).toBe("not_observed")
      if (fact.status !== "observed") expect(fact.reason).toContain("no insiders block")
    }
    expect(data.graph.edges).toEqual([])
    expect(data.provenance).toMatchObject({ funderCalls: null, fundersKnown: 0 })
  })

  test("missing key 401, a key without token:risk:read 403; neither charged", async () => {
    expect((await insidersFailure(undefined, scannedMint))._tag).toBe("Unauthorized")
    const { accountId, key } = await newKey({ plan: "free" }, ["wallet:risk:read"])
    const failure = await insidersFailure(key, scannedMint)
    expect([failure._tag, failure.message]).toEqual([
      "Forbidden",
      "This key lacks the scope this route needs: token:risk:read."
    ])
    const got = await raw(key, scannedMint)
    expect([got.status, got.body.error.code]).toEqual([403, "forbidden"])
    expect(await used(accountId)).toBe(0)
  })

  test("a mint that is not base58 of 32 bytes is 400 invalid_address, not charged", async () => {
    const { accountId, key } = await newKey()
    const failure = await insidersFailure(key, "xyz")
    expect([failure._tag, failure.message]).toEqual([
      "InvalidAddress",
      '"xyz" is not a Solana address (base58 of 32 bytes).'
    ])
    const got = await raw(key, "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl")
    expect([got.status, got.body.error.code]).toEqual([400, "invalid_address"])
    expect(await used(accountId)).toBe(0)
  })

  test("a mint never scanned is 404 not_scanned as on the token risk route, not charged", async () => {
    const { accountId, key } = await newKey()
    const mint = newAddress()
    const failure = await insidersFailure(key, mint)
    expect([failure._tag, failure.message]).toEqual([
      "NotScanned",
      `${mint} has never been scanned; POST /api/risk-check/${mint}/rescan to queue a scan.`
    ])
    const got = await raw(key, mint)
    expect([got.status, got.body.error.code, got.headers["x-quota-remaining"]]).toEqual([404, "not_scanned", "100"])
    expect(await used(accountId)).toBe(0)
  })

  test("metered like token risk: the quota refuses with 429 quota_exceeded; a failed call is not charged", async () => {
    const { accountId, key } = await newKey({ plan: "enterprise", monthlyQuota: 2, requestsPerMinute: 100 })
    expect((await insiders(key, scannedMint)).meta.quota.used).toBe(1)
    // A failure (never scanned) between the two: not charged.
    expect((await raw(key, newAddress())).status).toBe(404)
    // Token risk and insiders share the account's quota.
    const risk = await Effect.runPromise(testClient(app, bearer(key)).token.risk({ payload: { address: scannedMint } }))
    expect(risk.meta.quota.used).toBe(2)
    const over = await raw(key, scannedMint)
    expect([over.status, over.body.error.code]).toEqual([429, "quota_exceeded"])
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0)
    expect(await used(accountId)).toBe(2)
  })

  test("past the per-minute limit: 429 rate_limited with Retry-After", async () => {
    const { key } = await newKey({ plan: "enterprise", monthlyQuota: 1_000, requestsPerMinute: 2 })
    const statuses = []
    for (let i = 0; i < 2; i++) statuses.push((await raw(key, scannedMint)).status)
    const limited = await raw(key, scannedMint)
    const refused = limited.status === 429 ? limited : await raw(key, scannedMint)
    expect(statuses).toEqual([200, 200])
    expect([refused.status, refused.body.error.code]).toEqual([429, "rate_limited"])
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
  })
})
