import {
  type AccountMeta,
  AccountRole,
  type Address,
  type Blockhash,
  type Instruction,
  type Slot,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getAddressDecoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash
} from "@solana/kit"
import {
  getCreateAssociatedTokenIdempotentInstruction as splCreateAtaIdempotent,
  getTransferCheckedInstruction as splTransferChecked,
  TOKEN_PROGRAM_ADDRESS
} from "@solana-program/token"
import {
  getCreateAssociatedTokenIdempotentInstruction as token2022CreateAtaIdempotent,
  getTransferCheckedInstruction as token2022TransferChecked,
  resolveExtraAccountMetasForExecute
} from "@solana-program/token-2022"
import type { Address as EvidenceAddress } from "../../domain/Address.ts"
import type { SellCheck } from "../../domain/EvidenceV2.ts"
import { associatedTokenAddressSync, findProgramAddressSync, keyBytes } from "./Pools/Bytes.ts"
import type { ScanRpc } from "./Rpc.ts"
import {
  expectedSwapOutput,
  holderQuoteAccount,
  pumpSwapExtend,
  pumpSwapSell,
  raydiumCpmmSwap,
  type SwapPool,
  type SwapProbe
} from "./SwapInstructions.ts"

// The sell path without keys (issue 14, item 4). Each check is ONE simulateTransaction call with
// sigVerify false and replaceRecentBlockhash: the signatures stay zero-filled, the node puts in its
// latest blockhash, runs the transaction against the state at `minContextSlot` or later, commits nothing
// and answers with the post-state of the accounts asked for.
//
// - simulateTransfer: a small transfer from a real holder's token account to the associated account of
//   a fresh owner, created in the same transaction. It fails on a frozen source, a mint that creates
//   accounts frozen (DefaultAccountState), NonTransferable, a paused Pausable mint, a transfer hook that
//   fails or is missing; the destination's post balance gives the transfer fee actually withheld.
// - simulateSwap: a small sell of the mint for the pool's quote token from the same holder, for the
//   venues whose swap instruction is decoded here (PumpSwap `sell`, Raydium CPMM `swap_base_input`).
//   The holder's quote account gain is compared with the constant-product output of the reserves the
//   caller read, fees of the pool's fee tier included, to give the effective tax.

/** The all-zero blockhash; replaceRecentBlockhash swaps it for the node's latest. */
const PLACEHOLDER_BLOCKHASH = "11111111111111111111111111111111" as Blockhash
const COMMITMENT = "confirmed" as const

/** A token account's `amount`: u64 little-endian at offset 64 (SPL Token and Token-2022 alike). */
const tokenAmountOf = (data: Uint8Array): bigint | null =>
  data.length < 72 ? null : new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true)

const ours = (value: Address): EvidenceAddress => value as string as EvidenceAddress

/**
 * How much a sell check moves: a thousandth of the holding, at least one base unit. Small enough not to
 * matter to the holder's real position or the pool's price, large enough that a percentage fee rounds
 * to a visible amount on any holding of 1,000 base units or more.
 */
export const probeAmount = (balance: bigint): bigint => (balance / 1_000n > 0n ? balance / 1_000n : 1n)

export interface TransferProbe {
  readonly mint: Address
  /** The mint's owner program: SPL Token or Token-2022. */
  readonly tokenProgram: Address
  readonly decimals: number
  /** A real holder's token account that is not a pool vault, locker or burn address. */
  readonly sourceAccount: Address
  /** That account's owner, the transfer's authority (its signature is not verified). */
  readonly sourceOwner: Address
  /** Base units to move: see probeAmount. */
  readonly amount: bigint
  /** A system-owned account with lamports: pays the fee and the fresh account's rent. */
  readonly feePayer: Address
  /**
   * A Token-2022 TransferHook mint: its hook program and the extra accounts its validation account
   * lists (already resolved). The transfer then carries the extra accounts, the program and its
   * validation account (PDA ["extra-account-metas", mint]), as spl-token-2022's offchain helper appends
   * them. Without it, a hooked mint's transfer fails for want of the hook's accounts.
   */
  readonly transferHook?: { readonly program: Address; readonly extraAccounts?: ReadonlyArray<AccountMeta> }
}

/** The simulateTransaction answer, as far as these checks read it. */
interface SimulationAnswer {
  readonly err: unknown
  readonly logs: ReadonlyArray<string> | null
  readonly accounts: ReadonlyArray<{ readonly data: readonly [string, string] } | null> | null
  readonly unitsConsumed?: bigint | undefined
}

/** JSON with bigints as bare numbers (kit reads the answer's numbers as bigint), as the node sent them. */
const bigintJson = (value: unknown): string =>
  (
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `__u64__${v.toString()}` : v)) ?? "null"
  ).replace(/"__u64__(-?\d+)"/g, "$1")

/**
 * The runtime's error and the failing program's last log line: the last `Program log:` line before the
 * last `Program <id> failed: ...` line, else that line itself (runtime errors log nothing else).
 */
