import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test"
import {
  type Address,
  type KeyPairSigner,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getU64Decoder,
  none,
  some
} from "@solana/kit"
import { AccountState, findAssociatedTokenPda, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token"
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import { Schema } from "effect"
import { SellCheck } from "../../../src/domain/EvidenceV2.ts"
import { authorityOf, VENUES } from "../../../src/workers/Scanner/Programs.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import {
  errorText,
  probeAmount,
  simulateSwap,
  simulateTransfer,
  type TransferProbe
} from "../../../src/workers/Scanner/SellPath.ts"
import {
  expectedSwapOutput,
  type PumpSwapPool,
  type RaydiumCpmmPool,
  type SwapProbe
} from "../../../src/workers/Scanner/SwapInstructions.ts"
import { type RecordedSimulation, simulatedAccountJson } from "../../support/solana/RpcMethods.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { type BuiltMint, type Holder, makeWorld, type World } from "../../support/solana/World.ts"

// The sell-path checks of src/workers/Scanner/SellPath.ts and SwapInstructions.ts, production code unchanged, over JSON-RPC on
// 127.0.0.1. Transfers are simulated FOR REAL: the test server runs simulateTransaction on the
// LiteSVM (SPL Token, Token-2022 and the associated token program are real binaries). Swaps run
// against RECORDED ANSWERS: no DEX program binary is on npm, so the server answers a transaction that
// invokes PumpSwap or Raydium CPMM with an answer written in mainnet's shape (the program's log format,
// base64 post-state of the requested account). Those answers were composed for these tests in that
// format, not captured from mainnet (no network here); the tests check the instruction the scanner
// sends byte by byte against the IDL, and how it reads the answer.

let world: World
let server: RpcServer
let feePayer: KeyPairSigner
let freezer: KeyPairSigner

const client = () =>
  makeRpcClient({
    urls: [server.url],
    timeoutMs: 2_000,
    retries: 0,
    requestsPerSecond: 10_000,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    maxRetryAfterMs: 5_000,
    batch: false
  }).forScan(8).rpc

const decodeCheck = Schema.decodeUnknownSync(SellCheck)

const probeOf = (mint: BuiltMint, holder: Holder, overrides: Partial<TransferProbe> = {}): TransferProbe => ({
  mint: mint.address,
  tokenProgram: mint.program,
  decimals: mint.decimals,
  sourceAccount: holder.account,
  sourceOwner: holder.owner,
  amount: probeAmount(holder.amount),
  feePayer: feePayer.address,
  ...overrides
})

/** Runs one transfer check and proves it was one HTTP request carrying one simulateTransaction (and a hook's lookup). */
const transfer = async (probe: TransferProbe) => {
  server.reset()
  const check = await simulateTransfer(client(), probe, world.slot)
  // A hooked mint's extra accounts are resolved first: one getAccountInfo of its validation account.
  const lookups = probe.transferHook !== undefined && probe.transferHook.extraAccounts === undefined ? 1 : 0
  expect(server.requests()).toBe(1 + lookups)
  expect(server.calls.get("simulateTransaction")).toBe(1)
  expect(server.calls.get("getAccountInfo") ?? 0).toBe(lookups)
  expect(server.calls.size).toBe(1 + lookups)
  // The value the evidence stores must pass the evidence schema.
  expect(decodeCheck(check)).toEqual(check as never)
  return check
}

const tokenAmountAt = (at: Address): bigint => {
  const account = world.svm.getAccount(at)
  if (!account.exists) throw new Error(`no account ${at}`)
  return getU64Decoder().decode(account.data, 64)
}

/** Every token account of both programs, and the fee payer's lamports: what a simulation must not change. */
const snapshot = () => ({
  token: world.svm
    .getProgramAccounts(TOKEN_PROGRAM_ADDRESS)
    .map((account) => [account.address, account.lamports, [...account.data].join(",")]),
  token2022: world.svm
    .getProgramAccounts(TOKEN_2022_PROGRAM_ADDRESS)
    .map((account) => [account.address, account.lamports, [...account.data].join(",")]),
  payer: world.svm.getBalance(feePayer.address)
})

beforeAll(async () => {
  world = makeWorld()
  server = startRpcServer(world)
  feePayer = await world.signer()
  freezer = await world.signer()
})
afterAll(() => server.stop())
beforeEach(() => server.forgetSimulations())

