import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { isAddress, type KeyPairSigner } from "@solana/kit"
import { Schema } from "effect"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { INCINERATOR, TOKEN_2022_PROGRAM_ADDRESS, VENUES } from "../../../src/workers/Scanner/Programs.ts"
import { makeRpcClient, RpcUnavailable } from "../../../src/workers/Scanner/Rpc.ts"
import { ScanFailed, scanMint, type ScanSettings } from "../../../src/workers/Scanner/Scan.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScanSettings } from "../../support/solana/Settings.ts"
import { referenceMarket } from "../../support/solana/Pools.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// The production scanner, unchanged, against real mints built by real transactions in LiteSVM and
// served over JSON-RPC on 127.0.0.1 (test/support/solana): every fact must match what was built.

// Settings name the reference SOL–USDC pool, built in beforeAll (1,000 SOL against 150,000 USDC: 150 USD).
let settings: ScanSettings

let world: World
let server: RpcServer
const clientFor = (overrides: Partial<Parameters<typeof makeRpcClient>[0]> = {}) =>
  makeRpcClient(testRpcSettings(server.url, overrides))
const scan = async (mint: string, budget = 64, client = clientFor()) => {
  const { counter, rpc } = client.forScan(budget)
  return scanMint(rpc, counter, mint as never, settings)
}
const decode = Schema.decodeUnknownSync(ScanEvidenceV2)
const encode = Schema.encodeSync(ScanEvidenceV2)

let authority: KeyPairSigner
let other: KeyPairSigner

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  authority = await world.signer()
  other = await world.signer()
  const { reference } = await referenceMarket(world)
  settings = testScanSettings(reference.address)
})
afterAll(() => server.stop())