export const errorText = (err: unknown, logs: ReadonlyArray<string> | null): string => {
  const lines = logs ?? []
  const failedAt = lines.findLastIndex((line) => / failed: /.test(line))
  const before = failedAt === -1 ? lines : lines.slice(0, failedAt)
  const lastLog = before.findLast((line) => line.startsWith("Program log: "))
  const detail = lastLog ?? (failedAt === -1 ? undefined : lines[failedAt])
  return `${bigintJson(err)}${detail === undefined ? "" : `: ${detail}`}`.slice(0, 500)
}

const compileWire = (feePayer: Address, instructions: ReadonlyArray<Instruction>): string => {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: PLACEHOLDER_BLOCKHASH, lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m)
  )
  // Signatures stay null, which the wire format writes as 64 zero bytes.
  return getBase64EncodedWireTransaction(compileTransaction(message))
}

const simulate = async (
  rpc: ScanRpc,
  wire: string,
  watch: ReadonlyArray<Address>,
  minContextSlot: Slot
): Promise<SimulationAnswer> => {
  const answer = await rpc
    .simulateTransaction(wire as never, {
      encoding: "base64",
      sigVerify: false,
      replaceRecentBlockhash: true,
      commitment: COMMITMENT,
      minContextSlot,
      accounts: { encoding: "base64", addresses: watch }
    })
    .send()
  return answer.value as unknown as SimulationAnswer
}

/** The token amount of the i-th watched account after the simulation, null when absent or not a token account. */
const postTokenAmount = (answer: SimulationAnswer, index: number): bigint | null => {
  const account = answer.accounts?.[index]
  if (account === null || account === undefined) return null
  return tokenAmountOf(getBase64Encoder().encode(account.data[0]) as Uint8Array)
}

const unitsOf = (answer: SimulationAnswer): number | null =>
  answer.unitsConsumed === undefined ? null : Number(answer.unitsConsumed)

/** A fresh owner nobody controls: 32 random bytes (the associated token program accepts any address). */
const freshOwner = (): Address => getAddressDecoder().decode(crypto.getRandomValues(new Uint8Array(32)))

const percent = (part: bigint, whole: bigint): number =>
  whole <= 0n ? 0 : Math.min(100, Math.max(0, Number((part * 1_000_000n) / whole) / 10_000))

/** The fresh owner's ATA created (idempotently, the fee payer paying) and the holder's TransferChecked to it. */
const instructionsOf = (probe: TransferProbe, owner: Address, destination: Address) => {
  const payer = createNoopSigner(probe.feePayer)
  const authority = createNoopSigner(probe.sourceOwner)
  const isSpl = probe.tokenProgram === TOKEN_PROGRAM_ADDRESS
  const createAta = (isSpl ? splCreateAtaIdempotent : token2022CreateAtaIdempotent)({
    payer,
    ata: destination,
    owner,
    mint: probe.mint,
    tokenProgram: probe.tokenProgram
  })
  const transferInput = {
    source: probe.sourceAccount,
    mint: probe.mint,
    destination,
    authority,
    amount: probe.amount,
    decimals: probe.decimals
  }
  const transfer: Instruction = isSpl
    ? splTransferChecked(transferInput, { programAddress: probe.tokenProgram as typeof TOKEN_PROGRAM_ADDRESS })
    : token2022TransferChecked(transferInput, { programAddress: probe.tokenProgram })
  return { createAta, transfer }
}

/** The simulated transfer's answer as a sell check: what arrived, and the fee as a tax. */
const sellCheckOf = (probe: TransferProbe, answer: SimulationAnswer): SellCheck => {
  const ok = answer.err === null
  const received = ok ? postTokenAmount(answer, 0) : null
  const feeCharged = received === null ? null : probe.amount - received
  return {
    ok,
    error: ok ? null : errorText(answer.err, answer.logs),
    sourceAccount: ours(probe.sourceAccount),
    sourceOwner: ours(probe.sourceOwner),
    amount: probe.amount.toString(),
    received: received === null ? null : received.toString(),
    feeCharged: feeCharged === null ? null : feeCharged.toString(),
    effectiveTaxPct: feeCharged === null ? null : percent(feeCharged, probe.amount),
    unitsConsumed: unitsOf(answer),
    venue: null,
    answer: "simulated"
  }
}

/**
 * Simulates a small transfer from a real holder to a fresh associated token account (one RPC call):
 * CreateIdempotent of the fresh owner's ATA (payer: feePayer), then TransferChecked from the holder.
 */