describe("sell path: a transfer simulated for real in LiteSVM", () => {
  test("an ordinary SPL token transfers in full: fee 0, tax 0", async () => {
    const mint = await world.mint({ program: "token", decimals: 6 })
    const [holder] = await world.holders(mint, [{ amount: 5_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const before = snapshot()
    const check = await transfer(probeOf(mint, holder))
    expect(check).toEqual({
      ok: true,
      error: null,
      sourceAccount: holder.account as never,
      sourceOwner: holder.owner as never,
      amount: "5000",
      received: "5000",
      feeCharged: "0",
      effectiveTaxPct: 0,
      unitsConsumed: check.unitsConsumed,
      venue: null,
      answer: "simulated"
    })
    expect(check.unitsConsumed).toBeGreaterThan(0)
    // The request is what the issue asks for: base64, no signature check, the node's blockhash, pinned slot.
    const sent = server.log[0]
    expect(sent?.params[1]).toMatchObject({
      encoding: "base64",
      sigVerify: false,
      replaceRecentBlockhash: true,
      commitment: "confirmed",
      minContextSlot: Number(world.slot)
    })
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(sent?.params[0] as string))
    expect(
      Object.values(transaction.signatures).every(
        (signature) => signature === null || signature.every((byte) => byte === 0)
      )
    ).toBe(true)
    expect(Object.keys(transaction.signatures)).toEqual([feePayer.address, holder.owner])
    expect(snapshot()).toEqual(before)
  })

  test("the holder's own wallet as fee payer: one signer, the same result", async () => {
    const mint = await world.mint({ program: "token", decimals: 9 })
    const owner = await world.signer(1n)
    const [holder] = await world.holders(mint, [{ owner, amount: 123_456_789n }])
    if (holder === undefined) throw new Error("no holder")
    const check = await transfer(probeOf(mint, holder, { feePayer: owner.address }))
    expect(check).toMatchObject({ ok: true, amount: "123456", received: "123456", feeCharged: "0" })
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(server.log[0]?.params[0] as string))
    expect(Object.keys(transaction.signatures)).toEqual([owner.address])
  })

  test("Token-2022 TransferFee of 300 bps charges exactly the computed fee, and the maximum fee caps it", async () => {
    const mint = await world.mint({
      program: "token-2022",
      decimals: 6,
      extensions: {
        transferFee: {
          configAuthority: freezer.address,
          withdrawAuthority: freezer.address,
          basisPoints: 300,
          maximumFee: 5_000n
        }
      }
    })
    const [small, large] = await world.holders(mint, [{ amount: 12_345_678n }, { amount: 1_000_000_000_000n }])
    if (small === undefined || large === undefined) throw new Error("no holders")
    const before = snapshot()

    // 12,345 sent: fee = ceil(12,345 * 300 / 10,000) = 371 (the program rounds up), under the 5,000 cap.
    const proportional = await transfer(probeOf(mint, small))
    expect(proportional).toMatchObject({ ok: true, amount: "12345", received: "11974", feeCharged: "371" })
    expect(proportional.effectiveTaxPct).toBeCloseTo((371 / 12_345) * 100, 3)

    // 1,000,000,000 sent: 3 % would be 30,000,000, but the mint caps the fee at 5,000.
    const capped = await transfer(probeOf(mint, large))
    expect(capped).toMatchObject({ ok: true, amount: "1000000000", received: "999995000", feeCharged: "5000" })
    expect(capped.effectiveTaxPct).toBeCloseTo(0.0005, 6)
    expect(snapshot()).toEqual(before)
  })

  test("a source account frozen by the freeze authority fails with custom error 17 (AccountFrozen)", async () => {
    const mint = await world.mint({ program: "token", freezeAuthority: freezer })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    await world.freeze(mint, holder.account)
    const check = await transfer(probeOf(mint, holder))
    expect(check.ok).toBe(false)
    expect(check.received).toBeNull()
    expect(check.feeCharged).toBeNull()
    expect(check.effectiveTaxPct).toBeNull()
    // Instruction 1 (TransferChecked), after the account creation at 0.
    expect(check.error).toStartWith('{"InstructionError":[1,{"Custom":17}]}')
    expect(check.error).toContain("Account is frozen")
  })

  test("a NonTransferable Token-2022 mint fails", async () => {
    const mint = await world.mint({ program: "token-2022", extensions: { nonTransferable: true } })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const check = await transfer(probeOf(mint, holder))
    expect(check.ok).toBe(false)
    // TokenError::NonTransferable.
    expect(check.error).toBe('{"InstructionError":[1,{"Custom":37}]}: Program log: Transfer is disabled for this mint')
  })

  test("DefaultAccountState(Frozen) fails: the fresh destination account is created frozen", async () => {
    const mint = await world.mint({
      program: "token-2022",
      freezeAuthority: freezer,
      extensions: { defaultAccountState: "frozen" }
    })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const check = await transfer(probeOf(mint, holder))
    expect(check.ok).toBe(false)
    expect(check.error).toStartWith('{"InstructionError":[1,{"Custom":17}]}')
    expect(check.error).toContain("Account is frozen")
  })

  test("a paused Pausable mint fails", async () => {
    const mint = await world.mint({ program: "token-2022", extensions: { pausable: { authority: freezer.address } } })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const unpaused = await transfer(probeOf(mint, holder))
    expect(unpaused.ok).toBe(true)
    await world.pause(mint, freezer)
    const paused = await transfer(probeOf(mint, holder))
    expect(paused.ok).toBe(false)
    // TokenError::MintPaused.
    expect(paused.error).toBe(
      '{"InstructionError":[1,{"Custom":67}]}: Program log: Transferring, minting, and burning is paused on this mint'
    )
  })

  test("a TransferHook whose program does not exist fails, with or without the hook's accounts", async () => {
    const hookProgram = (await generateKeyPairSigner()).address
    const mint = await world.mint({
      program: "token-2022",
      extensions: { transferHook: { programId: hookProgram, authority: freezer.address } }
    })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const withHook = await transfer(probeOf(mint, holder, { transferHook: { program: hookProgram } }))
    expect(withHook.ok).toBe(false)
    // Token-2022 reads the hook's validation account, which a missing program never created.
    expect(withHook.error).toStartWith('{"InstructionError":[1,"InvalidAccountData"]}')
    const withoutHook = await transfer(probeOf(mint, holder))
    expect(withoutHook.ok).toBe(false)
    // Without the hook's accounts the CPI cannot even be formed.
    expect(withoutHook.error).toStartWith('{"InstructionError":[1,"MissingAccount"]}')
  })

  test("a fee payer that does not exist: the runtime's error in mainnet's shape, before any program runs", async () => {
    const mint = await world.mint({ program: "token" })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    const check = await transfer(probeOf(mint, holder, { feePayer: (await generateKeyPairSigner()).address }))
    expect(check.ok).toBe(false)
    expect(check.error).toBe('"AccountNotFound"')
  })

  test("nothing in the world changes: every balance identical after a run of simulations", async () => {
    const mint = await world.mint({
      program: "token-2022",
      extensions: {
        transferFee: {
          configAuthority: freezer.address,
          withdrawAuthority: freezer.address,
          basisPoints: 100,
          maximumFee: 1_000_000n
        }
      }
    })
    const holders = await world.holders(mint, [{ amount: 7_000_000n }, { amount: 9_000_000n }])
    const before = snapshot()
    const version = world.version
    const transactions = world.transactions.length
    for (const holder of holders) {
      const check = await transfer(probeOf(mint, holder))
      expect(check.ok).toBe(true)
      expect(tokenAmountAt(holder.account)).toBe(holder.amount)
    }
    expect(snapshot()).toEqual(before)
    expect(world.version).toBe(version)
    expect(world.transactions.length).toBe(transactions)
  })

  test("the test server's simulateTransaction answer has mainnet's fields, inner instructions when asked", async () => {
    const mint = await world.mint({ program: "token" })
    const [holder] = await world.holders(mint, [{ amount: 1_000_000n }])
    if (holder === undefined) throw new Error("no holder")
    await transfer(probeOf(mint, holder))
    const wire = server.log[0]?.params[0] as string
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "simulateTransaction",
        params: [
          wire,
          {
            encoding: "base64",
            sigVerify: false,
            replaceRecentBlockhash: true,
            innerInstructions: true,
            accounts: { encoding: "base64", addresses: [holder.account, "11111111111111111111111111111111"] }
          }
        ]
      })
    })
    const body = (await response.json()) as { result: { context: { slot: number }; value: Record<string, unknown> } }
    expect(body.result.context.slot).toBe(Number(world.slot))
    const value = body.result.value
    expect(Object.keys(value).sort()).toEqual([
      "accounts",
      "err",
      "fee",
      "innerInstructions",
      "loadedAddresses",
      "logs",
      "postBalances",
      "postTokenBalances",
      "preBalances",
      "preTokenBalances",
      "replacementBlockhash",
      "returnData",
      "unitsConsumed"
    ])
    expect(value.err).toBeNull()
    expect(value.replacementBlockhash).toEqual({
      blockhash: world.svm.latestBlockhash(),
      lastValidBlockHeight: Number(world.slot + 150n)
    })
    // The source account after the transfer, read from the simulation's post-state.
    const accounts = value.accounts as Array<{ data: [string, string]; owner: string } | null>
    expect(accounts[0]?.owner).toBe(TOKEN_PROGRAM_ADDRESS)
    expect(getU64Decoder().decode(getBase64Encoder().encode(accounts[0]?.data[0] ?? ""), 64)).toBe(1_000_000n - 1_000n)
    // The associated token program's CPIs (system program, token program) under instruction 0.
    const inner = value.innerInstructions as Array<{ index: number; instructions: Array<{ stackHeight: number }> }>
    expect(inner[0]?.index).toBe(0)
    expect(inner[0]?.instructions.length).toBeGreaterThan(0)
    expect(inner[0]?.instructions.every((instruction) => instruction.stackHeight === 2)).toBe(true)
  })

  test("the test server refuses sigVerify with replaceRecentBlockhash, as a node does", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "simulateTransaction",
        params: ["AA==", { encoding: "base64", sigVerify: true, replaceRecentBlockhash: true }]
      })
    })
    expect(await response.json()).toMatchObject({
      error: { code: -32602, message: "sigVerify may not be used with replaceRecentBlockhash" }
    })
  })

  test("errorText names the runtime error and the failing program's last log line", () => {
    expect(
      errorText({ InstructionError: [1, { Custom: 17 }] }, [
        "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]",
        "Program log: Instruction: TransferChecked",
        "Program log: Error: Account is frozen",
        "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA consumed 1234 of 200000 compute units",
        "Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: custom program error: 0x11"
      ])
    ).toBe('{"InstructionError":[1,{"Custom":17}]}: Program log: Error: Account is frozen')
    expect(errorText("AccountNotFound", null)).toBe('"AccountNotFound"')
  })
})