describe("scanner: what a scan reads", () => {
  test("an SPL mint with Metaplex metadata, holders, pools, a locker, the incinerator and the deployer", async () => {
    const deployer = await world.signer()
    const built = await world.mint({ program: "token", decimals: 6, deployer, freezeAuthority: null })
    await world.metaplex(built, {
      name: "Real Token",
      symbol: "REAL",
      uri: "https://example.org/real.json",
      isMutable: false,
      updateAuthority: other.address
    })
    const holders = await world.holders(built, [
      ...Array.from({ length: 14 }, (_, i) => ({ amount: BigInt(10_000 + i * 1_000) })),
      { owner: deployer.address, amount: 50_000n }
    ])
    const whirlpool = await world.venue(built, "orca-whirlpool", 300_000n)
    const amm = await world.venue(built, "raydium-amm-v4", 200_000n)
    const lock = await world.venue(built, "jupiter-lock", 150_000n)
    await world.incinerate(built, 100_000n)
    await world.revoke(built, "mint")
    const totalSupply =
      holders.reduce((sum, holder) => sum + holder.amount, 0n) + 300_000n + 200_000n + 150_000n + 100_000n
    server.reset()

    const evidence = decode(encode(await scan(built.address)))
    expect(evidence.scanDepth).toBe("full")
    expect(evidence.provenance.partial).toEqual([])
    expect(evidence.provenance.slot).toBe(Number(world.slot))
    expect(evidence.token.program).toEqual({ status: "observed", value: "spl-token" })
    expect(evidence.token.supplyRaw).toEqual({ status: "observed", value: totalSupply.toString() })
    expect(evidence.token.decimals).toEqual({ status: "observed", value: 6 })
    expect(evidence.token.mintAuthority).toEqual({ status: "observed", value: null })
    expect(evidence.token.freezeAuthority).toEqual({ status: "observed", value: null })
    expect(evidence.extensions.status).toBe("not_applicable")
    expect(evidence.transferFee.status).toBe("not_applicable")
    expect(evidence.metadata).toEqual({
      status: "observed",
      value: {
        source: "metaplex",
        name: "Real Token",
        symbol: "REAL",
        uri: "https://example.org/real.json",
        mutable: false,
        updateAuthority: other.address as never
      }
    })
    expect(evidence.deployer.status).toBe("observed")
    if (evidence.deployer.status === "observed") {
      expect(evidence.deployer.value.address).toBe(deployer.address as never)
      expect(evidence.deployer.value.signature).toBe(built.signature)
    }
    expect(evidence.token.createdAt.status).toBe("observed")

    if (evidence.holders.top.status !== "observed") throw new Error("holders not observed")
    const byOwner = new Map(evidence.holders.top.value.map((holder) => [holder.address as string, holder]))
    expect(byOwner.get(whirlpool.vaultOwner)).toMatchObject({ kind: "pool", label: "orca-whirlpool", amount: "300000" })
    expect(byOwner.get(amm.vaultOwner)).toMatchObject({ kind: "pool", label: "raydium-amm-v4" })
    expect(byOwner.get(lock.vaultOwner)).toMatchObject({ kind: "locker", label: "jupiter-lock" })
    expect(byOwner.get(INCINERATOR)).toMatchObject({ kind: "burn", label: "incinerator" })
    expect(byOwner.get(deployer.address)).toMatchObject({ kind: "creator", label: "deployer" })
    expect(evidence.holders.top.value.length).toBe(19)
    for (const holder of evidence.holders.top.value) {
      expect(holder.pct).toBeCloseTo(Number((BigInt(holder.amount ?? "0") * 1_000_000n) / totalSupply) / 10_000, 6)
    }
    expect(evidence.holders.creatorPct).toEqual({
      status: "observed",
      value: Number((50_000n * 1_000_000n) / totalSupply) / 10_000
    })
    // Batched stages: the scan's calls go out in at most 6 HTTP requests (a stage with nothing to read sends none),
    // and the provenance counts both exactly as the server saw them.
    expect(server.requests()).toBeLessThanOrEqual(6)
    expect(evidence.provenance.rpcRoundTrips).toBe(server.requests())
    expect(evidence.provenance.rpcCalls).toBe([...server.calls.values()].reduce((sum, n) => sum + n, 0))

    const view = scoringView(evidence)
    expect(view.mintAuthority).toBeNull()
    expect(view.name).toBe("Real Token")
    expect(view.holders.top.find((holder) => holder.kind === "creator")?.address).toBe(deployer.address as never)
  })

  test("a Token-2022 mint: every extension with its addresses, the fee in effect, and its own metadata", async () => {
    const built = await world.mint({
      program: "token-2022",
      decimals: 6,
      freezeAuthority: authority, // a frozen default state needs one
      extensions: {
        transferFee: {
          configAuthority: authority,
          withdrawAuthority: other.address,
          basisPoints: 100,
          maximumFee: 1_000n,
          next: { basisPoints: 250, maximumFee: 9_000n }
        },
        permanentDelegate: other.address,
        transferHook: { programId: authority.address, authority: other.address },
        defaultAccountState: "frozen",
        mintCloseAuthority: other.address,
        tokenMetadata: {
          name: "Hooked",
          symbol: "HOOK",
          uri: "https://example.org/hook.json",
          updateAuthority: other.address
        },
        pausable: { authority: authority.address },
        interestBearing: { rateAuthority: other.address, rate: 500 }
      }
    })
    await world.holders(built, [{ amount: 77n }])
    const evidence = await scan(built.address)
    expect(evidence.scanDepth).toBe("full")
    expect(evidence.token.program).toEqual({ status: "observed", value: "token-2022" })
    if (evidence.extensions.status !== "observed") throw new Error("extensions not observed")
    const named = new Map(evidence.extensions.value.map((extension) => [extension.name, extension]))
    expect([...named.keys()].sort()).toEqual([
      "DefaultAccountState",
      "InterestBearingConfig",
      "MetadataPointer",
      "MintCloseAuthority",
      "PausableConfig",
      "PermanentDelegate",
      "TokenMetadata",
      "TransferFeeConfig",
      "TransferHook"
    ])
    expect(named.get("TransferFeeConfig")).toMatchObject({
      type: 1,
      addresses: { transferFeeConfigAuthority: authority.address, withdrawWithheldAuthority: other.address }
    })
    expect(named.get("PermanentDelegate")).toMatchObject({ type: 12, addresses: { delegate: other.address } })
    expect(named.get("TransferHook")).toMatchObject({
      type: 14,
      addresses: { programId: authority.address, authority: other.address }
    })
    expect(named.get("DefaultAccountState")).toMatchObject({ type: 6, settings: { state: "frozen" } })
    expect(named.get("MintCloseAuthority")).toMatchObject({ type: 3, addresses: { closeAuthority: other.address } })
    expect(named.get("PausableConfig")).toMatchObject({
      type: 26,
      addresses: { authority: authority.address },
      settings: { paused: false }
    })
    expect(named.get("InterestBearingConfig")).toMatchObject({
      type: 10,
      addresses: { rateAuthority: other.address },
      settings: { currentRate: 500 }
    })
    // The world sits at slot 300,000,000 (epoch 694), past the epoch the newer fee starts at.
    expect(evidence.transferFee).toEqual({
      status: "observed",
      value: {
        bps: 250,
        maxFee: "9000",
        configAuthority: authority.address as never,
        withdrawAuthority: other.address as never,
        scheduledBps: null,
        scheduledEpoch: null
      }
    })
    // The hook "program" here is a wallet: not a program, so who could change it is not observed.
    expect(evidence.transferHookProgram).toEqual({
      status: "not_observed",
      reason: `hook program ${authority.address}: owned by 11111111111111111111111111111111, not a BPF loader`
    })
    expect(evidence.metadata).toMatchObject({
      status: "observed",
      value: { source: "token-2022", name: "Hooked", symbol: "HOOK", mutable: true, updateAuthority: other.address }
    })
    const view = scoringView(evidence)
    expect(view.extensions).toEqual({
      transferFeeBps: 250,
      permanentDelegate: other.address as never,
      transferHook: authority.address as never,
      defaultAccountStateFrozen: true,
      nonTransferable: false,
      mintCloseAuthority: other.address as never,
      pausableAuthority: authority.address as never,
      paused: false
    })
  })

  test("confidential transfers, a scaled UI amount and an outside metadata pointer, with their addresses", async () => {
    const built = await world.mint({
      program: "token-2022",
      decimals: 2,
      extensions: {
        confidentialTransfer: { authority: other.address, autoApproveNewAccounts: true, auditorElgamalPubkey: null },
        scaledUiAmount: { authority: authority.address, multiplier: 1.5 },
        metadataPointer: { authority: null, address: other.address }
      }
    })
    const evidence = await scan(built.address)
    if (evidence.extensions.status !== "observed") throw new Error("extensions not observed")
    const named = new Map(evidence.extensions.value.map((extension) => [extension.name, extension]))
    expect(named.get("ConfidentialTransferMint")).toMatchObject({
      type: 4,
      addresses: { authority: other.address, auditorElgamalPubkey: null },
      settings: { autoApproveNewAccounts: true }
    })
    expect(named.get("ScaledUiAmountConfig")).toMatchObject({
      type: 25,
      addresses: { authority: authority.address },
      settings: { multiplier: 1.5 }
    })
    expect(named.get("MetadataPointer")).toMatchObject({
      type: 18,
      addresses: { authority: null, metadataAddress: other.address }
    })
    expect(evidence.transferFee.status).toBe("not_applicable")
    // The metadata lives in another account the pointer names: not read by this version, so not observed.
    expect(evidence.metadata.status).toBe("not_observed")
  })

  test("an extension type the decoder does not know is recorded by number; the known ones still decode", async () => {
    const built = await world.mint({
      program: "token-2022",
      decimals: 3,
      extensions: { mintCloseAuthority: other.address }
    })
    const account = world.svm.getAccount(built.address)
    if (!account.exists) throw new Error("mint missing")
    const data = new Uint8Array(account.data.length + 8)
    data.set(account.data)
    new DataView(data.buffer).setUint16(account.data.length, 200, true) // type 200, 4 bytes of value
    new DataView(data.buffer).setUint16(account.data.length + 2, 4, true)
    world.setAccount(built.address, built.program, data)
    const evidence = await scan(built.address)
    if (evidence.extensions.status !== "observed") throw new Error("extensions not observed")
    expect(evidence.extensions.value.map((extension) => [extension.name, extension.type])).toEqual([
      ["MintCloseAuthority", 3],
      ["Unknown", 200]
    ])
  })

  test("every pool and locker venue's vault is classified with its label and source", async () => {
    const built = await world.mint({ program: "token", decimals: 0 })
    await world.holders(built, [{ amount: 1n }])
    const placed = []
    for (const venue of VENUES)
      placed.push(await world.venue(built, venue.label, 1_000n + BigInt(VENUES.indexOf(venue))))
    const evidence = await scan(built.address)
    if (evidence.holders.top.status !== "observed") throw new Error("holders not observed")
    const byOwner = new Map(evidence.holders.top.value.map((holder) => [holder.address as string, holder]))
    for (const [i, venue] of VENUES.entries()) {
      const holder = byOwner.get(placed[i]!.vaultOwner)
      expect(holder?.kind).toBe(venue.kind)
      expect(holder?.label).toBe(venue.label)
      expect(holder?.labelSource).toContain(venue.program)
    }
    // Program-wide authorities share one vault per mint: the others are labelled once each.
    expect(
      evidence.holders.top.value.filter((holder) => holder.kind === "holder").map((holder) => holder.amount)
    ).toEqual(["1"])
  })

  test("a mint on the curated issuer list is issuer-verified, with its source; others are not", async () => {
    const built = await world.mint({ program: "token", decimals: 6 })
    const { counter, rpc } = clientFor().forScan(64)
    const issuers = new Map([
      [built.address as string, { issuer: "Example Issuer", source: "https://issuer.example/addresses" }]
    ])
    const verified = await scanMint(rpc, counter, built.address, { ...settings, issuers })
    expect(verified.issuerVerified).toEqual({ issuer: "Example Issuer", source: "https://issuer.example/addresses" })
    expect(scoringView(verified).verified).toBe(true)
    const plain = await scan(built.address)
    expect(plain.issuerVerified).toBeNull()
    expect(scoringView(plain).verified).toBe(false)
  })

  test("the shipped issuer list names a source for every entry and only valid mints", async () => {
    const { issuers } = (await import("../../../src/domain/issuers.json")).default
    expect(issuers.length).toBeGreaterThan(3)
    for (const entry of issuers) {
      expect(entry.source).toStartWith("https://")
      expect(isAddress(entry.mint)).toBe(true)
    }
  })

  test("a non-transferable Token-2022 mint reads as such", async () => {
    const built = await world.mint({ program: "token-2022", decimals: 0, extensions: { nonTransferable: true } })
    await world.holders(built, [{ amount: 5n }])
    const evidence = await scan(built.address)
    expect(scoringView(evidence).extensions.nonTransferable).toBe(true)
  })
})

