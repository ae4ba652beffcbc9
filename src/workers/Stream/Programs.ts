import { createHash } from "node:crypto"
import { type Address, address } from "@solana/kit"
import { USDC, USDT, WSOL } from "../Scanner/Pools/Quotes.ts"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, VENUES, venueProgram } from "../Scanner/Programs.ts"

// The programs the stream subscribes to, and what each instruction it reads is called on chain.
// Anchor names an instruction by sha256("global:<name>")[0..8] and an event by
// sha256("event:<Name>")[0..8] (anchor-lang's discriminator); test/workers/Stream/programs.test.ts holds these
// against the programs' public IDLs (pump-fun/pump-public-docs, Raydium, Orca and Meteora; see
// test/support/solana/idl/README.md for each file's origin).

const anchor = (preimage: string): Uint8Array =>
  Uint8Array.from(createHash("sha256").update(preimage).digest().subarray(0, 8))
const instructionDiscriminator = (name: string): Uint8Array => anchor(`global:${name}`)
const eventDiscriminator = (name: string): Uint8Array => anchor(`event:${name}`)
/** anchor-lang EVENT_IX_TAG_LE: an emit_cpi! event rides in a self-invoked instruction that starts with it. */
export const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d])

/** pump.fun's bonding-curve program (pump-public-docs idl/pump.json `address`). */
const PUMP = address("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P")
/** PumpSwap (idl/pump_amm.json `address`). */
const PUMP_AMM = address("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA")
// The pool venues the scanner reads (src/workers/Scanner/Programs.ts VENUES), and the two launchpads.
const RAYDIUM_AMM_V4 = venueProgram("raydium-amm-v4")
const RAYDIUM_CPMM = venueProgram("raydium-cpmm")
const RAYDIUM_CLMM = venueProgram("raydium-clmm")
const ORCA_WHIRLPOOL = venueProgram("orca-whirlpool")
const METEORA_DLMM = venueProgram("meteora-dlmm")
const METEORA_DAMM_V1 = venueProgram("meteora-damm-v1")
const METEORA_DAMM_V2 = venueProgram("meteora-damm-v2")
const METEORA_DBC = venueProgram("meteora-dbc")
const RAYDIUM_LAUNCHLAB = venueProgram("raydium-launchlab")
const VENUE_LABELS = new Map<string, string>(VENUES.map((venue) => [venue.program, venue.label]))

/**
 * What the stream records: `create` / `create_v2` a bonding-curve launch (pump.fun, Raydium LaunchLab,
 * Meteora DBC), `create_pool` a pool made on any venue, `complete` / `migrate` a curve's graduation.
 */
export type LaunchKind = "create" | "create_v2" | "complete" | "migrate" | "create_pool"
export type StateKind =
  | "mint_changed"
  | "lp_removed"
  | "holder_frozen"
  | "authority_set"
  | "deployer_sell"
  | "reserves_dropped"
export type EventKind = LaunchKind | StateKind

/** An instruction the stream reads: where its mints are (IDL order) and the log line that names it. */
export interface WatchedInstruction {
  readonly program: Address
  /** The IDL's name for it. */
  readonly name: string
  readonly kind: EventKind
  readonly discriminator: Uint8Array
  /**
   * Indexes of the mints among the instruction's accounts, as the IDL lists them: one for a launch (its
   * mint), two for a pool (its pair: each side that is not SOL, USDC or USDT is queued).
   */
  readonly mintAccounts: ReadonlyArray<number>
  /** Index of the signer that made it (the creator of a launch), when the IDL names one. */
  readonly userAccount?: number
  /** The shortest data it can have: discriminator plus the least Borsh encoding of its arguments. */
  readonly minData: number
  /** The log line the program writes for it (Anchor: `Program log: Instruction: <Name>`); a prefix for AMM v4. */
  readonly logLine: string
}

/** Anchor's log name for an instruction: its snake_case name in UpperCamelCase (anchor-syn, heck). */
const anchorLogLine = (name: string): string =>
  `Program log: Instruction: ${name
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")}`

const anchorIx = (
  program: Address,
  name: string,
  kind: EventKind,
  mintAccounts: ReadonlyArray<number>,
  userAccount: number | undefined,
  minArgs: number
): WatchedInstruction => ({
  program,
  name,
  kind,
  discriminator: instructionDiscriminator(name),
  mintAccounts,
  minData: 8 + minArgs,
  logLine: anchorLogLine(name),
  ...(userAccount === undefined ? {} : { userAccount })
})