// ---------------------------------------------------------------------------------------------------
// Swaps against recorded answers (no PumpSwap or Raydium CPMM binary on npm).

const WSOL = address("So11111111111111111111111111111111111111112")
const PUMPSWAP = VENUES.find((venue) => venue.label === "pumpswap")!.program
const CPMM = VENUES.find((venue) => venue.label === "raydium-cpmm")!.program
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

const randomAddress = (): Address => getAddressDecoder().decode(crypto.getRandomValues(new Uint8Array(32)))

/** A WSOL token account's bytes as the token program stores them. */
const wsolAccount = (owner: Address, amount: bigint): Uint8Array =>
  getTokenEncoder().encode({
    mint: WSOL,
    owner,
    amount,
    delegate: none(),
    state: AccountState.Initialized,
    isNative: some(2_039_280n),
    delegatedAmount: 0n,
    closeAuthority: none()
  }) as Uint8Array

const tokenLogs = (depth: number, units: number) => [
  `Program ${TOKEN} invoke [${depth}]`,
  "Program log: Instruction: TransferChecked",
  `Program ${TOKEN} consumed ${units} of ${150_000 - units} compute units`,
  `Program ${TOKEN} success`
]
const ataLogs = [
  "Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL invoke [1]",
  "Program log: CreateIdempotent",
  "Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL consumed 4338 of 200000 compute units",
  "Program ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL success"
]

