import { createHash } from "node:crypto"
import { type Address, address } from "@solana/kit"

// The programs the stream subscribes to, and what each instruction it reads is called on chain.
// Anchor names an instruction by sha256("global:<name>")[0..8] and an event by
// sha256("event:<Name>")[0..8] (anchor-lang's discriminator); test/workers/Stream/programs.test.ts holds these
// against the programs' public IDLs (pump-fun/pump-public-docs idl/pump.json and idl/pump_amm.json).

const anchor = (preimage: string): Uint8Array =>
  Uint8Array.from(createHash("sha256").update(preimage).digest().subarray(0, 8))
const instructionDiscriminator = (name: string): Uint8Array => anchor(`global:${name}`)
const eventDiscriminator = (name: string): Uint8Array => anchor(`event:${name}`)
/** anchor-lang EVENT_IX_TAG_LE: an emit_cpi! event rides in a self-invoked instruction that starts with it. */
export const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d])

/** pump.fun's bonding-curve program (pump-public-docs idl/pump.json `address`). */
export const PUMP = address("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P")
/** PumpSwap (idl/pump_amm.json `address`). */
export const PUMP_AMM = address("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA")

export type LaunchKind = "create" | "create_v2" | "complete" | "migrate" | "create_pool"
export type StateKind = "mint_changed" | "lp_removed" | "holder_frozen" | "authority_set" | "deployer_sell"
export type EventKind = LaunchKind | StateKind

/** An Anchor instruction the stream reads: which account holds the mint (IDL order) and its log name. */
export interface WatchedInstruction {
  readonly program: Address
  readonly name: string
  readonly kind: EventKind
  readonly discriminator: Uint8Array
  /** Index of the mint among the instruction's accounts, as the IDL lists them. */
  readonly mintAccount: number
  /** Index of the signer that made it (the creator of a launch), when the IDL names one. */
  readonly userAccount?: number
  /** The `Program log: Instruction: <Name>` line Anchor writes for it. */
  readonly logName: string
}

const watched = (
  program: Address,
  name: string,
  kind: EventKind,
  mintAccount: number,
  logName: string,
  userAccount?: number
): WatchedInstruction => ({
  program,
  name,
  kind,
  discriminator: instructionDiscriminator(name),
  mintAccount,
  logName,
  ...(userAccount === undefined ? {} : { userAccount })
})

// Account indexes from the IDLs: create (mint 0, user 7), create_v2 (mint 0, user 5), migrate (mint 2),
// PumpSwap create_pool (base_mint 3, creator 2) and withdraw (base_mint 3, user 2).
export const INSTRUCTIONS: ReadonlyArray<WatchedInstruction> = [
  watched(PUMP, "create", "create", 0, "Create", 7),
  watched(PUMP, "create_v2", "create_v2", 0, "CreateV2", 5),
  watched(PUMP, "migrate", "migrate", 2, "Migrate", 5),
  watched(PUMP_AMM, "create_pool", "create_pool", 3, "CreatePool", 2),
  watched(PUMP_AMM, "withdraw", "lp_removed", 3, "Withdraw", 2)
]

/** Self-CPI events read from inner instructions: CompleteEvent { user, mint, ... } (mint at byte 32). */
export const EVENTS: ReadonlyArray<{
  readonly program: Address
  readonly name: string
  readonly kind: EventKind
  readonly discriminator: Uint8Array
  readonly mintOffset: number
}> = [
  {
    program: PUMP,
    name: "CompleteEvent",
    kind: "complete",
    discriminator: eventDiscriminator("CompleteEvent"),
    mintOffset: 32
  }
]

/** The launch programs the stream subscribes to with logsSubscribe (one `mentions` each). */
export const LAUNCH_PROGRAMS: ReadonlyArray<Address> = [PUMP, PUMP_AMM]

export const isLaunch = (kind: EventKind): kind is LaunchKind =>
  kind === "create" || kind === "create_v2" || kind === "complete" || kind === "migrate" || kind === "create_pool"

/**
 * Whether a transaction's logs name an instruction worth reading the transaction for: the log line of a
 * watched instruction (Anchor writes `Program log: Instruction: <Name>`). Buys are not read: a curve's
 * completion is seen through the `migrate` that follows it.
 */
export const worthReading = (logs: ReadonlyArray<string>): boolean =>
  logs.some((line) => line.startsWith("Program log: Instruction: ") && LOG_NAMES.has(line.slice(26)))
const LOG_NAMES = new Set(INSTRUCTIONS.map((instruction) => instruction.logName))

/**
 * For a tracked mint's logs: what changed, from the instruction names alone (SPL Token and Token-2022
 * log `Instruction: SetAuthority` / `FreezeAccount`; the pool programs log their withdraw instruction).
 */
export const stateKindOf = (logs: ReadonlyArray<string>): StateKind | undefined => {
  for (const line of logs) {
    if (!line.startsWith("Program log: Instruction: ")) continue
    const name = line.slice(26)
    if (name === "SetAuthority") return "authority_set"
    if (name === "FreezeAccount") return "holder_frozen"
    if (REMOVALS.has(name)) return "lp_removed"
  }
  return undefined
}
// Each Anchor venue's LP removal as it logs it: Raydium CPMM and PumpSwap `Withdraw`, CLMM and
// Whirlpool `DecreaseLiquidity(V2)`, Meteora DLMM/DAMM v2 `RemoveLiquidity*` / `RemoveAllLiquidity`,
// DAMM v1 `RemoveBalanceLiquidity`.
const REMOVALS = new Set([
  "Withdraw",
  "DecreaseLiquidity",
  "DecreaseLiquidityV2",
  "RemoveLiquidity",
  "RemoveLiquidityByRange",
  "RemoveLiquidityByRange2",
  "RemoveAllLiquidity",
  "RemoveBalanceLiquidity"
])
