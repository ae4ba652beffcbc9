import { type Address, address, getAddressDecoder, getBase64Encoder, isAddress, type Slot } from "@solana/kit"
import type { Address as EvidenceAddress } from "../Domain/Address.ts"
import { type Extension, getMintDecoder } from "@solana-program/token-2022"
import {
  type Fact,
  type HolderV2,
  type MintExtension,
  notApplicable,
  notObserved,
  observed,
  type ScanEvidenceV2
} from "../Domain/EvidenceV2.ts"
import { decodeMetaplexMetadata } from "./Metaplex.ts"
import { INCINERATOR, metaplexMetadataAddress, METAPLEX_METADATA_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, venueIndexOf } from "./Programs.ts"
import { CallBudgetExhausted, type ScanRpc } from "./Rpc.ts"

// One scan of one mint over standard JSON-RPC, in at most six round trips for a token with 20 holders:
//   1. getMultipleAccounts [mint, Metaplex metadata PDA]            (pins the slot every later read needs)
//   2. getTokenLargestAccounts ‖ getSignaturesForAddress (paged back within a budget)
//   3. getMultipleAccounts of the largest token accounts (their owners)
//   4. getMultipleAccounts of those owners (what program owns them) ‖ getTransaction of the oldest signature
// Every read that fails or answers inconsistently (wrong owner, short data, a slot older than the pinned
// one) leaves its facts not_observed and marks the scan partial; nothing is ever filled with a safe default.

export interface ScanSettings {
  /** Pages of 1,000 signatures read back to find the mint's first transaction. */
  readonly signaturePages: number
  readonly scannerVersion: string
  /** Curated issuers (src/Scanner/issuers.json or SCANNER_ISSUERS_FILE). */
  readonly issuers: ReadonlyMap<string, { readonly issuer: string; readonly source: string }>
  /** Labelled exchange wallets, by owner address. */
  readonly exchangeLabels: ReadonlyMap<string, { readonly label: string; readonly source: string }>
}

/** The mint cannot be scanned now (no account, not a token mint, RPC down): nothing is stored, the request is retried. */
export class ScanFailed extends Error {
  readonly _tag = "ScanFailed"
  constructor(readonly reason: string, readonly permanent: boolean) {
    super(reason)
  }
}

const COMMITMENT = "confirmed" as const
const SLOTS_PER_EPOCH = 432_000n // mainnet's fixed epoch length (no warm-up epochs)
const base64 = getBase64Encoder()
const mintDecoder = getMintDecoder()

const EXTENSION_TYPES: Record<string, number> = {
  Uninitialized: 0, TransferFeeConfig: 1, TransferFeeAmount: 2, MintCloseAuthority: 3, ConfidentialTransferMint: 4,
  ConfidentialTransferAccount: 5, DefaultAccountState: 6, ImmutableOwner: 7, MemoTransfer: 8, NonTransferable: 9,
  InterestBearingConfig: 10, CpiGuard: 11, PermanentDelegate: 12, NonTransferableAccount: 13, TransferHook: 14,
  TransferHookAccount: 15, ConfidentialTransferFee: 16, ConfidentialTransferFeeAmount: 17, MetadataPointer: 18,
  TokenMetadata: 19, GroupPointer: 20, TokenGroup: 21, GroupMemberPointer: 22, TokenGroupMember: 23,
  ConfidentialMintBurn: 24, ScaledUiAmountConfig: 25, PausableConfig: 26, PausableAccount: 27, PermissionedBurn: 28
}
const KNOWN_TYPES = new Set(Object.values(EXTENSION_TYPES))
const ACCOUNT_STATES = ["uninitialized", "initialized", "frozen"] as const