/** What a successful PumpSwap sell logs (Anchor: instruction name, token CPIs, the fee program's return, the event by self-CPI). */
const pumpSwapSellLogs = [
  ...ataLogs,
  `Program ${PUMPSWAP} invoke [1]`,
  "Program log: Instruction: Sell",
  "Program pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ invoke [2]",
  "Program log: Instruction: GetFees",
  "Program pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ consumed 4590 of 176000 compute units",
  "Program return: pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ FAAAAAAAAAAFAAAAAAAAAAUAAAAAAAAA",
  "Program pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ success",
  ...tokenLogs(2, 6238),
  ...tokenLogs(2, 6147),
  ...tokenLogs(2, 6147),
  ...tokenLogs(2, 6147),
  `Program data: Pi83CqUD3CqXWDhoAAAAAEBCDwAAAAAAAAAAAAAAAAA=`,
  `Program ${PUMPSWAP} invoke [2]`,
  `Program ${PUMPSWAP} consumed 2004 of 120000 compute units`,
  `Program ${PUMPSWAP} success`,
  `Program ${PUMPSWAP} consumed 61234 of 195662 compute units`,
  `Program ${PUMPSWAP} success`
]

const decodeSent = (index = 1) => {
  const sent = server.log.at(-1)
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(sent?.params[0] as string))
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
  if (message.version === 1) throw new Error("unexpected v1 message")
  const swap = message.instructions[index]
  if (swap === undefined) throw new Error("no swap instruction")
  return {
    program: message.staticAccounts[swap.programAddressIndex],
    accounts: (swap.accountIndices ?? []).map((index) => message.staticAccounts[index]),
    data: [...(swap.data ?? [])]
  }
}