// Account indexes and argument sizes from the public IDLs (vendored cuts in test/support/solana/idl/,
// test/workers/Stream/programs.test.ts holds every row against them).
export const INSTRUCTIONS: ReadonlyArray<WatchedInstruction> = [
  // pump.fun: create (mint 0, user 7), create_v2 (mint 0, user 5), migrate (mint 2, user 5).
  anchorIx(PUMP, "create", "create", [0], 7, 44),
  anchorIx(PUMP, "create_v2", "create_v2", [0], 5, 46),
  anchorIx(PUMP, "migrate", "migrate", [2], 5, 0),
  // PumpSwap create_pool (base_mint 3, creator 2) and withdraw (base_mint 3, user 2).
  anchorIx(PUMP_AMM, "create_pool", "create_pool", [3], 2, 52),
  anchorIx(PUMP_AMM, "withdraw", "lp_removed", [3], 2, 24),
  // Raydium AMM v4 is not Anchor: instruction tag 1 is initialize2 (nonce u8, open_time, init_pc_amount,
  // init_coin_amount u64), coin_mint 8, pc_mint 9, user_wallet 17; it logs `initialize2: InitializeInstruction2 {..}`.
  {
    program: RAYDIUM_AMM_V4,
    name: "initialize2",
    kind: "create_pool",
    discriminator: Uint8Array.of(1),
    mintAccounts: [8, 9],
    userAccount: 17,
    minData: 26,
    logLine: "Program log: initialize2: "
  },
  anchorIx(RAYDIUM_CPMM, "initialize", "create_pool", [4, 5], 0, 24),
  anchorIx(RAYDIUM_CLMM, "create_pool", "create_pool", [3, 4], 0, 24),
  anchorIx(ORCA_WHIRLPOOL, "initialize_pool", "create_pool", [1, 2], 3, 19),
  anchorIx(ORCA_WHIRLPOOL, "initialize_pool_v2", "create_pool", [1, 2], 5, 18),
  anchorIx(ORCA_WHIRLPOOL, "initialize_pool_with_adaptive_fee", "create_pool", [1, 2], 5, 17),
  anchorIx(METEORA_DLMM, "initialize_lb_pair", "create_pool", [2, 3], 8, 6),
  anchorIx(METEORA_DLMM, "initialize_lb_pair2", "create_pool", [2, 3], 8, 100),
  anchorIx(METEORA_DLMM, "initialize_customizable_permissionless_lb_pair", "create_pool", [2, 3], 8, 75),
  anchorIx(METEORA_DLMM, "initialize_customizable_permissionless_lb_pair2", "create_pool", [2, 3], 8, 75),
  anchorIx(METEORA_DLMM, "initialize_permission_lb_pair", "create_pool", [3, 4], 8, 14),
  anchorIx(METEORA_DAMM_V1, "initialize_permissioned_pool", "create_pool", [2, 3], 15, 1),
  anchorIx(METEORA_DAMM_V1, "initialize_permissionless_pool", "create_pool", [2, 3], 17, 17),
  anchorIx(METEORA_DAMM_V1, "initialize_permissionless_pool_with_fee_tier", "create_pool", [2, 3], 17, 25),
  anchorIx(
    METEORA_DAMM_V1,
    "initialize_permissionless_constant_product_pool_with_config",
    "create_pool",
    [3, 4],
    18,
    16
  ),
  anchorIx(
    METEORA_DAMM_V1,
    "initialize_permissionless_constant_product_pool_with_config2",
    "create_pool",
    [3, 4],
    18,
    17
  ),
  anchorIx(
    METEORA_DAMM_V1,
    "initialize_customizable_permissionless_constant_product_pool",
    "create_pool",
    [2, 3],
    17,
    113
  ),
  anchorIx(METEORA_DAMM_V2, "initialize_pool", "create_pool", [8, 9], 0, 33),
  anchorIx(METEORA_DAMM_V2, "initialize_customizable_pool", "create_pool", [7, 8], 0, 99),
  anchorIx(METEORA_DAMM_V2, "initialize_pool_with_dynamic_config", "create_pool", [9, 10], 0, 99),
  // Launchpads: Meteora DBC (base_mint 3, creator 2; migrations to DAMM v1 with its pair 7/8, to DAMM v2 base_mint 13)
  // and Raydium LaunchLab (base_mint 6, creator 1; migrations to AMM v4 / CPMM base_mint 1).
  anchorIx(METEORA_DBC, "initialize_virtual_pool_with_spl_token", "create", [3], 2, 12),
  anchorIx(METEORA_DBC, "initialize_virtual_pool_with_token2022", "create", [3], 2, 12),
  anchorIx(METEORA_DBC, "migrate_meteora_damm", "migrate", [7, 8], undefined, 0),
  anchorIx(METEORA_DBC, "migration_damm_v2", "migrate", [13], undefined, 0),
  anchorIx(RAYDIUM_LAUNCHLAB, "initialize", "create", [6], 1, 55),
  anchorIx(RAYDIUM_LAUNCHLAB, "initialize_v2", "create", [6], 1, 56),
  anchorIx(RAYDIUM_LAUNCHLAB, "initialize_with_token_2022", "create", [6], 1, 57),
  anchorIx(RAYDIUM_LAUNCHLAB, "migrate_to_amm", "migrate", [1], undefined, 17),
  anchorIx(RAYDIUM_LAUNCHLAB, "migrate_to_cpswap", "migrate", [1], undefined, 0)
]