describe("scanner: faults never read as safe", () => {
  test("429 with Retry-After is honoured and the scan completes in full", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    await world.holders(built, [{ amount: 10n }])
    server.reset()
    server.fault({ kind: "rateLimit", count: 1, retryAfterSeconds: 1, method: "getTokenLargestAccounts" })
    const started = performance.now()
    const evidence = await scan(built.address)
    expect(performance.now() - started).toBeGreaterThanOrEqual(900)
    expect(evidence.scanDepth).toBe("full")
    expect(server.calls.get("getTokenLargestAccounts")).toBe(2)
  })

  test("a malformed answer is retried", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    await world.holders(built, [{ amount: 10n }])
    server.reset()
    server.fault({ kind: "malformed", count: 1, method: "getSignaturesForAddress" })
    const evidence = await scan(built.address)
    expect(evidence.scanDepth).toBe("full")
    expect(evidence.deployer.status).toBe("observed")
  })

  test("an answer from a slot older than the pinned one leaves the holders not observed and the scan partial", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    await world.holders(built, [{ amount: 10n }])
    server.reset()
    server.fault({ kind: "staleSlot", count: 5, behind: 10n, method: "getTokenLargestAccounts" })
    const evidence = await scan(built.address)
    expect(evidence.scanDepth).toBe("partial")
    expect(evidence.holders.top.status).toBe("not_observed")
    expect(evidence.holders.creatorPct.status).toBe("not_observed")
    expect(evidence.provenance.partial.join(" ")).toContain("older than")
    expect(scoringView(evidence).holders.top).toEqual([])
  })

  test("a call that keeps failing leaves its facts not observed; the rest of the scan stands", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    await world.holders(built, [{ amount: 10n }])
    server.reset()
    server.fault({
      kind: "error",
      count: 10,
      code: -32005,
      message: "Node is behind",
      method: "getSignaturesForAddress"
    })
    const evidence = await scan(built.address)
    expect(evidence.scanDepth).toBe("partial")
    expect(evidence.deployer.status).toBe("not_observed")
    expect(evidence.token.mintAuthority.status).toBe("observed")
    expect(scoringView(evidence).deployer.address).toBeNull()
  })

  test("a timeout is retried within the call budget; a spent budget leaves the rest not observed", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    await world.holders(built, [{ amount: 10n }])
    server.reset()
    server.fault({ kind: "hang", count: 1, delayMs: 1_000, method: "getMultipleAccounts" })
    const evidence = await scan(built.address, 64, clientFor({ timeoutMs: 300 }))
    expect(evidence.scanDepth).toBe("full")
    const tight = await scan(built.address, 3)
    expect(tight.scanDepth).toBe("partial")
    expect(tight.provenance.partial.join(" ")).toContain("call budget spent")
    expect(tight.provenance.rpcCalls).toBeLessThanOrEqual(3)
  })

  test("a mint reported under another owner is not a token; a missing account is not scanned", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    server.reset()
    server.fault({
      kind: "wrongOwner",
      address: built.address,
      owner: TOKEN_2022_PROGRAM_ADDRESS === built.program ? other.address : other.address
    })
    const wrong = await scan(built.address).then(
      () => undefined,
      (error: unknown) => error
    )
    expect(wrong).toBeInstanceOf(ScanFailed)
    expect((wrong as ScanFailed).permanent).toBe(true)
    server.reset()
    server.fault({ kind: "missing", address: built.address })
    const missing = await scan(built.address).then(
      () => undefined,
      (error: unknown) => error
    )
    expect((missing as ScanFailed).reason).toContain("no account")
    server.reset()
  })

  test("a metadata account under the wrong owner is not observed rather than trusted", async () => {
    const built = await world.mint({ program: "token", decimals: 2 })
    const metadata = await world.metaplex(built, { name: "Fake", symbol: "FAKE", uri: "https://example.org" })
    server.reset()
    server.fault({ kind: "wrongOwner", address: metadata.address, owner: other.address })
    const evidence = await scan(built.address)
    expect(evidence.metadata.status).toBe("not_observed")
    expect(evidence.scanDepth).toBe("partial")
    server.reset()
  })

  test("an endpoint that keeps failing opens its breaker; calls fail fast to the caller", async () => {
    const client = clientFor({ retries: 0, breakerFailures: 2 })
    server.reset()
    server.fault({ kind: "error", count: 0, code: 0, message: "unused" })
    server.reset()
    server.fault({ kind: "malformed", count: 2 })
    const built = await world.mint({ program: "token", decimals: 2 })
    for (let i = 0; i < 2; i++) await scan(built.address, 64, client).catch(() => undefined)
    const failed = await scan(built.address, 64, client).then(
      () => undefined,
      (error: unknown) => error
    )
    expect((failed as ScanFailed).reason).toContain("cooling down")
    expect(RpcUnavailable).toBeDefined()
    server.reset()
  })
})
