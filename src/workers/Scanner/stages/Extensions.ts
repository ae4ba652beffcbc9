import { type Address, isAddress, type Slot } from "@solana/kit"
import type { Extension } from "@solana-program/token-2022"
import type { Address as EvidenceAddress } from "../../../domain/Address.ts"
import { type MintExtension, notApplicable, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { SYSTEM_PROGRAM } from "../Programs.ts"
import { ours } from "./Context.ts"

// Stage "extensions": a Token-2022 mint's extensions, decoded from the mint account the first read
// brought (no call of its own). The TLV walk lets the mint decode when it carries an extension type
// the decoder does not know yet: that entry is reported as "Unknown" with its type number.

const EXTENSION_TYPES: Record<string, number> = {
  Uninitialized: 0,
  TransferFeeConfig: 1,
  TransferFeeAmount: 2,
  MintCloseAuthority: 3,
  ConfidentialTransferMint: 4,
  ConfidentialTransferAccount: 5,
  DefaultAccountState: 6,
  ImmutableOwner: 7,
  MemoTransfer: 8,
  NonTransferable: 9,
  InterestBearingConfig: 10,
  CpiGuard: 11,
  PermanentDelegate: 12,
  NonTransferableAccount: 13,
  TransferHook: 14,
  TransferHookAccount: 15,
  ConfidentialTransferFee: 16,
  ConfidentialTransferFeeAmount: 17,
  MetadataPointer: 18,
  TokenMetadata: 19,
  GroupPointer: 20,
  TokenGroup: 21,
  GroupMemberPointer: 22,
  TokenGroupMember: 23,
  ConfidentialMintBurn: 24,
  ScaledUiAmountConfig: 25,
  PausableConfig: 26,
  PausableAccount: 27,
  PermissionedBurn: 28
}
const KNOWN_TYPES = new Set(Object.values(EXTENSION_TYPES))
const ACCOUNT_STATES = ["uninitialized", "initialized", "frozen"] as const
const SLOTS_PER_EPOCH = 432_000n // mainnet's fixed epoch length (no warm-up epochs)

export const ZERO_ADDRESS = SYSTEM_PROGRAM // 32 zero bytes: an OptionalNonZeroPubkey that is unset

export type TlvEntry = { readonly type: number; readonly start: number; readonly end: number }

/** The extension TLV entries of a Token-2022 mint: type numbers and where each sits. */
export const tlvEntries = (data: Uint8Array): ReadonlyArray<TlvEntry> => {
  const entries: Array<TlvEntry> = []
  if (data.length <= 166 || data[165] !== 1) return entries
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  let offset = 166
  while (offset + 4 <= data.length) {
    const type = view.getUint16(offset, true)
    const length = view.getUint16(offset + 2, true)
    if (type === 0 && length === 0) break
    if (offset + 4 + length > data.length) break
    entries.push({ type, start: offset, end: offset + 4 + length })
    offset += 4 + length
  }
  return entries
}

/** Drops TLV entries the decoder does not know, so the known ones still decode. */
export const withoutUnknown = (data: Uint8Array, entries: ReadonlyArray<TlvEntry>): Uint8Array => {
  if (entries.every((entry) => KNOWN_TYPES.has(entry.type))) return data
  const kept = entries.filter((entry) => KNOWN_TYPES.has(entry.type))
  const out = new Uint8Array(166 + kept.reduce((sum, entry) => sum + entry.end - entry.start, 0))
  out.set(data.subarray(0, 166))
  let at = 166
  for (const entry of kept) {
    out.set(data.subarray(entry.start, entry.end), at)
    at += entry.end - entry.start
  }
  return out
}

type Setting = string | number | boolean | null
const isOption = (value: unknown): value is { __option: "Some"; value: unknown } | { __option: "None" } =>
  typeof value === "object" && value !== null && "__option" in value

/** Any decoded extension as names, addresses and scalar settings (u64 as decimal strings). */
const extensionFact = (extension: Extension): MintExtension => {
  const addresses: Record<string, EvidenceAddress | null> = {}
  const settings: Record<string, Setting> = {}
  const put = (key: string, value: unknown): void => {
    if (isOption(value)) {
      if (value.__option === "Some") put(key, value.value)
      else if (/authority|delegate|address|pubkey|program/i.test(key)) addresses[key] = null
      else settings[key] = null
      return
    }
    if (typeof value === "string" && isAddress(value) && !/^(name|symbol|uri)$/.test(key)) {
      addresses[key] = value === ZERO_ADDRESS ? null : ours(value)
    } else if (typeof value === "bigint") settings[key] = value.toString()
    else if (typeof value === "number" || typeof value === "boolean") settings[key] = value
    else if (typeof value === "string") settings[key] = value.slice(0, 1_000)
    else if (value instanceof Map) {
      for (const [k, v] of value)
        if (Object.keys(settings).length < 64) settings[`${key}.${String(k)}`.slice(0, 100)] = String(v).slice(0, 1_000)
    } else if (typeof value === "object" && value !== null && !(value instanceof Uint8Array) && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) put(`${key}.${k}`, v)
    }
  }
  for (const [key, value] of Object.entries(extension)) {
    if (key === "__kind") continue
    if (extension.__kind === "DefaultAccountState" && key === "state")
      settings.state = ACCOUNT_STATES[value as number] ?? String(value)
    else put(key, value)
  }
  return { name: extension.__kind, type: EXTENSION_TYPES[extension.__kind] ?? -1, addresses, settings }
}

