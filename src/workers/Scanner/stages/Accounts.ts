import { type Address, address, getAddressDecoder, getBase64Encoder, type Slot } from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "../Programs.ts"
import type { ScanRpc } from "../Rpc.ts"
import { COMMITMENT } from "./Context.ts"

// Account reads and the token account layout every stage decodes.

export interface AccountInfo {
  readonly owner: Address
  readonly lamports: bigint
  readonly data: Uint8Array
}

export type AccountInfos = ReadonlyMap<string, AccountInfo | null>

const base64 = getBase64Encoder()
const addressDecoder = getAddressDecoder()
const base58 = (bytes: Uint8Array): string => addressDecoder.decode(bytes)

const infoOf = (
  value: { readonly owner: Address; readonly lamports: bigint; readonly data: readonly [string, string] } | null
): AccountInfo | null =>
  value === null
    ? null
    : { owner: value.owner, lamports: BigInt(value.lamports), data: base64.encode(value.data[0]) as Uint8Array }

/** getMultipleAccounts in chunks of 100 (the RPC's limit), sent together: one batch, one round trip. */
export const readAccounts = async (
  rpc: ScanRpc,
  addresses: ReadonlyArray<Address>,
  minContextSlot: Slot | undefined
) => {
  const chunks: Array<ReadonlyArray<Address>> = []
  for (let at = 0; at < addresses.length; at += 100) chunks.push(addresses.slice(at, at + 100))
  const answers = await Promise.all(
    chunks.map((chunk) =>
      rpc
        .getMultipleAccounts(chunk as Array<Address>, {
          encoding: "base64",
          commitment: COMMITMENT,
          ...(minContextSlot === undefined ? {} : { minContextSlot })
        })
        .send()
    )
  )
  const slot = answers.reduce(
    // biome-ignore lint/complexity/useMathMinMax: slots are bigints, which Math.min does not take
    (lowest, answer) => (answer.context.slot < lowest ? answer.context.slot : lowest),
    answers[0]?.context.slot ?? 0n
  )
  if (minContextSlot !== undefined && slot < minContextSlot)
    throw new Error(`answer from slot ${slot}, older than ${minContextSlot}`)
  const infos = new Map<string, AccountInfo | null>()
  answers.forEach((answer, i) => {
    chunks[i]!.forEach((at, j) => {
      infos.set(at, infoOf(answer.value[j] ?? null))
    })
  })
  return { slot, infos }
}

/** Token account layout (SPL and Token-2022 share the first 165 bytes): mint, owner, amount. */
export const tokenAccountOf = (data: Uint8Array) => {
  if (data.length < 165) return undefined
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  return {
    mint: address(base58(data.subarray(0, 32))),
    owner: address(base58(data.subarray(32, 64))),
    amount: view.getBigUint64(64, true)
  }
}

export const isTokenProgram = (owner: Address) =>
  owner === TOKEN_PROGRAM_ADDRESS || owner === TOKEN_2022_PROGRAM_ADDRESS

/** The amount in a token account of `mint`, when the account is one. */
export const balanceOf = (info: AccountInfo | null | undefined, mint: Address): bigint | undefined => {
  if (info === null || info === undefined || !isTokenProgram(info.owner)) return undefined
  const parsed = tokenAccountOf(info.data)
  return parsed === undefined || parsed.mint !== mint ? undefined : parsed.amount
}

/** Supply of a mint account. */
export const supplyOf = (info: AccountInfo | null | undefined): bigint | undefined =>
  info === null || info === undefined || !isTokenProgram(info.owner) || info.data.length < 82
    ? undefined
    : new DataView(info.data.buffer, info.data.byteOffset, info.data.byteLength).getBigUint64(36, true)
