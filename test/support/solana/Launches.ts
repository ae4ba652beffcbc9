import { readFileSync } from "node:fs"
import {
  AccountRole,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type KeyPairSigner,
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getProgramDerivedAddress
} from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import { metaplexMetadataAddress } from "../../../src/workers/Scanner/Programs.ts"
import { type Idl, IdlCoder } from "./AnchorIdl.ts"
import type { BuiltMint, RecordedTransaction, World } from "./World.ts"
import { NATIVE_MINT } from "./World.ts"

// pump.fun launches in the world, built to the program's public IDL (pump-fun/pump-public-docs
// idl/pump.json, cut to ./idl/pump_public.json): the instruction's discriminator, its accounts in the
// IDL's order (PDAs derived from the IDL's seeds) and its Borsh arguments; the CreateEvent the program
// emits through its self-CPI (inner instruction: Anchor's event tag, then the event); the BondingCurve
// account. LiteSVM has no pump binary, so the program's effects are real token transactions (a mint,
// the supply minted to the curve's account, the mint authority revoked) and the curve is written with
// setAccount, before the create transaction itself is recorded with World.record.

const IDL_DIR = new URL("./idl/", import.meta.url).pathname
const readIdl = (
  file: string
): Idl & { readonly address: string; readonly instructions: ReadonlyArray<IdlInstructionJson> } =>
  JSON.parse(readFileSync(IDL_DIR + file, "utf8")) as Idl & {
    readonly address: string
    readonly instructions: ReadonlyArray<IdlInstructionJson>
  }

interface IdlSeed {
  readonly kind: "const" | "account" | "arg"
  readonly value?: ReadonlyArray<number>
  readonly path?: string
}
interface IdlAccountJson {
  readonly name: string
  readonly writable?: boolean
  readonly signer?: boolean
  readonly address?: string
  readonly pda?: { readonly seeds: ReadonlyArray<IdlSeed>; readonly program?: IdlSeed }
}
interface IdlInstructionJson {
  readonly name: string
  readonly accounts: ReadonlyArray<IdlAccountJson>
}

export const PUMP_IDL = readIdl("pump_public.json")
const PUMP_AMM_IDL = readIdl("pump_amm_public.json")
const pumpCoder = new IdlCoder(PUMP_IDL)
const pumpAmmCoder = new IdlCoder(PUMP_AMM_IDL)
export const PUMP_PROGRAM = address(PUMP_IDL.address)
const PUMP_AMM_PROGRAM = address(PUMP_AMM_IDL.address)
/** Anchor's event tag: the first 8 bytes of an emit_cpi! inner instruction (anchor-lang EVENT_IX_TAG_LE). */
const EVENT_IX_TAG = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d])
const USDC = address("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")

/**
 * The accounts of `instruction` in the IDL's order: `known` first, then fixed addresses, then PDAs
 * from the IDL's seeds (constants and accounts already resolved).
 */
const resolveAccounts = async (
  idl: { readonly address: string; readonly instructions: ReadonlyArray<IdlInstructionJson> },
  instruction: string,
  known: Readonly<Record<string, Address>>
): Promise<
  ReadonlyArray<{
    readonly name: string
    readonly address: Address
    readonly writable: boolean
    readonly signer: boolean
  }>
> => {
  const definition = idl.instructions.find((candidate) => candidate.name === instruction)
  if (definition === undefined) throw new Error(`IDL has no instruction ${instruction}`)
  const resolved = new Map<string, Address>()
  const out = []
  for (const account of definition.accounts) {
    let at = known[account.name] ?? (account.address === undefined ? undefined : address(account.address))
    if (at === undefined && account.pda !== undefined) {
      const seedBytes = (seed: IdlSeed): Uint8Array => {
        if (seed.kind === "const" && seed.value !== undefined) return Uint8Array.from(seed.value)
        const from = seed.path === undefined ? undefined : resolved.get(seed.path)
        if (seed.kind === "account" && from !== undefined) return Uint8Array.from(getAddressEncoder().encode(from))
        throw new Error(`${instruction}.${account.name}: seed ${JSON.stringify(seed)} is not resolvable`)
      }
      const program =
        account.pda.program === undefined
          ? address(idl.address)
          : getAddressDecoder().decode(seedBytes(account.pda.program))
      at = (await getProgramDerivedAddress({ programAddress: program, seeds: account.pda.seeds.map(seedBytes) }))[0]
    }
    if (at === undefined) throw new Error(`${instruction}.${account.name}: give its address`)
    resolved.set(account.name, at)
    out.push({ name: account.name, address: at, writable: account.writable === true, signer: account.signer === true })
  }
  return out
}