export const findExtension = <K extends Extension["__kind"]>(extensions: ReadonlyArray<Extension>, kind: K) =>
  extensions.find((extension): extension is Extract<Extension, { __kind: K }> => extension.__kind === kind)

export interface ExtensionFacts {
  readonly extensions: ScanEvidenceV2["extensions"]
  readonly transferFee: ScanEvidenceV2["transferFee"]
  /** A hooked mint's transfer carries its hook's accounts, or the simulation fails for want of them. */
  readonly hookProgram: Address | undefined
}

/** The extensions, the transfer fee in effect at the pinned slot's epoch, and the transfer hook. */
export const extensionFactsOf = (
  program: "spl-token" | "token-2022",
  extensions: ReadonlyArray<Extension>,
  tlv: ReadonlyArray<TlvEntry>,
  slot: Slot
): ExtensionFacts => {
  const facts: Array<MintExtension> = [
    ...extensions.map(extensionFact),
    ...tlv
      .filter((entry) => !KNOWN_TYPES.has(entry.type))
      .map((entry) => ({ name: "Unknown", type: entry.type, addresses: {}, settings: {} }))
  ]
  const hook = findExtension(extensions, "TransferHook")
  return {
    extensions: program === "spl-token" ? notApplicable("SPL Token mints have no extensions") : observed(facts),
    transferFee: transferFeeOf(program, findExtension(extensions, "TransferFeeConfig"), slot),
    hookProgram: hook !== undefined && hook.programId !== ZERO_ADDRESS ? hook.programId : undefined
  }
}

const transferFeeOf = (
  program: "spl-token" | "token-2022",
  feeConfig: Extract<Extension, { __kind: "TransferFeeConfig" }> | undefined,
  slot: Slot
): ScanEvidenceV2["transferFee"] => {
  if (program === "spl-token") return notApplicable("SPL Token mints have no transfer fee")
  if (feeConfig === undefined) return notApplicable("no TransferFeeConfig extension")
  const epoch = slot / SLOTS_PER_EPOCH
  const current = epoch >= feeConfig.newerTransferFee.epoch ? feeConfig.newerTransferFee : feeConfig.olderTransferFee
  const scheduled =
    current === feeConfig.olderTransferFee &&
    feeConfig.newerTransferFee.transferFeeBasisPoints !== current.transferFeeBasisPoints
      ? feeConfig.newerTransferFee.transferFeeBasisPoints
      : null
  return observed({
    bps: current.transferFeeBasisPoints,
    maxFee: current.maximumFee.toString(),
    configAuthority:
      feeConfig.transferFeeConfigAuthority === ZERO_ADDRESS ? null : ours(feeConfig.transferFeeConfigAuthority),
    withdrawAuthority:
      feeConfig.withdrawWithheldAuthority === ZERO_ADDRESS ? null : ours(feeConfig.withdrawWithheldAuthority),
    scheduledBps: scheduled,
    // The epoch the newer fee takes over from (TransferFeeConfig.newer_transfer_fee.epoch), when one is scheduled.
    scheduledEpoch: scheduled === null ? null : Number(feeConfig.newerTransferFee.epoch)
  })
}
