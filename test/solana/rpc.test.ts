import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test"
import {
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  createSolanaRpc,
  generateKeyPairSigner,
  isSolanaError,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR
} from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import { type RpcServer, encodeJson, startRpcServer } from "../support/solana/RpcServer.ts"
import { type BuiltMint, type Holder, type World, makeWorld } from "../support/solana/World.ts"

const post = async (server: RpcServer, body: unknown): Promise<Response> =>
  fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

const call = (method: string, params: ReadonlyArray<unknown> = [], id = 1) => ({ jsonrpc: "2.0", id, method, params })

/** The rejection of a promise, so a test can inspect it. */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}

describe("the JSON-RPC server over a world", () => {
  let world: World
  let server: RpcServer
  let rpc: Rpc<SolanaRpcApi>
  let mint: BuiltMint
  let holders: ReadonlyArray<Holder>

  beforeAll(async () => {
    world = makeWorld()
    server = startRpcServer(world)
    rpc = createSolanaRpc(server.url)
    mint = await world.mint({ program: "token-2022", decimals: 3 })
    // 22 holders with a tie, so the top 20 leaves two out and the tie order is fixed.
    const amounts = [
      5n,
      1_500n,
      42n,
      1_500n,
      7n,
      900_000n,
      1n,
      2n,
      3n,
      4n,
      6n,
      8n,
      9n,
      10n,
      11n,
      12n,
      13n,
      14n,
      15n,
      16n,
      17n,
      18n
    ]
    holders = await world.holders(
      mint,
      amounts.map((amount) => ({ amount }))
    )
  })
  afterEach(() => server.reset())
  afterAll(() => server.stop())

  test("getTokenLargestAccounts: the top 20 by amount, ties by address, with UI amounts", async () => {
    const { context, value } = await rpc.getTokenLargestAccounts(mint.address).send()
    expect(context.slot).toBe(world.slot)
    const expected = [...holders]
      .sort((a, b) => (a.amount === b.amount ? a.account.localeCompare(b.account) : a.amount > b.amount ? -1 : 1))
      .slice(0, 20)
    expect(value.map((entry) => entry.address)).toEqual(expected.map((holder) => holder.account))
    expect<unknown>(value[0]).toEqual({
      address: expected[0]?.account,
      amount: "900000",
      decimals: 3,
      uiAmount: 900,
      uiAmountString: "900"
    })
    expect(value[1]).toMatchObject({ amount: "1500", uiAmount: 1.5, uiAmountString: "1.5" })
    expect(value.at(-1)).toMatchObject({ amount: "3", uiAmount: 0.003, uiAmountString: "0.003" })
    expect(value.some((entry) => entry.amount === "1" || entry.amount === "2")).toBe(false)
  })

  test("getTokenSupply and getTokenAccountsByOwner", async () => {
    const supply = await rpc.getTokenSupply(mint.address).send()
    const total = holders.reduce((sum, holder) => sum + holder.amount, 0n)
    expect(supply.value.amount as string).toBe(total.toString())
    const first = holders[0]
    if (first === undefined) throw new Error("no holder")
    const byProgram = await rpc
      .getTokenAccountsByOwner(first.owner, { programId: TOKEN_2022_PROGRAM_ADDRESS }, { encoding: "base64" })
      .send()
    expect(byProgram.value.map((entry) => entry.pubkey)).toEqual([first.account])
    const wrongProgram = await rpc
      .getTokenAccountsByOwner(first.owner, { programId: TOKEN_PROGRAM_ADDRESS }, { encoding: "base64" })
      .send()
    expect(wrongProgram.value).toEqual([])
  })

  test("signature history: newest first, paged with before/until, the deployer pays the oldest", async () => {
    const all = world.signaturesFor(mint.address)
    expect(all.length).toBe(23)
    const pages: Array<Signature> = []
    let before: Signature | undefined
    for (;;) {
      const page = await rpc
        .getSignaturesForAddress(mint.address, { limit: 5, ...(before === undefined ? {} : { before }) })
        .send()
      if (page.length === 0) break
      expect(page.length).toBeLessThanOrEqual(5)
      for (const entry of page) expect(entry).toMatchObject({ err: null, memo: null, confirmationStatus: "finalized" })
      pages.push(...page.map((entry) => entry.signature))
      before = page.at(-1)?.signature
    }
    expect(pages).toEqual(all.map((tx) => tx.signature))
    expect(server.calls.get("getSignaturesForAddress")).toBe(6)

    const slots = (await rpc.getSignaturesForAddress(mint.address).send()).map((entry) => entry.slot)
    expect([...slots].sort((a, b) => (a > b ? -1 : 1))).toEqual(slots)
    expect(new Set(slots).size).toBe(slots.length)

    const until = all[3]?.signature
    if (until === undefined) throw new Error("short history")
    const recent = await rpc.getSignaturesForAddress(mint.address, { until }).send()
    expect(recent.map((entry) => entry.signature)).toEqual(all.slice(0, 3).map((tx) => tx.signature))

    const oldest = pages.at(-1)
    if (oldest === undefined) throw new Error("no history")
    expect(oldest).toBe(mint.signature)
    const tx = await rpc.getTransaction(oldest, { encoding: "json", maxSupportedTransactionVersion: 0 }).send()
    expect(tx?.transaction.message.accountKeys[0]).toBe(mint.deployer.address)
    expect(tx?.transaction.message.accountKeys).toContain(mint.address)
    expect(tx?.transaction.signatures[0]).toBe(oldest)
    expect(tx?.meta?.err).toBeNull()
    expect<unknown>(tx?.meta?.fee).toBe(10_000n)
    expect(tx?.meta?.preBalances.length).toBe(tx?.transaction.message.accountKeys.length)
    expect<unknown>(tx?.blockTime).toBe(BigInt(world.transaction(oldest)?.blockTime ?? 0))
    expect(tx?.slot).toBe(world.transaction(oldest)?.slot ?? 0n)
  })

  test("getTransaction answers as mainnet does: -32015 without maxSupportedTransactionVersion, null when unknown", async () => {
    const error = await rejectionOf(rpc.getTransaction(mint.signature, { encoding: "json" }).send())
    expect(isSolanaError(error)).toBe(true)
    expect(String(error)).toContain("maxSupportedTransactionVersion")
    const unknown = "1111111111111111111111111111111111111111111111111111111111111111" as Signature
    expect(await rpc.getTransaction(unknown, { encoding: "json", maxSupportedTransactionVersion: 0 }).send()).toBeNull()
  })

  test("minContextSlot above the world's slot is refused with -32016; at the slot it is answered", async () => {
    const ahead = await rejectionOf(
      rpc.getAccountInfo(mint.address, { encoding: "base64", minContextSlot: world.slot + 1n }).send()
    )
    expect(isSolanaError(ahead)).toBe(true)
    expect((ahead as { context: { __code: number } }).context.__code).toBe(-32016)
    const at = await rpc.getAccountInfo(mint.address, { encoding: "base64", minContextSlot: world.slot }).send()
    expect(at.context.slot).toBe(world.slot)
  })

  test("getMultipleAccounts keeps order and answers null for absent accounts; getProgramAccounts withContext", async () => {
    const nobody = (await generateKeyPairSigner()).address
    const { value } = await rpc
      .getMultipleAccounts([mint.address, nobody, holders[0]?.account ?? nobody], { encoding: "base64" })
      .send()
    expect(value.map((account) => account?.owner ?? null)).toEqual([
      TOKEN_2022_PROGRAM_ADDRESS,
      null,
      TOKEN_2022_PROGRAM_ADDRESS
    ])
    expect(Number(value[0]?.lamports ?? 0n)).toBeGreaterThan(0)
    const program = await rpc
      .getProgramAccounts(TOKEN_2022_PROGRAM_ADDRESS, {
        encoding: "base64",
        withContext: true,
        filters: [{ dataSize: 82n }]
      })
      .send()
    expect(program.context.slot).toBe(world.slot)
    expect(server.calls.get("getMultipleAccounts")).toBe(1)
    expect(server.calls.get("getProgramAccounts")).toBe(1)
  })

  test("JSON-RPC envelope: unknown methods -32601, batches answered in order, parse errors -32700", async () => {
    const unknown = await (await post(server, call("getEverything"))).json()
    expect(unknown).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } })
    const batch: unknown = await (await post(server, [call("getSlot", [], 7), call("getHealth", [], 8)])).json()
    expect(batch).toEqual([
      { jsonrpc: "2.0", id: 7, result: Number(world.slot) },
      { jsonrpc: "2.0", id: 8, result: "ok" }
    ])
    const broken = await fetch(server.url, { method: "POST", body: "{not json" })
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700)
    expect(server.requests()).toBe(3)
    expect(server.calls.get("getSlot")).toBe(1)
  })

  test("u64 values leave as exact JSON numbers", () => {
    expect(encodeJson({ rentEpoch: 18_446_744_073_709_551_615n, lamports: 5n, note: "5n" })).toBe(
      '{"rentEpoch":18446744073709551615,"lamports":5,"note":"5n"}'
    )
  })
})

