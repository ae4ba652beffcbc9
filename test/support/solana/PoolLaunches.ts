import { readFileSync } from "node:fs"
import { AccountRole, type Address, generateKeyPairSigner, type Instruction, type KeyPairSigner } from "@solana/kit"
import { type Idl, IdlCoder, type IdlType } from "./AnchorIdl.ts"
import type { RecordedTransaction, World } from "./World.ts"

// Pool creations and launchpad launches on the venues the stream watches, built to each program's public
// IDL (./idl/*_instructions.json, origins in ./idl/README.md): the instruction's discriminator, its
// accounts in the IDL's order (the ones a test names, the rest fresh addresses) and its Borsh arguments
// (zero values unless given). LiteSVM has none of these programs, so the transaction is recorded with
// World.record with the log lines the program writes; the caller builds the pool's accounts first
// (Pools.ts buildPool), as the program would have.

interface InstructionsIdl extends Idl {
  readonly address: string
  readonly instructions: ReadonlyArray<{
    readonly name: string
    readonly discriminator: ReadonlyArray<number>
    readonly accounts: ReadonlyArray<{ readonly name: string }>
    readonly args: ReadonlyArray<{ readonly name: string; readonly type: IdlType }>
  }>
}

export type VenueIdl =
  | "raydium_amm_v4"
  | "raydium_cpmm"
  | "raydium_clmm"
  | "orca_whirlpool"
  | "meteora_dlmm"
  | "meteora_damm_v1"
  | "meteora_damm_v2"
  | "meteora_dbc"
  | "raydium_launchpad"

const IDL_DIR = new URL("./idl/", import.meta.url).pathname
const idls = new Map<VenueIdl, { readonly idl: InstructionsIdl; readonly coder: IdlCoder }>()
const idlOf = (file: VenueIdl) => {
  let entry = idls.get(file)
  if (entry === undefined) {
    const idl = JSON.parse(readFileSync(`${IDL_DIR}${file}_instructions.json`, "utf8")) as InstructionsIdl
    entry = { idl, coder: new IdlCoder(idl) }
    idls.set(file, entry)
  }
  return entry
}

/** The program's log lines for the instruction: Anchor's `Instruction: <Name>`, AMM v4's `initialize2: ..`. */
const logsOf = (program: string, name: string): ReadonlyArray<string> => [
  `Program ${program} invoke [1]`,
  program === "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8"
    ? "Program log: initialize2: InitializeInstruction2 { nonce: 254, open_time: 0, init_pc_amount: 1, init_coin_amount: 1 }"
    : `Program log: Instruction: ${name
        .split("_")
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join("")}`,
  `Program ${program} consumed 98000 of 200000 compute units`,
  `Program ${program} success`
]

export interface VenueInstruction {
  readonly idl: VenueIdl
  readonly name: string
  /** Addresses of the accounts the test names (the pool, its mints...); `signer` fills its own slot. */
  readonly accounts: Readonly<Record<string, Address>>
  /** The account the signer is, by its IDL name. */
  readonly signerAccount: string
  readonly args?: Readonly<Record<string, unknown>>
  /** A malformed one: only the discriminator for data, and only the first account. */
  readonly malformed?: boolean
  /** The program's effects on accounts, shown by the transaction's balances (World's Emulated.effects). */
  readonly effects?: () => void | Promise<void>
}

/** Records the instruction, signed by `signer` (a fresh funded one by default), as the network would report it. */
export const recordVenueInstruction = async (
  world: World,
  spec: VenueInstruction,
  signer?: KeyPairSigner
): Promise<{ readonly transaction: RecordedTransaction; readonly program: Address; readonly user: Address }> => {
  const { idl, coder } = idlOf(spec.idl)
  const definition = idl.instructions.find((candidate) => candidate.name === spec.name)
  if (definition === undefined) throw new Error(`${spec.idl} has no instruction ${spec.name}`)
  const user = signer ?? (await world.signer())
  const program = idl.address as Address
  const accounts = []
  for (const account of definition.accounts) {
    const address =
      account.name === spec.signerAccount
        ? user.address
        : (spec.accounts[account.name] ?? (await generateKeyPairSigner()).address)
    accounts.push(
      address === user.address
        ? { address, role: AccountRole.WRITABLE_SIGNER, signer: user }
        : { address, role: AccountRole.WRITABLE }
    )
  }
  const args = Object.fromEntries(
    definition.args.map((arg) => [arg.name, spec.args?.[arg.name] ?? coder.defaultOf(arg.type)])
  )
  const data = spec.malformed
    ? Uint8Array.from(definition.discriminator)
    : coder.encodeInstruction(spec.name, args as Record<string, unknown>)
  const instruction: Instruction = {
    programAddress: program,
    accounts: spec.malformed ? accounts.slice(0, 1) : accounts,
    data
  }
  const transaction = await world.record(user, [instruction], {
    logs: logsOf(program, spec.name),
    ...(spec.effects === undefined ? {} : { effects: spec.effects })
  })
  return { transaction, program, user: user.address }
}

/** Sets a token account's amount (the u64 at byte 64 of an SPL token account), as a program's transfer would leave it. */
export const setTokenAmount = (world: World, account: Address, amount: (before: bigint) => bigint): void => {
  const state = world.svm.getAccount(account)
  if (!state.exists) throw new Error(`token account ${account} does not exist`)
  const data = Uint8Array.from(state.data)
  const view = new DataView(data.buffer)
  view.setBigUint64(64, amount(view.getBigUint64(64, true)), true)
  world.setAccount(account, state.programAddress, data)
}
