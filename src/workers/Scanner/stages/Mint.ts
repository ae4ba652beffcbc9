import type { Address, Slot } from "@solana/kit"
import { type Extension, getMintDecoder } from "@solana-program/token-2022"
import { type Fact, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../Programs.ts"
import type { ScanRpc } from "../Rpc.ts"
import { type AccountInfo, type AccountInfos, readAccounts } from "./Accounts.ts"
import { describe, ours, ScanFailed, uiAmount } from "./Context.ts"
import { type TlvEntry, tlvEntries, withoutUnknown } from "./Extensions.ts"

// Stage "accounts and mint", round 1: one getMultipleAccounts of the mint and of the accounts the other
// stages ask for at once (the Metaplex metadata PDA, the reference pool, the canonical pools). Its
// answer's slot pins every later read. A mint that cannot be read or decoded fails the scan: ScanFailed.

const mintDecoder = getMintDecoder()

/** Round 1: the mint and the other stages' first accounts, at the slot every later read must reach. */
export const readFirst = async (
  rpc: ScanRpc,
  mint: Address,
  others: ReadonlyArray<Address>
): Promise<{ readonly slot: Slot; readonly infos: AccountInfos }> => {
  try {
    return await readAccounts(rpc, [...new Set([mint, ...others])], undefined)
  } catch (error) {
    throw new ScanFailed(`mint account: ${describe(error)}`, false)
  }
}

export interface MintFacts {
  readonly info: AccountInfo
  readonly program: "spl-token" | "token-2022"
  readonly supplyRaw: bigint
  readonly decimals: number
  readonly mintAuthority: Address | null
  readonly freezeAuthority: Address | null
  readonly extensions: ReadonlyArray<Extension>
  readonly tlv: ReadonlyArray<TlvEntry>
}

/** The mint account decoded, or ScanFailed (permanent when there is no initialised token mint there). */
export const mintOf = (mint: Address, infos: AccountInfos): MintFacts => {
  const info = infos.get(mint) ?? null
  if (info === null) throw new ScanFailed(`no account at ${mint}`, true)
  const program =
    info.owner === TOKEN_PROGRAM_ADDRESS
      ? ("spl-token" as const)
      : info.owner === TOKEN_2022_PROGRAM_ADDRESS
        ? ("token-2022" as const)
        : undefined
  if (program === undefined) throw new ScanFailed(`not a token mint: ${mint} is owned by ${info.owner}`, true)
  if (info.data.length < 82) throw new ScanFailed(`mint account too short (${info.data.length} bytes)`, false)
  const tlv = program === "token-2022" ? tlvEntries(info.data) : []
  let decoded: ReturnType<typeof mintDecoder.decode>
  try {
    decoded = mintDecoder.decode(withoutUnknown(info.data, tlv))
  } catch (error) {
    throw new ScanFailed(`mint account does not decode: ${describe(error)}`, false)
  }
  if (!decoded.isInitialized) throw new ScanFailed(`mint ${mint} is not initialized`, true)
  return {
    info,
    program,
    supplyRaw: decoded.supply,
    decimals: decoded.decimals,
    mintAuthority: decoded.mintAuthority.__option === "Some" ? decoded.mintAuthority.value : null,
    freezeAuthority: decoded.freezeAuthority.__option === "Some" ? decoded.freezeAuthority.value : null,
    extensions: decoded.extensions.__option === "Some" ? decoded.extensions.value : [],
    tlv
  }
}

/** The evidence's token block; createdAt comes from the deployer stage. */
export const tokenFactsOf = (mint: MintFacts, createdAt: Fact<string>): ScanEvidenceV2["token"] => ({
  program: observed(mint.program),
  supply: observed(uiAmount(mint.supplyRaw, mint.decimals)),
  supplyRaw: observed(mint.supplyRaw.toString()),
  decimals: observed(mint.decimals),
  mintAuthority: observed(mint.mintAuthority === null ? null : ours(mint.mintAuthority)),
  freezeAuthority: observed(mint.freezeAuthority === null ? null : ours(mint.freezeAuthority)),
  createdAt
})
