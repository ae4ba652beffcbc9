import type { Address } from "@solana/kit"
import { notApplicable, notObserved, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { addressAt, findProgramAddressSync, keyBytes, u64At, view } from "../Pools/Bytes.ts"
import { type AccountInfos, readAccounts } from "./Accounts.ts"
import { ours, type ScanContext } from "./Context.ts"

// Stage "hook program": who can change the program a Token-2022 TransferHook extension calls. Round 2
// reads the program account and, for the upgradeable loader, its ProgramData account in one
// getMultipleAccounts (the ProgramData address is the PDA [program id] of the loader, so both go
// together). Layouts:
// - BPF upgradeable loader (loader v3): solana-loader-v3-interface src/state.rs UpgradeableLoaderState,
//   bincode: a u32 tag, then Program (tag 2) { programdata_address: Pubkey } (36 bytes),
//   ProgramData (tag 3) { slot: u64, upgrade_authority_address: Option<Pubkey> } (Option: one tag byte,
//   then the key; 45 bytes of metadata before the ELF). No authority: the program can never change.
// - Loader v4: solana-loader-v4-interface src/state.rs LoaderV4State { slot: u64, authority_address_or_next_version:
//   Pubkey, status: LoaderV4Status u64 (0 Retracted, 1 Deployed, 2 Finalized) }: finalized is immutable.
// - BPF loaders v1 and v2 have no upgrade instruction: their programs are immutable.

const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111" as Address
const LOADER_V4 = "LoaderV411111111111111111111111111111111111" as Address
const IMMUTABLE_LOADERS: ReadonlySet<string> = new Set([
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111"
])

const PROGRAM_TAG = 2
const PROGRAM_DATA_TAG = 3
const PROGRAM_SIZE = 36
const PROGRAM_DATA_METADATA_SIZE = 45
const LOADER_V4_HEADER_SIZE = 48
const LOADER_V4_FINALIZED = 2n

/** The ProgramData account of an upgradeable program: find_program_address([program id], loader). */
const programDataAddressOf = (program: Address): Address =>
  findProgramAddressSync(UPGRADEABLE_LOADER, [keyBytes(program)])

/** Round 2: the hook program and its ProgramData, one call; nothing without a hook. */
export const readHookProgram = (
  { rpc, slot }: ScanContext,
  program: Address | undefined
): Promise<AccountInfos | Error | undefined> =>
  program === undefined
    ? Promise.resolve(undefined)
    : readAccounts(rpc, [program, programDataAddressOf(program)], slot).then(
        (read) => read.infos as AccountInfos,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
      )

type HookFact = NonNullable<ScanEvidenceV2["transferHookProgram"]>

/** What the program account and its ProgramData say: upgradeable, and by whom. */
export const hookProgramOf = (
  ctx: ScanContext,
  program: Address | undefined,
  read: AccountInfos | Error | undefined
): HookFact => {
  if (program === undefined) return notApplicable("no TransferHook extension, or one without a program")
  if (read === undefined) return notObserved("hook program not read")
  if (read instanceof Error) return ctx.gaps.missed("transfer hook program", read)
  const info = read.get(program) ?? null
  if (info === null) return notObserved(`hook program ${program}: no account`)
  if (IMMUTABLE_LOADERS.has(info.owner))
    return observed({ programId: ours(program), upgradeable: false, upgradeAuthority: null })
  if (info.owner === LOADER_V4) {
    if (info.data.length < LOADER_V4_HEADER_SIZE) return notObserved(`hook program ${program}: short loader-v4 account`)
    const finalized = u64At(info.data, 40) === LOADER_V4_FINALIZED
    return observed({
      programId: ours(program),
      upgradeable: !finalized,
      upgradeAuthority: finalized ? null : ours(addressAt(info.data, 8))
    })
  }
  if (info.owner !== UPGRADEABLE_LOADER)
    return notObserved(`hook program ${program}: owned by ${info.owner}, not a BPF loader`)
  if (info.data.length < PROGRAM_SIZE || view(info.data).getUint32(0, true) !== PROGRAM_TAG)
    return notObserved(`hook program ${program}: not an upgradeable loader Program account`)
  const programData = addressAt(info.data, 4)
  const dataInfo = programData === programDataAddressOf(program) ? (read.get(programData) ?? null) : null
  if (dataInfo === null || dataInfo.owner !== UPGRADEABLE_LOADER)
    return notObserved(`hook program ${program}: ProgramData ${programData} not read`)
  const data = dataInfo.data
  const option = data[12]
  if (
    data.length < PROGRAM_DATA_METADATA_SIZE - 32 ||
    view(data).getUint32(0, true) !== PROGRAM_DATA_TAG ||
    (option !== 0 && option !== 1)
  )
    return notObserved(`hook program ${program}: ProgramData ${programData} does not decode`)
  const hasAuthority = option === 1
  if (hasAuthority && data.length < PROGRAM_DATA_METADATA_SIZE)
    return notObserved(`hook program ${program}: ProgramData ${programData} is short`)
  return observed({
    programId: ours(program),
    upgradeable: hasAuthority,
    upgradeAuthority: hasAuthority ? ours(addressAt(data, 13)) : null
  })
}