/** The quote mints a pool's other side is: never queued as the pool's token (wrapped SOL, USDC, USDT). */
export const QUOTES: ReadonlySet<string> = new Set([WSOL, USDC, USDT])

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
export const LAUNCH_PROGRAMS: ReadonlyArray<Address> = [
  ...new Set(INSTRUCTIONS.map((instruction) => instruction.program))
]

/** Each watched program by its venue label (src/workers/Scanner/Programs.ts VENUES), for STREAM_VENUES. */
export const PROGRAM_LABELS: ReadonlyMap<string, Address> = new Map(
  LAUNCH_PROGRAMS.map((program) => [VENUE_LABELS.get(program) ?? program, program])
)

export const isLaunch = (kind: EventKind): kind is LaunchKind =>
  kind === "create" || kind === "create_v2" || kind === "complete" || kind === "migrate" || kind === "create_pool"

/**
 * Whether a transaction's logs name an instruction worth reading the transaction for: the log line of a
 * watched instruction (Anchor writes `Program log: Instruction: <Name>`, AMM v4 `initialize2: ..`). Swaps are
 * not read here (a tracked mint's own subscription sees them): a curve's
 * completion is seen through the `migrate` that follows it.
 */
export const worthReading = (logs: ReadonlyArray<string>): boolean =>
  logs.some((line) =>
    line.startsWith("Program log: Instruction: ") ? LOG_LINES.has(line) : line.startsWith(AMM_V4_INITIALIZE2)
  )
const LOG_LINES = new Set(INSTRUCTIONS.map((instruction) => instruction.logLine))
const AMM_V4_INITIALIZE2 = "Program log: initialize2: "

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
/**
 * Whether a tracked mint's transaction whose logs name no state change must still be read: it calls a token
 * program, and no venue program. SPL Token is p-token since SIMD-0266 (feature ptokSWRqZz5u2xdqMdstkMKpFurauUpVen7TZXgDpkQ),
 * which logs no instruction names, so its SetAuthority or FreezeAccount shows in the logs only as
 * `Program Tokenkeg… invoke`. A venue in the transaction makes it a trade or an LP move, whose token calls are
 * transfers; the venues' own instructions are named in their logs.
 */
export const callsTokenOutsideVenues = (logs: ReadonlyArray<string>): boolean => {
  let token = false
  for (const line of logs) {
    if (!line.startsWith("Program ") || !line.includes(" invoke [")) continue
    const program = line.slice(8, line.indexOf(" ", 8))
    if (program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS) token = true
    else if (VENUE_PROGRAMS.has(program)) return false
  }
  return token
}
const VENUE_PROGRAMS = new Set<string>(VENUES.map((venue) => venue.program))

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

/**
 * Whether a transaction's logs name a swap: an Anchor venue's `Sell*` / `Swap*` instruction (pump.fun and
 * PumpSwap `Sell`, LaunchLab `SellExactIn/Out`, CPMM `SwapBaseInput/Output`, CLMM, Whirlpool, DLMM and
 * DAMM `Swap*`), top level or through a router, or AMM v4's `ray_log`.
 */
export const namesSwap = (logs: ReadonlyArray<string>): boolean =>
  logs.some(
    (line) =>
      line.startsWith("Program log: ray_log: ") ||
      (line.startsWith("Program log: Instruction: ") && /^(Sell|Swap)/.test(line.slice(26)))
  )