const instructionOf = (
  program: Address,
  accounts: ReadonlyArray<{ readonly address: Address; readonly writable: boolean; readonly signer: boolean }>,
  signers: ReadonlyArray<KeyPairSigner>,
  data: Uint8Array
): Instruction => ({
  programAddress: program,
  accounts: accounts.map((account): AccountMeta | AccountSignerMeta => {
    const signer = signers.find((candidate) => candidate.address === account.address)
    if (account.signer && signer !== undefined) {
      return {
        address: account.address,
        role: account.writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER,
        signer
      }
    }
    return { address: account.address, role: account.writable ? AccountRole.WRITABLE : AccountRole.READONLY }
  }),
  data
})

const logsOf = (program: Address, name: string): ReadonlyArray<string> => [
  `Program ${program} invoke [1]`,
  `Program log: Instruction: ${name}`,
  `Program ${program} invoke [2]`,
  `Program ${program} consumed 2003 of 150000 compute units`,
  `Program ${program} success`,
  `Program ${program} consumed 98000 of 200000 compute units`,
  `Program ${program} success`
]

export type PumpCreateKind = "create" | "create_v2"

export interface PumpLaunch {
  readonly kind: PumpCreateKind
  readonly mint: BuiltMint
  readonly bondingCurve: Address
  readonly quoteMint: Address
  readonly creator: KeyPairSigner
  readonly transaction: RecordedTransaction
}

const TOTAL_SUPPLY = 1_000_000_000_000_000n
const INITIAL_VIRTUAL_TOKENS = 1_073_000_000_000_000n
const INITIAL_REAL_TOKENS = 793_100_000_000_000n
const INITIAL_VIRTUAL_SOL = 30_000_000_000n

interface PumpCreateOptions {
  readonly kind: PumpCreateKind
  readonly quote?: "sol" | "usdc"
  readonly name?: string
  readonly symbol?: string
}

/**
 * What a launch's keys decide, made before it: the creator (funded), the mint's key pair, the PDAs and
 * the create instruction's accounts. A bench prepares its launches ahead so its timed window only runs
 * their transactions; each is still signed, sent and recorded when pumpCreate runs it.
 */
export interface PreparedPumpCreate {
  readonly creator: KeyPairSigner
  readonly keypair: KeyPairSigner
  readonly bondingCurve: Address
  readonly associatedBondingCurve: Address
  readonly accounts: Awaited<ReturnType<typeof resolveAccounts>>
}

export const preparePumpCreate = async (world: World, options: PumpCreateOptions): Promise<PreparedPumpCreate> => {
  const creator = await world.signer()
  const keypair = await generateKeyPairSigner()
  const v2 = options.kind === "create_v2"
  const tokenProgram = v2 ? TOKEN_2022_PROGRAM_ADDRESS : TOKEN_PROGRAM_ADDRESS
  const [bondingCurve] = await getProgramDerivedAddress({
    programAddress: PUMP_PROGRAM,
    seeds: [new TextEncoder().encode("bonding-curve"), getAddressEncoder().encode(keypair.address)]
  })
  const associatedBondingCurve = await world.associatedAccount(bondingCurve, keypair.address, tokenProgram)
  const known: Record<string, Address> = {
    mint: keypair.address,
    user: creator.address,
    bonding_curve: bondingCurve,
    associated_bonding_curve: associatedBondingCurve
  }
  if (v2) known.mayhem_token_vault = (await generateKeyPairSigner()).address
  else known.metadata = await metaplexMetadataAddress(keypair.address)
  known.program = PUMP_PROGRAM
  const accounts = await resolveAccounts(PUMP_IDL, options.kind, known)
  return { creator, keypair, bondingCurve, associatedBondingCurve, accounts }
}