const u64le = (value: bigint) => [...new Uint8Array(new BigUint64Array([value]).buffer)]

describe("sell path: swaps against recorded answers (DEX binaries are not on npm)", () => {
  let holder: Address
  let holderBase: Address
  let holderQuote: Address
  let mint: Address
  beforeAll(async () => {
    holder = (await generateKeyPairSigner()).address
    mint = randomAddress()
    holderBase = randomAddress()
    ;[holderQuote] = await findAssociatedTokenPda({ owner: holder, mint: WSOL, tokenProgram: TOKEN_PROGRAM_ADDRESS })
  })

  const probe = (): SwapProbe => ({
    holder,
    holderBaseAccount: holderBase,
    holderQuoteBalance: 0n,
    amount: 1_000_000n,
    feePayer: feePayer.address
  })
  const pumpPool = (): PumpSwapPool => ({
    venue: "pumpswap",
    pool: randomAddress(),
    base: { mint, vault: randomAddress(), tokenProgram: TOKEN_PROGRAM_ADDRESS, reserve: 1_000_000_000_000n },
    quote: { mint: WSOL, vault: randomAddress(), tokenProgram: TOKEN_PROGRAM_ADDRESS, reserve: 50_000_000_000n },
    virtualQuoteReserves: 0n,
    coinCreator: randomAddress(),
    isCashbackCoin: false,
    protocolFeeRecipient: randomAddress(),
    buybackFeeRecipient: randomAddress(),
    fees: { lpBps: 20n, protocolBps: 5n, creatorBps: 5n }
  })
  const recorded = (
    received: bigint | null,
    err: unknown = null,
    logs: ReadonlyArray<string> = pumpSwapSellLogs
  ): RecordedSimulation => ({
    addresses: [holderQuote],
    value: {
      err,
      logs,
      accounts: [
        received === null
          ? null
          : simulatedAccountJson(address(TOKEN), 2_039_280n + received, wsolAccount(holder, received))
      ],
      unitsConsumed: 65_572n,
      returnData: null,
      innerInstructions: null,
      replacementBlockhash: {
        blockhash: "9zrUHnA1nCByPksy3aL8tQ47vqdaG2vnFs4HrxgcZj4F",
        lastValidBlockHeight: 331_283_116n
      },
      fee: 10_000n,
      loadedAddresses: { readonly: [], writable: [] },
      preBalances: null,
      postBalances: null,
      preTokenBalances: null,
      postTokenBalances: null
    }
  })

  test("expected output: PumpSwap's constant product less its fee tier, taken from the output", () => {
    // out = floor(50e9 * 1e6 / (1e12 + 1e6)) = 49,999; fees ceil(49,999 * 20 / 1e4) = 100, 25 and 25.
    expect(expectedSwapOutput(pumpPool(), 1_000_000n)).toBe(49_849n)
    expect(
      expectedSwapOutput({ ...pumpPool(), coinCreator: address("11111111111111111111111111111111") }, 1_000_000n)
    ).toBe(49_874n)
  })

  test("PumpSwap sell (recorded answer): the instruction matches the IDL, the gain is read from the post-state, tax 0", async () => {
    const pool = pumpPool()
    server.recordSimulation(PUMPSWAP, recorded(49_849n))
    server.reset()
    const check = await simulateSwap(client(), pool, probe(), world.slot)
    expect(server.requests()).toBe(1)
    expect(server.calls.get("simulateTransaction")).toBe(1)
    expect(decodeCheck(check)).toEqual(check as never)
    // feeCharged: for a swap, the expected output less what arrived (the tax in quote base units).
    expect(check).toMatchObject({
      ok: true,
      error: null,
      amount: "1000000",
      received: "49849",
      feeCharged: "0",
      effectiveTaxPct: 0,
      unitsConsumed: 65_572,
      venue: "pumpswap"
    })

    const sent = decodeSent()
    expect(sent.program).toBe(PUMPSWAP)
    // @pump-fun/pump-swap-sdk 1.20.0 src/idl/pump_amm.json: sell's discriminator, base_amount_in, min_quote_amount_out.
    expect(sent.data).toEqual([51, 230, 133, 164, 1, 127, 131, 173, ...u64le(1_000_000n), ...u64le(0n)])
    // 21 IDL accounts, then pool-v2 (a coin creator is set), the buyback recipient and its quote ATA.
    expect(sent.accounts.length).toBe(24)
    expect(sent.accounts.slice(0, 2)).toEqual([pool.pool, holder])
    expect(sent.accounts.slice(3, 9)).toEqual([mint, WSOL, holderBase, holderQuote, pool.base.vault, pool.quote.vault])
    expect(sent.accounts[9]).toBe(pool.protocolFeeRecipient)
    expect(sent.accounts.slice(11, 15)).toEqual([
      TOKEN_PROGRAM_ADDRESS,
      TOKEN_PROGRAM_ADDRESS,
      address("11111111111111111111111111111111"),
      address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")
    ])
    expect(sent.accounts[16]).toBe(PUMPSWAP)
    expect(sent.accounts[20]).toBe(address("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ"))
    expect(sent.accounts[22]).toBe(pool.buybackFeeRecipient)
  })

  test("PumpSwap sell (recorded answer) of a taxed token: 10 % less than the curve gives is reported as 10 % tax", async () => {
    server.recordSimulation(PUMPSWAP, recorded(44_865n))
    const check = await simulateSwap(client(), pumpPool(), probe(), world.slot)
    expect(check.ok).toBe(true)
    expect(check.received).toBe("44865")
    expect(check.feeCharged).toBe("4984")
    expect(check.effectiveTaxPct).toBeCloseTo(((49_849 - 44_865) / 49_849) * 100, 3)
  })

  test("PumpSwap sell (recorded answer) from a holder with a quote balance: only the gain counts; a short pool is extended first", async () => {
    const pool = {
      ...pumpPool(),
      needsExtension: true,
      coinCreator: address("11111111111111111111111111111111"),
      isCashbackCoin: true
    }
    server.recordSimulation(PUMPSWAP, recorded(2_000_000n + 49_874n))
    server.reset()
    const check = await simulateSwap(client(), pool, { ...probe(), holderQuoteBalance: 2_000_000n }, world.slot)
    expect(server.requests()).toBe(1)
    expect(check).toMatchObject({ ok: true, received: "49874", feeCharged: "0", effectiveTaxPct: 0 })
    // [create the quote ATA, extend_account (payer: the fee payer, as the rent's payer), sell].
    const extend = decodeSent(1)
    expect(extend.program).toBe(PUMPSWAP)
    expect(extend.data).toEqual([234, 102, 194, 203, 150, 72, 62, 229])
    expect(extend.accounts.slice(0, 3)).toEqual([
      pool.pool,
      feePayer.address,
      address("11111111111111111111111111111111")
    ])
    expect(extend.accounts[4]).toBe(PUMPSWAP)
    const sell = decodeSent(2)
    expect(sell.data.slice(0, 8)).toEqual([51, 230, 133, 164, 1, 127, 131, 173])
    // 21 IDL accounts, then the cashback accumulator's quote ATA and the accumulator (no pool-v2: no coin
    // creator), then the buyback recipient and its quote ATA.
    expect(sell.accounts.length).toBe(25)
    expect(sell.accounts[23]).toBe(pool.buybackFeeRecipient)
  })

  test("PumpSwap sell (recorded answer) that fails: the Anchor error is reported, nothing received", async () => {
    const logs = [
      ...ataLogs,
      `Program ${PUMPSWAP} invoke [1]`,
      "Program log: Instruction: Sell",
      "Program log: AnchorError thrown in programs/pump-amm/src/instructions/sell.rs:210. Error Code: ExceededSlippage. Error Number: 6004. Error Message: Slippage tolerance exceeded.",
      `Program ${PUMPSWAP} consumed 30112 of 195662 compute units`,
      `Program ${PUMPSWAP} failed: custom program error: 0x1774`
    ]
    server.recordSimulation(PUMPSWAP, recorded(null, { InstructionError: [1, { Custom: 6004 }] }, logs))
    const check = await simulateSwap(client(), pumpPool(), probe(), world.slot)
    expect(check).toMatchObject({ ok: false, received: null, effectiveTaxPct: null, venue: "pumpswap" })
    expect(check.error).toBe(`{"InstructionError":[1,{"Custom":6004}]}: ${logs[6]}`)
  })

  test("Raydium CPMM swap_base_input (recorded answer): instruction as the SDK builds it, tax against the fee-adjusted curve", async () => {
    const pool: RaydiumCpmmPool = {
      venue: "raydium-cpmm",
      pool: randomAddress(),
      ammConfig: randomAddress(),
      observationState: randomAddress(),
      base: { mint, vault: randomAddress(), tokenProgram: TOKEN_PROGRAM_ADDRESS, reserve: 2_000_000_000_000n },
      quote: { mint: WSOL, vault: randomAddress(), tokenProgram: TOKEN_PROGRAM_ADDRESS, reserve: 80_000_000_000n },
      tradeFeeRate: 2_500n,
      creatorFeeRate: 0n,
      creatorFeeOnInput: false
    }
    // in = 1e6 - ceil(1e6 * 2,500 / 1e6) = 997,500; out = floor(80e9 * 997,500 / (2e12 + 997,500)) = 39,899.
    expect(expectedSwapOutput(pool, 1_000_000n)).toBe(39_899n)
    // A Token-2022 transfer fee of 10,000 withheld on the way in: a = 990,000, in = 990,000 - 2,475 = 987,525,
    // out = floor(80e9 * 987,525 / (2e12 + 987,525)) = 39,500.
    expect(expectedSwapOutput(pool, 1_000_000n, 10_000n)).toBe(39_500n)
    // A creator fee of 0.05 % on the input: in = 1e6 - 2,500 - 500 = 997,000, out = 39,879; on the output:
    // out = 39,899 - ceil(39,899 * 500 / 1e6) = 39,879.
    expect(expectedSwapOutput({ ...pool, creatorFeeRate: 500n, creatorFeeOnInput: true }, 1_000_000n)).toBe(39_879n)
    expect(expectedSwapOutput({ ...pool, creatorFeeRate: 500n, creatorFeeOnInput: false }, 1_000_000n)).toBe(39_879n)
    const logs = [
      ...ataLogs,
      `Program ${CPMM} invoke [1]`,
      "Program log: Instruction: SwapBaseInput",
      ...tokenLogs(2, 6238),
      ...tokenLogs(2, 6147),
      `Program ${CPMM} consumed 41020 of 195662 compute units`,
      `Program ${CPMM} success`
    ]
    server.recordSimulation(CPMM, recorded(39_899n, null, logs))
    server.reset()
    const check = await simulateSwap(client(), pool, probe(), world.slot)
    expect(server.requests()).toBe(1)
    expect(check).toMatchObject({ ok: true, received: "39899", effectiveTaxPct: 0, venue: "raydium-cpmm" })
    const sent = decodeSent()
    expect(sent.program).toBe(CPMM)
    // @raydium-io/raydium-sdk-v2 src/raydium/cpmm/instruction.ts: anchorDataBuf.swapBaseInput, amountIn, amounOutMin.
    expect(sent.data).toEqual([143, 190, 90, 218, 196, 30, 51, 222, ...u64le(1_000_000n), ...u64le(0n)])
    const authority = await authorityOf(VENUES.find((venue) => venue.label === "raydium-cpmm")!)
    expect(sent.accounts).toEqual([
      holder,
      authority,
      pool.ammConfig,
      pool.pool,
      holderBase,
      holderQuote,
      pool.base.vault,
      pool.quote.vault,
      TOKEN_PROGRAM_ADDRESS,
      TOKEN_PROGRAM_ADDRESS,
      mint,
      WSOL,
      pool.observationState
    ])
  })

  test("a recorded answer is only given for the accounts it was recorded for", async () => {
    server.recordSimulation(PUMPSWAP, { ...recorded(1n), addresses: [randomAddress()] })
    await expect(simulateSwap(client(), pumpPool(), probe(), world.slot)).rejects.toThrow()
  })
})