/** The extension TLV entries of a Token-2022 mint: type numbers and where each sits. */
export const tlvEntries = (data: Uint8Array): ReadonlyArray<{ readonly type: number; readonly start: number; readonly end: number }> => {
  const entries: Array<{ type: number; start: number; end: number }> = []
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
const withoutUnknown = (data: Uint8Array, entries: ReturnType<typeof tlvEntries>): Uint8Array => {
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

const ZERO_ADDRESS = SYSTEM_PROGRAM // 32 zero bytes: an OptionalNonZeroPubkey that is unset

// kit's Address and the evidence's Address brand the same validated base58 string.
const ours = (value: Address): EvidenceAddress => value as string as EvidenceAddress

type Setting = string | number | boolean | null
const isOption = (value: unknown): value is { __option: "Some"; value: unknown } | { __option: "None" } =>
  typeof value === "object" && value !== null && "__option" in value

/** Any decoded extension as names, addresses and scalar settings (u64 as decimal strings). */
export const extensionFact = (extension: Extension): MintExtension => {
  const addresses: Record<string, EvidenceAddress | null> = {}
  const settings: Record<string, Setting> = {}
  const put = (key: string, value: unknown): void => {
    if (isOption(value)) return value.__option === "Some" ? put(key, value.value) : void (/authority|delegate|address|pubkey|program/i.test(key) ? addresses[key] = null : settings[key] = null)
    if (typeof value === "string" && isAddress(value) && !/^(name|symbol|uri)$/.test(key)) {
      addresses[key] = value === ZERO_ADDRESS ? null : ours(value)
    } else if (typeof value === "bigint") settings[key] = value.toString()
    else if (typeof value === "number" || typeof value === "boolean") settings[key] = value
    else if (typeof value === "string") settings[key] = value.slice(0, 1_000)
    else if (value instanceof Map) {
      for (const [k, v] of value) if (Object.keys(settings).length < 64) settings[`${key}.${String(k)}`.slice(0, 100)] = String(v).slice(0, 1_000)
    } else if (typeof value === "object" && value !== null && !(value instanceof Uint8Array) && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) put(`${key}.${k}`, v)
    }
  }
  for (const [key, value] of Object.entries(extension)) {
    if (key === "__kind") continue
    if (extension.__kind === "DefaultAccountState" && key === "state") settings["state"] = ACCOUNT_STATES[value as number] ?? String(value)
    else put(key, value)
  }
  return { name: extension.__kind, type: EXTENSION_TYPES[extension.__kind] ?? -1, addresses, settings }
}

interface AccountInfo {
  readonly owner: Address
  readonly data: Uint8Array
}

const infoOf = (value: { readonly owner: Address; readonly data: readonly [string, string] } | null): AccountInfo | null =>
  value === null ? null : { owner: value.owner, data: base64.encode(value.data[0]) as Uint8Array }

const describe = (error: unknown): string =>
  error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300)

/** Token account layout (SPL and Token-2022 share the first 165 bytes): mint, owner, amount. */
const tokenAccountOf = (data: Uint8Array) => {
  if (data.length < 165) return undefined
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  return {
    mint: address(base58(data.subarray(0, 32))),
    owner: address(base58(data.subarray(32, 64))),
    amount: view.getBigUint64(64, true)
  }
}

const addressDecoder = getAddressDecoder()
const base58 = (bytes: Uint8Array): string => addressDecoder.decode(bytes)

const pctOf = (amount: bigint, supply: bigint): number =>
  supply === 0n ? 0 : Math.min(100, Number((amount * 1_000_000n) / supply) / 10_000)

const uiAmount = (raw: bigint, decimals: number): number => Number(raw) / 10 ** decimals

