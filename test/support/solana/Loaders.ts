import {
  type Address,
  getAddressCodec,
  getAddressEncoder,
  getOptionEncoder,
  getProgramDerivedAddress,
  getStructEncoder,
  getU8Encoder,
  getU32Encoder,
  getU64Encoder,
  none,
  some
} from "@solana/kit"
import type { World } from "./World.ts"

// On-chain programs as the loaders store them, written with setAccount (LiteSVM runs no deploy here):
// - BPF upgradeable loader (loader v3), solana-loader-v3-interface src/state.rs `UpgradeableLoaderState`,
//   serialised with bincode: a u32 enum tag, Program = 2 { programdata_address: Pubkey },
//   ProgramData = 3 { slot: u64, upgrade_authority_address: Option<Pubkey> } followed by the ELF; the
//   ProgramData account is the PDA [program id] of the loader and always reserves the 45 bytes
//   `size_of_programdata_metadata` (an Option is one tag byte, then the key).
// - BPF loader v2 (BPFLoader2111…): the account is the ELF itself, immutable.

const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111" as Address
const BPF_LOADER_2 = "BPFLoader2111111111111111111111111111111111" as Address

const PROGRAM_DATA_METADATA = 45
const ELF_STANDIN = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]) // "\x7fELF": the bytes are not run

const programEncoder = getStructEncoder([
  ["tag", getU32Encoder()],
  ["programdataAddress", getAddressEncoder()]
])
const programDataEncoder = getStructEncoder([
  ["tag", getU32Encoder()],
  ["slot", getU64Encoder()],
  ["upgradeAuthorityAddress", getOptionEncoder(getAddressCodec(), { prefix: getU8Encoder() })]
])

/** An upgradeable program at `program`: its Program account and ProgramData, with or without an upgrade authority. */
export const upgradeableProgram = async (
  world: World,
  program: Address,
  upgradeAuthority: Address | null
): Promise<{ readonly programData: Address }> => {
  const [programData] = await getProgramDerivedAddress({
    programAddress: UPGRADEABLE_LOADER,
    seeds: [getAddressEncoder().encode(program)]
  })
  world.setAccount(
    program,
    UPGRADEABLE_LOADER,
    Uint8Array.from(programEncoder.encode({ tag: 2, programdataAddress: programData })),
    true
  )
  const metadata = programDataEncoder.encode({
    tag: 3,
    slot: world.slot - 1_000n,
    upgradeAuthorityAddress: upgradeAuthority === null ? none() : some(upgradeAuthority)
  })
  const data = new Uint8Array(PROGRAM_DATA_METADATA + ELF_STANDIN.length)
  data.set(metadata)
  data.set(ELF_STANDIN, PROGRAM_DATA_METADATA)
  world.setAccount(programData, UPGRADEABLE_LOADER, data)
  return { programData }
}

/**
 * A program under BPF loader v2 (no upgrade instruction exists for it). Written not executable: LiteSVM
 * verifies the ELF of an executable loader-v2 account, and the scan reads only the owner.
 */
export const loaderV2Program = (world: World, program: Address): void =>
  world.setAccount(program, BPF_LOADER_2, ELF_STANDIN)