describe("fault injection", () => {
  let world: World
  let server: RpcServer
  let rpc: Rpc<SolanaRpcApi>
  let mint: BuiltMint
  let holder: Holder

  beforeAll(async () => {
    world = makeWorld()
    server = startRpcServer(world)
    rpc = createSolanaRpc(server.url)
    mint = await world.mint({})
    const built = await world.holders(mint, [{ amount: 10n }, { amount: 20n }])
    if (built[1] === undefined) throw new Error("no holder")
    holder = built[1]
  })
  afterEach(() => server.reset())
  afterAll(() => server.stop())

  test("rateLimit: 429 with Retry-After for the next N matching calls, then answers", async () => {
    server.fault({ kind: "rateLimit", count: 2, retryAfterSeconds: 3, method: "getAccountInfo" })
    expect(await rpc.getSlot().send()).toBe(world.slot)
    for (let i = 0; i < 2; i++) {
      const error = await rejectionOf(rpc.getAccountInfo(mint.address, { encoding: "base64" }).send())
      expect(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)).toBe(true)
      if (!isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) throw error
      expect(error.context.statusCode).toBe(429)
      expect(error.context.headers.get("retry-after")).toBe("3")
    }
    expect((await rpc.getAccountInfo(mint.address, { encoding: "base64" }).send()).value?.owner).toBe(
      TOKEN_PROGRAM_ADDRESS
    )
    expect(server.calls.get("getAccountInfo")).toBe(3)
  })

  test("hang with a delay answers late; hang without one never answers and the client's abort ends it", async () => {
    server.fault({ kind: "hang", count: 1, delayMs: 150 })
    const started = performance.now()
    expect(await rpc.getSlot().send()).toBe(world.slot)
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)

    server.fault({ kind: "hang", count: 1 })
    const error = await rejectionOf(rpc.getSlot().send({ abortSignal: AbortSignal.timeout(100) }))
    expect(String(error)).toMatch(/abort|timeout|timed out/i)
    // Used up: the next call answers at once.
    expect(await rpc.getSlot().send()).toBe(world.slot)
  })

  test("malformed: a 200 whose body is not JSON", async () => {
    server.fault({ kind: "malformed", count: 1 })
    const error = await rejectionOf(rpc.getSlot().send())
    expect(error).toBeInstanceOf(Error)
    expect(await rpc.getSlot().send()).toBe(world.slot)
  })

  test("error: a JSON-RPC error object instead of the result", async () => {
    server.fault({
      kind: "error",
      count: 1,
      code: -32005,
      message: "Node is behind by 42 slots",
      method: "getTokenLargestAccounts"
    })
    const error = await rejectionOf(rpc.getTokenLargestAccounts(mint.address).send())
    expect((error as { context: { __code: number } }).context.__code).toBe(-32005)
    expect((await rpc.getTokenLargestAccounts(mint.address).send()).value.length).toBe(2)
  })

  test("wrongOwner: the account is reported under another program until reset", async () => {
    const impostor = (await generateKeyPairSigner()).address
    server.fault({ kind: "wrongOwner", address: mint.address, owner: impostor })
    expect((await rpc.getAccountInfo(mint.address, { encoding: "base64" }).send()).value?.owner).toBe(impostor)
    const [fromMany] = (await rpc.getMultipleAccounts([mint.address], { encoding: "base64" }).send()).value
    expect(fromMany?.owner).toBe(impostor)
    server.reset()
    expect((await rpc.getAccountInfo(mint.address, { encoding: "base64" }).send()).value?.owner).toBe(
      TOKEN_PROGRAM_ADDRESS
    )
  })

  test("missing: null where asked, absent from holder lists, and a mint that cannot be found", async () => {
    server.fault({ kind: "missing", address: holder.account })
    expect((await rpc.getAccountInfo(holder.account, { encoding: "base64" }).send()).value).toBeNull()
    const largest = await rpc.getTokenLargestAccounts(mint.address).send()
    expect(largest.value.map((entry) => entry.address)).not.toContain(holder.account)
    expect(largest.value.length).toBe(1)

    server.fault({ kind: "missing", address: mint.address })
    const error = await rejectionOf(rpc.getTokenSupply(mint.address).send())
    expect((error as { context: { __code: number } }).context.__code).toBe(-32602)
  })

  test("staleSlot: context.slot older than asked, even with minContextSlot at the world's slot", async () => {
    server.fault({ kind: "staleSlot", count: 1, behind: 40n, method: "getMultipleAccounts" })
    const stale = await rpc
      .getMultipleAccounts([mint.address], { encoding: "base64", minContextSlot: world.slot })
      .send()
    expect(stale.context.slot).toBe(world.slot - 40n)
    const fresh = await rpc
      .getMultipleAccounts([mint.address], { encoding: "base64", minContextSlot: world.slot })
      .send()
    expect(fresh.context.slot).toBe(world.slot)
  })

  test("faults without a method match any call, in the order they were set", async () => {
    server.fault({ kind: "malformed", count: 1 })
    server.fault({ kind: "rateLimit", count: 1, retryAfterSeconds: 1 })
    expect(await (await post(server, call("getHealth"))).text()).not.toContain('"result":"ok"')
    expect((await post(server, call("getHealth"))).status).toBe(429)
    expect((await post(server, call("getHealth"))).status).toBe(200)
    expect(server.calls.get("getHealth")).toBe(3)
  })
})