/**
 * A pump.fun launch: `create` (SPL Token mint, Metaplex metadata) or `create_v2` (Token-2022 mint whose
 * metadata pointer is itself), quoted in SOL (default) or USDC (`quote`: the curve's quote_mint).
 */
export const pumpCreate = async (
  world: World,
  options: PumpCreateOptions,
  /** Made by preparePumpCreate with the same options; made here without it. */
  prepared?: PreparedPumpCreate
): Promise<PumpLaunch> => {
  const { creator, keypair, bondingCurve, accounts } = prepared ?? (await preparePumpCreate(world, options))
  const name = options.name ?? "Launch Test"
  const symbol = options.symbol ?? "LAUNCH"
  const uri = `https://ipfs.example/${keypair.address}`
  const v2 = options.kind === "create_v2"
  const mint = await world.mint({
    program: v2 ? "token-2022" : "token",
    decimals: 6,
    deployer: creator,
    keypair,
    ...(v2 ? { extensions: { tokenMetadata: { name, symbol, uri } } } : {})
  })
  if (!v2) await world.metaplex(mint, { name, symbol, uri, isMutable: false })
  // The program mints the whole supply to the curve's account and gives up the mint authority.
  await world.fund(mint, bondingCurve, TOTAL_SUPPLY)
  await world.revoke(mint, "mint")
  const quoteMint = options.quote === "usdc" ? USDC : NATIVE_MINT
  // quote_mint is the all-zero key for SOL curves (pump-sdk src/pda.ts normalizeQuoteMint).
  const curveQuote = options.quote === "usdc" ? USDC : address("11111111111111111111111111111111")
  world.setAccount(
    bondingCurve,
    PUMP_PROGRAM,
    pumpCoder.encodeAccount(
      "BondingCurve",
      {
        virtual_token_reserves: INITIAL_VIRTUAL_TOKENS,
        virtual_quote_reserves: INITIAL_VIRTUAL_SOL,
        real_token_reserves: INITIAL_REAL_TOKENS,
        real_quote_reserves: 0n,
        token_total_supply: TOTAL_SUPPLY,
        complete: false,
        creator: creator.address,
        is_mayhem_mode: false,
        is_cashback_coin: false,
        quote_mint: curveQuote
      },
      125
    )
  )
  const args = v2
    ? { name, symbol, uri, creator: creator.address, is_mayhem_mode: false, is_cashback_enabled: [false] }
    : { name, symbol, uri, creator: creator.address }
  const eventAuthority = accounts.find((account) => account.name === "event_authority")?.address
  if (eventAuthority === undefined) throw new Error("create has an event_authority")
  const event = pumpCoder.encodeEvent("CreateEvent", {
    name,
    symbol,
    uri,
    mint: mint.address,
    bonding_curve: bondingCurve,
    user: creator.address,
    creator: creator.address,
    timestamp: BigInt(world.blockTime + 1),
    virtual_token_reserves: INITIAL_VIRTUAL_TOKENS,
    virtual_sol_reserves: INITIAL_VIRTUAL_SOL,
    real_token_reserves: INITIAL_REAL_TOKENS,
    token_total_supply: TOTAL_SUPPLY,
    token_program: mint.program,
    is_mayhem_mode: false,
    is_cashback_enabled: false,
    quote_mint: quoteMint,
    virtual_quote_reserves: INITIAL_VIRTUAL_SOL
  })
  const transaction = await world.record(
    creator,
    [instructionOf(PUMP_PROGRAM, accounts, [creator, keypair], pumpCoder.encodeInstruction(options.kind, args))],
    {
      logs: logsOf(PUMP_PROGRAM, v2 ? "CreateV2" : "Create"),
      inner: [
        {
          index: 0,
          instructions: [
            { program: PUMP_PROGRAM, accounts: [eventAuthority], data: Uint8Array.from([...EVENT_IX_TAG, ...event]) }
          ]
        }
      ]
    }
  )
  return { kind: options.kind, mint, bondingCurve, quoteMint, creator, transaction }
}