export const simulateTransfer = async (
  rpc: ScanRpc,
  probe: TransferProbe,
  minContextSlot: Slot
): Promise<SellCheck> => {
  const owner = freshOwner()
  // Derived synchronously, so the simulation leaves in the same event-loop turn as the scan's other calls
  // of its stage and shares their batch (kit's PDA helpers hash asynchronously).
  const destination = associatedTokenAddressSync(owner, probe.mint, probe.tokenProgram)
  const { createAta, transfer } = instructionsOf(probe, owner, destination)
  const hook = probe.transferHook
  // findExtraAccountMetaListPda's seeds: ["extra-account-metas", mint] under the hook program.
  const validation =
    hook === undefined
      ? undefined
      : findProgramAddressSync(hook.program, [new TextEncoder().encode("extra-account-metas"), keyBytes(probe.mint)])
  // The hook's extra accounts as its validation account lists them, resolved by the token-2022 client
  // (one getAccountInfo, more for seeds that read account data); when no validation account exists it
  // gives none, and the program and the (missing) account are still passed so the runtime says why.
  const resolved =
    hook === undefined || hook.extraAccounts !== undefined || validation === undefined
      ? []
      : await resolveExtraAccountMetasForExecute({
          rpc,
          transferHookProgramAddress: hook.program,
          source: probe.sourceAccount,
          mint: probe.mint,
          destination,
          owner: probe.sourceOwner,
          amount: probe.amount,
          validateStatePubkey: validation
        })
  const hookAccounts: ReadonlyArray<AccountMeta> =
    hook === undefined || validation === undefined
      ? []
      : resolved.length > 0
        ? resolved
        : [
            ...(hook.extraAccounts ?? []),
            { address: hook.program, role: AccountRole.READONLY },
            { address: validation, role: AccountRole.READONLY }
          ]
  const withHook: Instruction =
    hookAccounts.length === 0 ? transfer : { ...transfer, accounts: [...(transfer.accounts ?? []), ...hookAccounts] }

  const answer = await simulate(rpc, compileWire(probe.feePayer, [createAta, withHook]), [destination], minContextSlot)
  return sellCheckOf(probe, answer)
}

// ---------------------------------------------------------------------------------------------------
// Swaps. The pool's accounts come from its decoded state (src/workers/Scanner/Pools/ decoders give the pool
// address, mints, vaults and LP mint; the rest is named per field below); reserves are the vaults'
// token amounts the scan read, less any fees the pool owes out of them. Every address is derived
// synchronously, so the simulation leaves in the same event-loop turn as the rest of its stage and
// shares its batch.

/**
 * Simulates a small sell of the mint into the pool's quote token from a real holder (one RPC call, sent
 * in the caller's event-loop turn): CreateIdempotent of the holder's quote ATA (payer: feePayer), a
 * PumpSwap pool's `extend_account` where it needs one, then the venue's swap with no minimum output.
 * received = the quote ATA's post balance less `holderQuoteBalance`; effectiveTaxPct =
 * 1 - received / expectedSwapOutput (clamped to 0..100 %); feeCharged = expected - received, the tax
 * in quote base units (null when the swap paid more than expected). A WSOL quote stays wrapped (no
 * close), so the gain is read from the token account, not lamports.
 */
export const simulateSwap = async (
  rpc: ScanRpc,
  pool: SwapPool,
  probe: SwapProbe,
  minContextSlot: Slot
): Promise<SellCheck> => {
  const userQuote = holderQuoteAccount(pool, probe.holder)
  const isSpl = pool.quote.tokenProgram === TOKEN_PROGRAM_ADDRESS
  const createAta = (isSpl ? splCreateAtaIdempotent : token2022CreateAtaIdempotent)({
    payer: createNoopSigner(probe.feePayer),
    ata: userQuote,
    owner: probe.holder,
    mint: pool.quote.mint,
    tokenProgram: pool.quote.tokenProgram
  })
  const instructions: ReadonlyArray<Instruction> =
    pool.venue === "pumpswap"
      ? [
          createAta,
          ...(pool.needsExtension === true ? [pumpSwapExtend(pool, probe.feePayer)] : []),
          pumpSwapSell(pool, probe, userQuote)
        ]
      : [createAta, raydiumCpmmSwap(pool, probe, userQuote)]
  const answer = await simulate(rpc, compileWire(probe.feePayer, instructions), [userQuote], minContextSlot)
  const ok = answer.err === null
  const after = ok ? postTokenAmount(answer, 0) : null
  const gained = after === null ? null : after - probe.holderQuoteBalance
  const received = gained === null || gained < 0n ? null : gained
  const expected = expectedSwapOutput(
    pool,
    probe.amount,
    pool.venue === "raydium-cpmm" ? (probe.inputTransferFee ?? 0n) : 0n
  )
  return {
    ok,
    error: ok ? null : errorText(answer.err, answer.logs),
    sourceAccount: ours(probe.holderBaseAccount),
    sourceOwner: ours(probe.holder),
    amount: probe.amount.toString(),
    received: received === null ? null : received.toString(),
    feeCharged: received === null || expected === 0n || received > expected ? null : (expected - received).toString(),
    expectedOut: expected.toString(),
    effectiveTaxPct: received === null || expected === 0n ? null : percent(expected - received, expected),
    unitsConsumed: unitsOf(answer),
    venue: pool.venue,
    answer: "simulated"
  }
}