/** Scans one mint: the evidence, full or partial; ScanFailed when there is nothing to record. */
export const scanMint = async (
  rpc: ScanRpc,
  calls: () => number,
  mint: Address,
  settings: ScanSettings,
  /** Community lists that include the mint (imported by the operator; read from the database by the worker). */
  listed: ScanEvidenceV2["listed"] = []
): Promise<ScanEvidenceV2> => {
  const started = performance.now()
  const partial: Array<string> = []
  const missed = (what: string, error: unknown): Fact<never> => {
    const reason = error instanceof CallBudgetExhausted ? `${what}: call budget spent` : `${what}: ${describe(error)}`
    partial.push(reason)
    return notObserved(reason)
  }

  // 1. The mint and its Metaplex metadata, at one slot that pins every later read.
  const metadataAddress = await metaplexMetadataAddress(mint)
  let first
  try {
    first = await rpc.getMultipleAccounts([mint, metadataAddress], { encoding: "base64", commitment: COMMITMENT }).send()
  } catch (error) {
    throw new ScanFailed(`mint account: ${describe(error)}`, false)
  }
  const slot: Slot = first.context.slot
  const mintInfo = infoOf(first.value[0] ?? null)
  if (mintInfo === null) throw new ScanFailed(`no account at ${mint}`, true)
  const program = mintInfo.owner === TOKEN_PROGRAM_ADDRESS
    ? "spl-token" as const
    : mintInfo.owner === TOKEN_2022_PROGRAM_ADDRESS
    ? "token-2022" as const
    : undefined
  if (program === undefined) throw new ScanFailed(`not a token mint: ${mint} is owned by ${mintInfo.owner}`, true)
  if (mintInfo.data.length < 82) throw new ScanFailed(`mint account too short (${mintInfo.data.length} bytes)`, false)
  const tlv = program === "token-2022" ? tlvEntries(mintInfo.data) : []
  let decoded
  try {
    decoded = mintDecoder.decode(withoutUnknown(mintInfo.data, tlv))
  } catch (error) {
    throw new ScanFailed(`mint account does not decode: ${describe(error)}`, false)
  }
  if (!decoded.isInitialized) throw new ScanFailed(`mint ${mint} is not initialized`, true)
  const supplyRaw = decoded.supply
  const decimals = decoded.decimals
  const extensions = decoded.extensions.__option === "Some" ? decoded.extensions.value : []
  const extensionFacts: Array<MintExtension> = [
    ...extensions.map(extensionFact),
    ...tlv.filter((entry) => !KNOWN_TYPES.has(entry.type)).map((entry) => ({ name: "Unknown", type: entry.type, addresses: {}, settings: {} }))
  ]
  const find = <K extends Extension["__kind"]>(kind: K) =>
    extensions.find((extension): extension is Extract<Extension, { __kind: K }> => extension.__kind === kind)

  const feeConfig = find("TransferFeeConfig")
  const epoch = slot / SLOTS_PER_EPOCH
  const transferFee = program === "spl-token"
    ? notApplicable("SPL Token mints have no transfer fee")
    : feeConfig === undefined
    ? notApplicable("no TransferFeeConfig extension")
    : (() => {
      const current = epoch >= feeConfig.newerTransferFee.epoch ? feeConfig.newerTransferFee : feeConfig.olderTransferFee
      const scheduled = current === feeConfig.olderTransferFee && feeConfig.newerTransferFee.transferFeeBasisPoints !== current.transferFeeBasisPoints
        ? feeConfig.newerTransferFee.transferFeeBasisPoints
        : null
      return observed({
        bps: current.transferFeeBasisPoints,
        maxFee: current.maximumFee.toString(),
        configAuthority: feeConfig.transferFeeConfigAuthority === ZERO_ADDRESS ? null : ours(feeConfig.transferFeeConfigAuthority),
        withdrawAuthority: feeConfig.withdrawWithheldAuthority === ZERO_ADDRESS ? null : ours(feeConfig.withdrawWithheldAuthority),
        scheduledBps: scheduled
      })
    })()

  // Metadata: Token-2022's own extension first, else the Metaplex account.
  const tokenMetadata = find("TokenMetadata")
  const metaplexInfo = infoOf(first.value[1] ?? null)
  const metadata: ScanEvidenceV2["metadata"] = tokenMetadata !== undefined
    ? observed({
      source: "token-2022",
      name: tokenMetadata.name.slice(0, 200),
      symbol: tokenMetadata.symbol.slice(0, 50),
      uri: tokenMetadata.uri.slice(0, 500),
      mutable: tokenMetadata.updateAuthority.__option === "Some",
      updateAuthority: tokenMetadata.updateAuthority.__option === "Some" ? ours(tokenMetadata.updateAuthority.value) : null
    })
    : metaplexInfo === null
    ? notObserved("no Metaplex metadata account and no TokenMetadata extension")
    : metaplexInfo.owner !== METAPLEX_METADATA_PROGRAM
    ? missed("metadata", `metadata account owned by ${metaplexInfo.owner}, not the Metaplex program`)
    : (() => {
      const meta = decodeMetaplexMetadata(metaplexInfo.data)
      if (meta === undefined || meta.mint !== mint) return missed("metadata", "Metaplex account does not decode for this mint")
      return observed({
        source: "metaplex" as const,
        name: meta.name.slice(0, 200),
        symbol: meta.symbol.slice(0, 50),
        uri: meta.uri.slice(0, 500),
        mutable: meta.isMutable,
        updateAuthority: ours(meta.updateAuthority)
      })
    })()

  // 2. Largest holders and the signature history, side by side.
  const largestRead = rpc.getTokenLargestAccounts(mint, { commitment: COMMITMENT }).send()
    .then((answer) => {
      if (answer.context.slot < slot) throw new Error(`answer from slot ${answer.context.slot}, older than ${slot}`)
      return answer.value
    })
  const historyRead = (async () => {
    let before: string | undefined
    let oldest: { signature: string; slot: bigint; blockTime: bigint | null } | undefined
    for (let page = 0; page < settings.signaturePages; page++) {
      const batch = await rpc.getSignaturesForAddress(mint, {
        commitment: COMMITMENT,
        limit: 1_000,
        minContextSlot: slot,
        ...(before === undefined ? {} : { before: before as never })
      }).send()
      const last = batch.at(-1)
      if (last !== undefined) {
        oldest = { signature: last.signature, slot: last.slot, blockTime: last.blockTime === null ? null : BigInt(last.blockTime) }
        before = last.signature
      }
      if (batch.length < 1_000) return { complete: true as const, oldest }
    }
    return { complete: false as const, oldest }
  })()
  const [largest, history] = await Promise.allSettled([largestRead, historyRead])

  // 3. The largest accounts' owners; 4. what owns those owners, and the first transaction's fee payer.
  let holdersTop: ScanEvidenceV2["holders"]["top"]
  let ownerInfos = new Map<string, AccountInfo | null>()
  let rows: Array<{ tokenAccount: Address; owner: Address; amount: bigint }> = []
  if (largest.status === "rejected") holdersTop = missed("largest holders", largest.reason)
  else {
    try {
      const accounts = largest.value.filter((entry) => BigInt(entry.amount) > 0n).slice(0, 20)
      if (accounts.length > 0) {
        const answer = await rpc.getMultipleAccounts(accounts.map((entry) => entry.address), { encoding: "base64", commitment: COMMITMENT, minContextSlot: slot }).send()
        for (const [i, value] of answer.value.entries()) {
          const info = infoOf(value ?? null)
          const parsed = info === null || info.owner !== mintInfo.owner ? undefined : tokenAccountOf(info.data)
          if (parsed === undefined || parsed.mint !== mint) {
            partial.push(`holder ${accounts[i]!.address}: not a token account of this mint`)
            continue
          }
          rows.push({ tokenAccount: accounts[i]!.address, owner: parsed.owner, amount: parsed.amount })
        }
      }
      holdersTop = observed([]) // filled below once owners are classified
    } catch (error) {
      holdersTop = missed("largest holders' owners", error)
      rows = []
    }
  }

  const owners = [...new Set(rows.map((row) => row.owner))]
  const oldest = history.status === "fulfilled" ? history.value.oldest : undefined
  const [ownerRead, firstTransaction] = await Promise.allSettled([
    owners.length === 0
      ? Promise.resolve(new Map<string, AccountInfo | null>())
      : rpc.getMultipleAccounts(owners, { encoding: "base64", commitment: COMMITMENT, minContextSlot: slot }).send()
        .then((answer) => new Map(owners.map((owner, i) => [owner, infoOf(answer.value[i] ?? null)]))),
    history.status === "fulfilled" && history.value.complete && oldest !== undefined
      ? rpc.getTransaction(oldest.signature as never, { commitment: COMMITMENT, encoding: "json", maxSupportedTransactionVersion: 0 }).send()
      : Promise.resolve(null)
  ])
  if (ownerRead.status === "fulfilled") ownerInfos = ownerRead.value
  else if (owners.length > 0) partial.push(`holder owners: ${describe(ownerRead.reason)}`)

  const deployer: ScanEvidenceV2["deployer"] = history.status === "rejected"
    ? missed("signature history", history.reason)
    : !history.value.complete
    ? notObserved(`first transaction not reached within ${settings.signaturePages * 1_000} signatures`)
    : oldest === undefined
    ? notObserved("no transaction touches the mint")
    : firstTransaction.status === "rejected"
    ? missed("first transaction", firstTransaction.reason)
    : firstTransaction.value === null
    ? missed("first transaction", "not found")
    : (() => {
      const payer = firstTransaction.value.transaction.message.accountKeys[0]
      return payer === undefined ? missed("first transaction", "no fee payer") : observed({
        address: ours(payer),
        signature: oldest.signature,
        slot: Number(oldest.slot),
        at: oldest.blockTime === null ? null : new Date(Number(oldest.blockTime) * 1000).toISOString()
      })
    })()
  const deployerAddress: string | undefined = deployer.status === "observed" ? deployer.value.address : undefined

  const venues = await venueIndexOf()
  const classify = (owner: Address): Pick<HolderV2, "kind" | "label" | "labelSource"> => {
    if (owner === INCINERATOR || owner === SYSTEM_PROGRAM) return { kind: "burn", label: "incinerator", labelSource: "no private key exists for this address" }
    const byAuthority = venues.byAuthority.get(owner)
    if (byAuthority !== undefined) return { kind: byAuthority.kind, label: byAuthority.label, labelSource: `authority of ${byAuthority.program} (${byAuthority.source})` }
    const info = ownerInfos.get(owner)
    const byProgram = info === null || info === undefined ? undefined : venues.byProgram.get(info.owner)
    if (byProgram !== undefined) return { kind: byProgram.kind, label: byProgram.label, labelSource: `account owned by ${byProgram.program} (${byProgram.source})` }
    if (owner === deployerAddress) return { kind: "creator", label: "deployer", labelSource: "fee payer of the mint's first transaction" }
    const exchange = settings.exchangeLabels.get(owner)
    if (exchange !== undefined) return { kind: "exchange", label: exchange.label, labelSource: exchange.source }
    return { kind: "holder", label: null, labelSource: null }
  }
  if (holdersTop.status === "observed") {
    holdersTop = observed(rows.map((row): HolderV2 => ({
      address: ours(row.owner),
      tokenAccount: ours(row.tokenAccount),
      amount: row.amount.toString(),
      pct: pctOf(row.amount, supplyRaw),
      ...classify(row.owner)
    })))
  }
  const top = holdersTop.status === "observed" ? holdersTop.value : []
  const creatorPct: Fact<number> = holdersTop.status !== "observed"
    ? notObserved("largest holders not observed")
    : deployerAddress === undefined
    ? notObserved("deployer not observed")
    : observed(Math.min(100, top.filter((holder) => holder.kind === "creator").reduce((sum, holder) => sum + holder.pct, 0)))

  const issuer = settings.issuers.get(mint) ?? null
  const deployedAt = deployer.status === "observed" && deployer.value.at !== null ? observed(deployer.value.at) : notObserved("creation time not observed")
  const NOT_READ = "read by the pool scanner (not in this version)"

  return {
    version: 2,
    mint: ours(mint),
    scannedAt: new Date().toISOString(),
    scanDepth: partial.length === 0 ? "full" : "partial",
    source: "risk-api-scanner",
    provenance: {
      scanner: `risk-api-scanner/${settings.scannerVersion}`,
      slot: Number(slot),
      rpcCalls: calls(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      partial: partial.slice(0, 50).map((reason) => reason.slice(0, 500))
    },
    token: {
      program: observed(program),
      supply: observed(uiAmount(supplyRaw, decimals)),
      supplyRaw: observed(supplyRaw.toString()),
      decimals: observed(decimals),
      mintAuthority: observed(decoded.mintAuthority.__option === "Some" ? ours(decoded.mintAuthority.value) : null),
      freezeAuthority: observed(decoded.freezeAuthority.__option === "Some" ? ours(decoded.freezeAuthority.value) : null),
      createdAt: deployedAt
    },
    extensions: program === "spl-token" ? notApplicable("SPL Token mints have no extensions") : observed(extensionFacts),
    transferFee,
    tradingTax: notObserved(NOT_READ),
    honeypot: notObserved(NOT_READ),
    metadata,
    copycatOf: notObserved("not checked by the scanner"),
    holders: {
      count: notObserved("counting every holder needs getProgramAccounts over all token accounts; not read"),
      top: holdersTop,
      creatorPct,
      bundledLaunchPct: notObserved("launch-block bundles are not read")
    },
    deployer,
    deployerRecord: { priorLaunches: null, priorRugs: null, priorHoneypots: null, flagged: null },
    liquidity: {
      liquidityUsd: notObserved(NOT_READ),
      poolCount: notObserved(NOT_READ),
      lpLocked: notObserved(NOT_READ),
      lpLockedPct: notObserved(NOT_READ),
      lpLockExpiresAt: notObserved(NOT_READ),
      pools: notObserved(NOT_READ)
    },
    market: notObserved("market figures are not readable from plain RPC"),
    aml: notObserved("holder screening is not read by the scanner"),
    issuerVerified: issuer,
    listed,
    outcome: null
  }
}