/**
 * A launch's bonding curve after buys and sells that leave `realQuote` of the quote in it (a buy adds to both
 * the virtual and the real quote reserve, a sell takes from both; the token reserves follow the constant
 * product of the virtual reserves), rewritten as the program would leave it; `complete` as the last buy of the
 * curve sets it. The curve account's change is what an accountSubscribe on it reports.
 */
export const pumpCurveAfterTrades = (
  world: World,
  launch: PumpLaunch,
  realQuote: bigint,
  options: { readonly complete?: boolean } = {}
): void => {
  const virtualQuote = INITIAL_VIRTUAL_SOL + realQuote
  const virtualTokens = (INITIAL_VIRTUAL_TOKENS * INITIAL_VIRTUAL_SOL) / virtualQuote
  const sold = INITIAL_VIRTUAL_TOKENS - virtualTokens
  world.setAccount(
    launch.bondingCurve,
    PUMP_PROGRAM,
    pumpCoder.encodeAccount(
      "BondingCurve",
      {
        virtual_token_reserves: virtualTokens,
        virtual_quote_reserves: virtualQuote,
        real_token_reserves: sold >= INITIAL_REAL_TOKENS ? 0n : INITIAL_REAL_TOKENS - sold,
        real_quote_reserves: realQuote,
        token_total_supply: TOTAL_SUPPLY,
        complete: options.complete === true,
        creator: launch.creator.address,
        is_mayhem_mode: false,
        is_cashback_coin: false,
        quote_mint: launch.quoteMint === USDC ? USDC : address("11111111111111111111111111111111")
      },
      125
    )
  )
}

/**
 * An LP withdrawal from a PumpSwap pool built by buildPool: the vaults keep `keepPercent` of what they
 * hold (their token accounts rewritten, as the program's transfers would leave them), then the
 * `withdraw` transaction is recorded with its accounts in the IDL's order and its Borsh arguments.
 */
export const pumpSwapWithdraw = async (
  world: World,
  pool: {
    readonly address: Address
    readonly mintA: Address
    readonly mintB: Address
    readonly vaultA: Address | null
    readonly vaultB: Address | null
    readonly related: ReadonlyArray<Address>
    readonly lp: { readonly mint: { readonly address: Address } } | null
  },
  keepPercent: bigint
): Promise<RecordedTransaction> => {
  if (pool.vaultA === null || pool.vaultB === null || pool.lp === null)
    throw new Error("a PumpSwap pool has vaults and an LP mint")
  for (const vault of [pool.vaultA, pool.vaultB]) {
    const account = world.svm.getAccount(vault)
    if (!account.exists) throw new Error(`vault ${vault} does not exist`)
    const data = Uint8Array.from(account.data)
    // SPL token account: amount is the u64 at byte 64.
    const view = new DataView(data.buffer)
    view.setBigUint64(64, (view.getBigUint64(64, true) * keepPercent) / 100n, true)
    world.setAccount(vault, account.programAddress, data)
  }
  const user = await world.signer()
  const random = async () => (await generateKeyPairSigner()).address
  const accounts = await resolveAccounts(PUMP_AMM_IDL, "withdraw", {
    pool: pool.address,
    global_config: pool.related[0] ?? (await random()),
    user: user.address,
    base_mint: pool.mintA,
    quote_mint: pool.mintB,
    lp_mint: pool.lp.mint.address,
    user_base_token_account: await random(),
    user_quote_token_account: await random(),
    user_pool_token_account: await random(),
    pool_base_token_account: pool.vaultA,
    pool_quote_token_account: pool.vaultB,
    program: PUMP_AMM_PROGRAM
  })
  const data = pumpAmmCoder.encodeInstruction("withdraw", {
    lp_token_amount_in: 1_000_000n,
    min_base_amount_out: 0n,
    min_quote_amount_out: 0n
  })
  return world.record(user, [instructionOf(PUMP_AMM_PROGRAM, accounts, [user], data)], {
    logs: logsOf(PUMP_AMM_PROGRAM, "Withdraw")
  })
}
