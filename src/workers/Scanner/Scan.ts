import { type Address, address, getAddressDecoder, getBase64Encoder, isAddress, type Slot } from "@solana/kit"
import type { Address as EvidenceAddress } from "../../domain/Address.ts"
import { type Extension, getMintDecoder } from "@solana-program/token-2022"
import {
  type Fact,
  type HolderV2,
  type MintExtension,
  notApplicable,
  notObserved,
  observed,
  type ScanEvidenceV2,
  type SellCheck,
  type SellPath
} from "../../domain/EvidenceV2.ts"
import { decodeMetaplexMetadata } from "./Metaplex.ts"
import { liquidityOf, poolFiguresOf, type QuotePrice, sidesOf } from "./PoolFigures.ts"
import {
  canonicalPoolsOf,
  decodePool,
  discover,
  discoveryCalls,
  lockOf,
  poolProgramOf,
  QUOTE_MINTS,
  USDC,
  WSOL
} from "./PoolScan.ts"
import type { PoolState } from "./Pools/Venue.ts"
import { pumpSwapFeesOf } from "./Pools/Pump.ts"
import { holderQuoteAccount, simulateSwap, simulateTransfer, type SwapPool } from "./SellPath.ts"
import {
  INCINERATOR,
  metaplexMetadataAddress,
  METAPLEX_METADATA_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  venueIndexOf
} from "./Programs.ts"
import { CallBudgetExhausted, type ScanRpc, type ScanRpcCounter } from "./Rpc.ts"

// One scan of one mint over standard JSON-RPC, in at most six round trips for a token with 20 holders:
//   1. getMultipleAccounts [mint, Metaplex metadata PDA, reference pool, canonical pools] (pins the slot every later read needs)
//   2. getTokenLargestAccounts ‖ getSignaturesForAddress (paged back within a budget) ‖ pool discovery
//   3. getMultipleAccounts of the largest token accounts (their owners) ‖ getMultipleAccounts of the pools'
//      vaults, LP mints and related accounts (CPMM AmmConfig, PumpSwap GlobalConfig and FeeConfig, ...)
//   4. getMultipleAccounts of those owners (what program owns them) and of their associated accounts of
//      the swap pool's quote mint ‖ getTransaction of the oldest signature ‖ the LP mints' largest accounts
//   5. simulateTransaction of a transfer ‖ simulateTransaction of a swap ‖ the LP holders' accounts
//   6. getMultipleAccounts of the LP holders' owners
// Every read that fails or answers inconsistently (wrong owner, short data, a slot older than the pinned
// one) leaves its facts not_observed and marks the scan partial; nothing is ever filled with a safe default.

export interface ScanSettings {
  /** Pages of 1,000 signatures read back to find the mint's first transaction. */
  readonly signaturePages: number
  readonly scannerVersion: string
  /** Curated issuers (src/workers/Scanner/issuers.json or SCANNER_ISSUERS_FILE). */
  readonly issuers: ReadonlyMap<string, { readonly issuer: string; readonly source: string }>
  /** Labelled exchange wallets, by owner address. */
  readonly exchangeLabels: ReadonlyMap<string, { readonly label: string; readonly source: string }>
  /** The SOL–USDC pool SOL/USD is read from (SCANNER_REFERENCE_POOL). */
  readonly referencePool: Address
  /** Pools whose reserves a scan reads (SCANNER_MAX_POOLS), and LP pools whose holders it reads (SCANNER_MAX_LP_POOLS). */
  readonly maxPools: number
  readonly maxLpPools: number
}

/** The mint cannot be scanned now (no account, not a token mint, RPC down): nothing is stored, the request is retried. */
export class ScanFailed extends Error {
  readonly _tag = "ScanFailed"
  constructor(
    readonly reason: string,
    readonly permanent: boolean
  ) {
    super(reason)
  }
}

const COMMITMENT = "confirmed" as const
const SLOTS_PER_EPOCH = 432_000n // mainnet's fixed epoch length (no warm-up epochs)
const base64 = getBase64Encoder()
const mintDecoder = getMintDecoder()

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

/** The extension TLV entries of a Token-2022 mint: type numbers and where each sits. */
export const tlvEntries = (
  data: Uint8Array
): ReadonlyArray<{ readonly type: number; readonly start: number; readonly end: number }> => {
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
    if (isOption(value))
      return value.__option === "Some"
        ? put(key, value.value)
        : void (/authority|delegate|address|pubkey|program/i.test(key)
            ? (addresses[key] = null)
            : (settings[key] = null))
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

interface AccountInfo {
  readonly owner: Address
  readonly lamports: bigint
  readonly data: Uint8Array
}

const infoOf = (
  value: { readonly owner: Address; readonly lamports: bigint; readonly data: readonly [string, string] } | null
): AccountInfo | null =>
  value === null
    ? null
    : { owner: value.owner, lamports: BigInt(value.lamports), data: base64.encode(value.data[0]) as Uint8Array }

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

/** getMultipleAccounts in chunks of 100 (the RPC's limit), sent together: one batch, one round trip. */
const readAccounts = async (rpc: ScanRpc, addresses: ReadonlyArray<Address>, minContextSlot: Slot | undefined) => {
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
    (lowest, answer) => (answer.context.slot < lowest ? answer.context.slot : lowest),
    answers[0]?.context.slot ?? 0n
  )
  if (minContextSlot !== undefined && slot < minContextSlot)
    throw new Error(`answer from slot ${slot}, older than ${minContextSlot}`)
  const infos = new Map<string, AccountInfo | null>()
  answers.forEach((answer, i) => chunks[i]!.forEach((at, j) => infos.set(at, infoOf(answer.value[j] ?? null))))
  return { slot, infos }
}

const isTokenProgram = (owner: Address) => owner === TOKEN_PROGRAM_ADDRESS || owner === TOKEN_2022_PROGRAM_ADDRESS

/** The amount in a token account of `mint`, when the account is one. */
const balanceOf = (info: AccountInfo | null | undefined, mint: Address): bigint | undefined => {
  if (info === null || info === undefined || !isTokenProgram(info.owner)) return undefined
  const parsed = tokenAccountOf(info.data)
  return parsed === undefined || parsed.mint !== mint ? undefined : parsed.amount
}

/** Supply of a mint account. */
const supplyOf = (info: AccountInfo | null | undefined): bigint | undefined =>
  info === null || info === undefined || !isTokenProgram(info.owner) || info.data.length < 82
    ? undefined
    : new DataView(info.data.buffer, info.data.byteOffset, info.data.byteLength).getBigUint64(36, true)

const FROZEN = 2 // token account state byte at offset 108

/** Scans one mint: the evidence, full or partial; ScanFailed when there is nothing to record. */
export const scanMint = async (
  rpc: ScanRpc,
  counter: ScanRpcCounter,
  mint: Address,
  settings: ScanSettings,
  /** Community lists that include the mint (imported by the operator; read from the database by the worker). */
  listed: ScanEvidenceV2["listed"] = []
): Promise<ScanEvidenceV2> => {
  const started = performance.now()
  const partial: Array<string> = []
  const reasonOf = (what: string, error: unknown): string =>
    error instanceof CallBudgetExhausted ? `${what}: call budget spent` : `${what}: ${describe(error)}`
  const missed = (what: string, error: unknown): Fact<never> => {
    const reason = reasonOf(what, error)
    partial.push(reason)
    return notObserved(reason)
  }

  // 1. The mint, its Metaplex metadata, the reference SOL–USDC pool and the mint's canonical pools, at one
  //    slot that pins every later read.
  const quoteMints = [...QUOTE_MINTS.keys()] as Array<Address>
  const [metadataAddress, canonical] = await Promise.all([
    metaplexMetadataAddress(mint),
    canonicalPoolsOf(mint, quoteMints)
  ])
  const firstAddresses = [...new Set([mint, metadataAddress, settings.referencePool, ...canonical])]
  let first
  try {
    first = await readAccounts(rpc, firstAddresses, undefined)
  } catch (error) {
    throw new ScanFailed(`mint account: ${describe(error)}`, false)
  }
  const slot: Slot = first.slot
  const mintInfo = first.infos.get(mint) ?? null
  if (mintInfo === null) throw new ScanFailed(`no account at ${mint}`, true)
  const program =
    mintInfo.owner === TOKEN_PROGRAM_ADDRESS
      ? ("spl-token" as const)
      : mintInfo.owner === TOKEN_2022_PROGRAM_ADDRESS
        ? ("token-2022" as const)
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
    ...tlv
      .filter((entry) => !KNOWN_TYPES.has(entry.type))
      .map((entry) => ({ name: "Unknown", type: entry.type, addresses: {}, settings: {} }))
  ]
  const find = <K extends Extension["__kind"]>(kind: K) =>
    extensions.find((extension): extension is Extract<Extension, { __kind: K }> => extension.__kind === kind)

  const feeConfig = find("TransferFeeConfig")
  // A hooked mint's transfer carries its hook's accounts, or the simulation fails for want of them.
  const hook = find("TransferHook")
  const hookProgram = hook !== undefined && hook.programId !== ZERO_ADDRESS ? hook.programId : undefined
  const epoch = slot / SLOTS_PER_EPOCH
  const transferFee =
    program === "spl-token"
      ? notApplicable("SPL Token mints have no transfer fee")
      : feeConfig === undefined
        ? notApplicable("no TransferFeeConfig extension")
        : (() => {
            const current =
              epoch >= feeConfig.newerTransferFee.epoch ? feeConfig.newerTransferFee : feeConfig.olderTransferFee
            const scheduled =
              current === feeConfig.olderTransferFee &&
              feeConfig.newerTransferFee.transferFeeBasisPoints !== current.transferFeeBasisPoints
                ? feeConfig.newerTransferFee.transferFeeBasisPoints
                : null
            return observed({
              bps: current.transferFeeBasisPoints,
              maxFee: current.maximumFee.toString(),
              configAuthority:
                feeConfig.transferFeeConfigAuthority === ZERO_ADDRESS
                  ? null
                  : ours(feeConfig.transferFeeConfigAuthority),
              withdrawAuthority:
                feeConfig.withdrawWithheldAuthority === ZERO_ADDRESS ? null : ours(feeConfig.withdrawWithheldAuthority),
              scheduledBps: scheduled
            })
          })()

  // Metadata: Token-2022's own extension first, else the Metaplex account.
  const tokenMetadata = find("TokenMetadata")
  const metaplexInfo = first.infos.get(metadataAddress) ?? null
  const metadata: ScanEvidenceV2["metadata"] =
    tokenMetadata !== undefined
      ? observed({
          source: "token-2022",
          name: tokenMetadata.name.slice(0, 200),
          symbol: tokenMetadata.symbol.slice(0, 50),
          uri: tokenMetadata.uri.slice(0, 500),
          mutable: tokenMetadata.updateAuthority.__option === "Some",
          updateAuthority:
            tokenMetadata.updateAuthority.__option === "Some" ? ours(tokenMetadata.updateAuthority.value) : null
        })
      : metaplexInfo === null
        ? notObserved("no Metaplex metadata account and no TokenMetadata extension")
        : metaplexInfo.owner !== METAPLEX_METADATA_PROGRAM
          ? missed("metadata", `metadata account owned by ${metaplexInfo.owner}, not the Metaplex program`)
          : (() => {
              const meta = decodeMetaplexMetadata(metaplexInfo.data)
              if (meta === undefined || meta.mint !== mint)
                return missed("metadata", "Metaplex account does not decode for this mint")
              return observed({
                source: "metaplex" as const,
                name: meta.name.slice(0, 200),
                symbol: meta.symbol.slice(0, 50),
                uri: meta.uri.slice(0, 500),
                mutable: meta.isMutable,
                updateAuthority: ours(meta.updateAuthority)
              })
            })()

  // Pools found at their canonical addresses; the reference pool for SOL/USD.
  const pools = new Map<string, PoolState>()
  for (const at of canonical) {
    const info = first.infos.get(at)
    const state = info === null || info === undefined ? undefined : decodePool(at, info.owner, info.data)
    if (state !== undefined && sidesOf(state, mint) !== undefined) pools.set(at, state)
  }
  const referenceInfo = first.infos.get(settings.referencePool) ?? null
  const reference =
    referenceInfo === null ? undefined : decodePool(settings.referencePool, referenceInfo.owner, referenceInfo.data)

  // 2. Largest holders, the signature history and pool discovery, side by side.
  const largestRead = rpc
    .getTokenLargestAccounts(mint, { commitment: COMMITMENT })
    .send()
    .then((answer) => {
      if (answer.context.slot < slot) throw new Error(`answer from slot ${answer.context.slot}, older than ${slot}`)
      return answer.value
    })
  const historyRead = (async () => {
    let before: string | undefined
    let oldest: { signature: string; slot: bigint; blockTime: bigint | null } | undefined
    for (let page = 0; page < settings.signaturePages; page++) {
      const batch = await rpc
        .getSignaturesForAddress(mint, {
          commitment: COMMITMENT,
          limit: 1_000,
          minContextSlot: slot,
          ...(before === undefined ? {} : { before: before as never })
        })
        .send()
      const last = batch.at(-1)
      if (last !== undefined) {
        oldest = {
          signature: last.signature,
          slot: last.slot,
          blockTime: last.blockTime === null ? null : BigInt(last.blockTime)
        }
        before = last.signature
      }
      if (batch.length < 1_000) return { complete: true as const, oldest }
    }
    return { complete: false as const, oldest }
  })()
  const discoveries = discoveryCalls()
  const discoveryRead = Promise.allSettled(discoveries.map((call) => discover(rpc, call, mint, slot)))
  const [largest, history, discovered] = await Promise.all([
    Promise.allSettled([largestRead]).then(([r]) => r!),
    Promise.allSettled([historyRead]).then(([r]) => r!),
    discoveryRead
  ])
  const discoveryMissing: Array<string> = []
  discovered.forEach((result, i) => {
    const call = discoveries[i]!
    if (result.status === "rejected") {
      discoveryMissing.push(reasonOf(`${call.program.venue} pools (mint at offset ${call.offset})`, result.reason))
      return
    }
    for (const found of result.value) {
      const state = decodePool(found.address, found.owner, found.data)
      if (state !== undefined && sidesOf(state, mint) !== undefined) pools.set(found.address, state)
    }
  })
  partial.push(...discoveryMissing)
  const poolStates = [...pools.values()].slice(0, settings.maxPools)
  if (pools.size > settings.maxPools)
    discoveryMissing.push(
      `${pools.size - settings.maxPools} of ${pools.size} pools not read (SCANNER_MAX_POOLS ${settings.maxPools})`
    )

  // 3. The largest accounts (their owners and state) ‖ each pool's vaults, LP mint and related accounts,
  //    and the reference pool's vaults.
  const poolAddresses = [
    ...new Set(
      [
        ...poolStates.flatMap((state) => [state.vaultA, state.vaultB, state.lpMint, ...state.related]),
        ...(reference === undefined ? [] : [reference.vaultA, reference.vaultB, ...reference.related])
      ].filter((at): at is Address => at !== null)
    )
  ]
  const accounts =
    largest.status === "fulfilled" ? largest.value.filter((entry) => BigInt(entry.amount) > 0n).slice(0, 20) : []
  const [holderRead, poolRead] = await Promise.allSettled([
    accounts.length === 0
      ? Promise.resolve(new Map<string, AccountInfo | null>())
      : readAccounts(
          rpc,
          accounts.map((entry) => entry.address),
          slot
        ).then((read) => read.infos),
    poolAddresses.length === 0
      ? Promise.resolve({ slot, infos: new Map<string, AccountInfo | null>() })
      : readAccounts(rpc, poolAddresses, slot)
  ])
  let holdersTop: ScanEvidenceV2["holders"]["top"]
  let rows: Array<{ tokenAccount: Address; owner: Address; amount: bigint; frozen: boolean }> = []
  if (largest.status === "rejected") holdersTop = missed("largest holders", largest.reason)
  else if (holderRead.status === "rejected") holdersTop = missed("largest holders' owners", holderRead.reason)
  else {
    for (const entry of accounts) {
      const info = holderRead.value.get(entry.address) ?? null
      const parsed = info === null || info.owner !== mintInfo.owner ? undefined : tokenAccountOf(info.data)
      if (info === null || parsed === undefined || parsed.mint !== mint) {
        partial.push(`holder ${entry.address}: not a token account of this mint`)
        continue
      }
      rows.push({
        tokenAccount: entry.address,
        owner: parsed.owner,
        amount: parsed.amount,
        frozen: info.data[108] === FROZEN
      })
    }
    holdersTop = observed([]) // filled below once owners are classified
  }
  const poolInfos = poolRead.status === "fulfilled" ? poolRead.value.infos : new Map<string, AccountInfo | null>()
  const poolSlot = Number(poolRead.status === "fulfilled" ? poolRead.value.slot : slot)
  const poolMissing = poolRead.status === "rejected" ? reasonOf("pool vaults", poolRead.reason) : null
  if (poolMissing !== null) partial.push(poolMissing)
  const completed = (state: PoolState): PoolState => {
    const program = poolProgramOf(state)
    return program?.complete === undefined
      ? state
      : program.complete(
          state,
          state.related.map((at) => poolInfos.get(at)?.data ?? null)
        )
  }
  const reservesOf = (state: PoolState): { a: bigint | null; b: bigint | null } =>
    state.storedReserves !== null
      ? state.storedReserves
      : {
          a: state.vaultA === null ? null : (balanceOf(poolInfos.get(state.vaultA), state.mintA) ?? null),
          b: state.vaultB === null ? null : (balanceOf(poolInfos.get(state.vaultB), state.mintB) ?? null)
        }

  // SOL/USD from the reference pool, read in this scan.
  const solUsd: ScanEvidenceV2["liquidity"]["solUsd"] = (() => {
    if (reference === undefined)
      return notObserved(
        referenceInfo === null
          ? `reference pool ${settings.referencePool} not found`
          : `reference pool ${settings.referencePool} does not decode as a pool`
      )
    const sides = sidesOf(reference, WSOL)
    if (sides === undefined || sides.quote !== USDC)
      return notObserved(`reference pool ${settings.referencePool} does not pair SOL with USDC`)
    if (poolMissing !== null) return notObserved(poolMissing)
    const state = completed(reference)
    const { a, b } = reservesOf(state)
    const sol = sides.mintIsA ? a : b
    const usdc = sides.mintIsA ? b : a
    const raw =
      state.priceBPerA !== null && state.priceBPerA > 0
        ? sides.mintIsA
          ? state.priceBPerA
          : 1 / state.priceBPerA
        : sol !== null && usdc !== null && sol > 0n
          ? Number(usdc) / Number(sol)
          : null
    return raw === null
      ? notObserved("reference pool reserves not read")
      : observed({
          value: Math.round(raw * 10 ** (9 - 6) * 1e6) / 1e6,
          pool: ours(settings.referencePool),
          venue: state.venue,
          slot: poolSlot
        })
  })()
  const quotePrices = new Map<string, QuotePrice>()
  for (const [quote, { decimals: quoteDecimals, usdPegged }] of QUOTE_MINTS) {
    if (usdPegged) quotePrices.set(quote, { usd: 1, decimals: quoteDecimals })
    else if (quote === WSOL && solUsd.status === "observed")
      quotePrices.set(quote, { usd: solUsd.value.value, decimals: quoteDecimals })
  }
  const quoteMissing =
    solUsd.status === "observed" ? "only SOL, USDC and USDT are priced" : `SOL/USD not observed: ${solUsd.reason}`

  const preliminary = poolStates.map((raw) => {
    const state = completed(raw)
    const { a, b } = reservesOf(state)
    return {
      state,
      balanceA: a,
      balanceB: b,
      missing:
        poolMissing ?? (a === null || b === null ? "a vault did not read as a token account of the pool's mint" : null),
      lpSupply: state.lpMint === null ? null : (supplyOf(poolInfos.get(state.lpMint)) ?? null)
    }
  })
  const valueOf = (pool: (typeof preliminary)[number]) =>
    poolFiguresOf(
      { ...pool, slot: poolSlot, lpHolders: null, lpMissing: null },
      mint,
      decimals,
      quotePrices,
      quoteMissing
    ).liquidityUsd ?? 0
  const lpPools = preliminary
    .filter((pool) => pool.state.lpMint !== null && pool.state.shape !== "bonding_curve" && pool.lpSupply !== null)
    .sort((x, y) => valueOf(y) - valueOf(x))
    .slice(0, settings.maxLpPools)

  // The swap the sell path simulates: into the deepest PumpSwap or Raydium CPMM pool of the mint.
  const swapTarget = swapTargetOf(
    preliminary,
    mint,
    mintInfo.owner,
    supplyRaw,
    poolInfos,
    valueOf,
    poolMissing,
    [...pools.values()].slice(settings.maxPools)
  )

  // 4. The holders' owners, and the associated accounts of the swap pool's quote mint (the swap's output
  //    account: its balance before the swap) of the few holders the sell probe may pick ‖ the first
  //    transaction ‖ the largest LP holders of the deepest LP pools.
  const venues = await venueIndexOf()
  const vaults = new Set(poolStates.flatMap((state) => [state.vaultA, state.vaultB]).filter((at) => at !== null))
  const owners = [...new Set(rows.map((row) => row.owner))]
  // The probe is the first holder that is no pool, locker or burn address, unfrozen if any is; whether an
  // owner is a program's account shows only in this stage's read, so the first three are read.
  const probeCandidates = rows.filter(
    (row) =>
      row.amount > 0n &&
      !vaults.has(row.tokenAccount) &&
      row.owner !== INCINERATOR &&
      row.owner !== SYSTEM_PROGRAM &&
      !venues.byAuthority.has(row.owner)
  )
  const quoteOwners = [
    ...new Set(
      [...probeCandidates.filter((row) => !row.frozen).slice(0, 3), ...probeCandidates.slice(0, 1)].map(
        (row) => row.owner
      )
    )
  ]
  const quoteAccounts =
    "pool" in swapTarget ? quoteOwners.map((owner) => holderQuoteAccount(swapTarget.pool, owner)) : []
  const oldest = history.status === "fulfilled" ? history.value.oldest : undefined
  const [ownerRead, firstTransaction, lpLargest] = await Promise.all([
    owners.length === 0
      ? Promise.resolve({ status: "fulfilled" as const, value: new Map<string, AccountInfo | null>() })
      : readAccounts(rpc, [...owners, ...quoteAccounts], slot).then(
          (read) => ({ status: "fulfilled" as const, value: read.infos }),
          (reason: unknown) => ({ status: "rejected" as const, reason })
        ),
    Promise.allSettled([
      history.status === "fulfilled" && history.value.complete && oldest !== undefined
        ? rpc
            .getTransaction(oldest.signature as never, {
              commitment: COMMITMENT,
              encoding: "json",
              maxSupportedTransactionVersion: 0
            })
            .send()
        : Promise.resolve(null)
    ]).then(([r]) => r!),
    Promise.allSettled(
      lpPools.map((pool) =>
        rpc
          .getTokenLargestAccounts(pool.state.lpMint!, { commitment: COMMITMENT })
          .send()
          .then((answer) => {
            if (answer.context.slot < slot)
              throw new Error(`answer from slot ${answer.context.slot}, older than ${slot}`)
            return answer
          })
      )
    )
  ])
  const ownerInfos = ownerRead.status === "fulfilled" ? ownerRead.value : new Map<string, AccountInfo | null>()
  if (ownerRead.status === "rejected") partial.push(reasonOf("holder owners", ownerRead.reason))

  const deployer: ScanEvidenceV2["deployer"] =
    history.status === "rejected"
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
                  return payer === undefined
                    ? missed("first transaction", "no fee payer")
                    : observed({
                        address: ours(payer),
                        signature: oldest.signature,
                        slot: Number(oldest.slot),
                        at: oldest.blockTime === null ? null : new Date(Number(oldest.blockTime) * 1000).toISOString()
                      })
                })()
  const deployerAddress: string | undefined = deployer.status === "observed" ? deployer.value.address : undefined

  const classify = (
    owner: Address,
    infos: ReadonlyMap<string, AccountInfo | null>
  ): Pick<HolderV2, "kind" | "label" | "labelSource"> => {
    if (owner === INCINERATOR || owner === SYSTEM_PROGRAM)
      return { kind: "burn", label: "incinerator", labelSource: "no private key exists for this address" }
    const byAuthority = venues.byAuthority.get(owner)
    if (byAuthority !== undefined)
      return {
        kind: byAuthority.kind,
        label: byAuthority.label,
        labelSource: `authority of ${byAuthority.program} (${byAuthority.source})`
      }
    const info = infos.get(owner)
    const byProgram = info === null || info === undefined ? undefined : venues.byProgram.get(info.owner)
    if (byProgram !== undefined)
      return {
        kind: byProgram.kind,
        label: byProgram.label,
        labelSource: `account owned by ${byProgram.program} (${byProgram.source})`
      }
    if (owner === deployerAddress)
      return { kind: "creator", label: "deployer", labelSource: "fee payer of the mint's first transaction" }
    const exchange = settings.exchangeLabels.get(owner)
    if (exchange !== undefined) return { kind: "exchange", label: exchange.label, labelSource: exchange.source }
    return { kind: "holder", label: null, labelSource: null }
  }
  const classified = rows.map((row) => ({ ...row, ...classify(row.owner, ownerInfos) }))
  if (holdersTop.status === "observed") {
    holdersTop = observed(
      classified.map(
        (row): HolderV2 => ({
          address: ours(row.owner),
          tokenAccount: ours(row.tokenAccount),
          amount: row.amount.toString(),
          pct: pctOf(row.amount, supplyRaw),
          kind: row.kind,
          label: row.label,
          labelSource: row.labelSource
        })
      )
    )
  }
  const top = holdersTop.status === "observed" ? holdersTop.value : []
  const creatorPct: Fact<number> =
    holdersTop.status !== "observed"
      ? notObserved("largest holders not observed")
      : deployerAddress === undefined
        ? notObserved("deployer not observed")
        : observed(
            Math.min(
              100,
              top.filter((holder) => holder.kind === "creator").reduce((sum, holder) => sum + holder.pct, 0)
            )
          )

  // 5. The sell path: a transfer from a real holder that is not a pool, and a swap of the same amount
  //    from the same account into the swap pool, both simulated ‖ the LP holders' token accounts.
  //    6. Their owners, where a locker's state account says when the lock ends.
  const probe = sellProbeOf(
    classified.filter((row) => !vaults.has(row.tokenAccount)),
    ownerInfos
  )
  const noProbe =
    rows.length === 0
      ? "no holder account read"
      : "no holder that is not a pool, locker or burn address, or none whose wallet can pay the simulated fee"
  const swapRun = (():
    | { readonly pool: SwapPool; readonly probe: Parameters<typeof simulateSwap>[2] }
    | Fact<never> => {
    if (!("pool" in swapTarget)) return swapTarget.skip
    if (probe === undefined) return notObserved(noProbe)
    if (ownerRead.status === "rejected") return notObserved(reasonOf("holder's quote account", ownerRead.reason))
    if (!quoteOwners.includes(probe.sourceOwner))
      return notObserved(
        "the sold-from holder's quote account was not read (the first three candidates are pool or locker accounts)"
      )
    const quoteInfo = ownerInfos.get(holderQuoteAccount(swapTarget.pool, probe.sourceOwner))
    const quoteBalance = quoteInfo === null ? 0n : balanceOf(quoteInfo, swapTarget.pool.quote.mint)
    if (quoteBalance === undefined)
      return notObserved(`the holder's quote account of ${swapTarget.pool.quote.mint} did not read as one`)
    return {
      pool: swapTarget.pool,
      probe: {
        holder: probe.sourceOwner,
        holderBaseAccount: probe.sourceAccount,
        holderQuoteBalance: quoteBalance,
        amount: probe.amount,
        feePayer: probe.feePayer,
        inputTransferFee:
          transferFee.status === "observed"
            ? transferFeeOn(probe.amount, BigInt(transferFee.value.bps), BigInt(transferFee.value.maxFee))
            : 0n
      }
    }
  })()
  const lpAccounts = lpLargest.flatMap((result) =>
    result.status === "fulfilled"
      ? result.value.value
          .filter((entry) => BigInt(entry.amount) > 0n)
          .slice(0, 10)
          .map((entry) => entry.address)
      : []
  )
  const [transfer, swap, lpAccountRead] = await Promise.all([
    probe === undefined
      ? Promise.resolve(notObserved(noProbe) as Fact<SellCheck>)
      : simulateTransfer(
          rpc,
          {
            mint,
            tokenProgram: mintInfo.owner,
            decimals,
            ...probe,
            ...(hookProgram === undefined ? {} : { transferHook: { program: hookProgram } })
          },
          slot
        ).then(
          (check) => observed(check) as Fact<SellCheck>,
          (error: unknown) => missed("transfer simulation", error) as Fact<SellCheck>
        ),
    "status" in swapRun
      ? Promise.resolve(swapRun as Fact<SellCheck>)
      : simulateSwap(rpc, swapRun.pool, swapRun.probe, slot).then(
          (check) => observed(check) as Fact<SellCheck>,
          (error: unknown) => missed("swap simulation", error) as Fact<SellCheck>
        ),
    lpAccounts.length === 0
      ? Promise.resolve(new Map<string, AccountInfo | null>())
      : readAccounts(rpc, lpAccounts, slot).then(
          (read) => read.infos,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
        )
  ])
  const lpRows =
    lpAccountRead instanceof Error
      ? []
      : lpAccounts.flatMap((at) => {
          const parsed = (() => {
            const info = lpAccountRead.get(at)
            return info === null || info === undefined || !isTokenProgram(info.owner)
              ? undefined
              : tokenAccountOf(info.data)
          })()
          return parsed === undefined
            ? []
            : [{ tokenAccount: at, owner: parsed.owner, amount: parsed.amount, mint: parsed.mint }]
        })
  const lpOwners = [...new Set(lpRows.map((row) => row.owner))]
  const lpOwnerRead =
    lpOwners.length === 0
      ? new Map<string, AccountInfo | null>()
      : await readAccounts(rpc, lpOwners, slot).then(
          (read) => read.infos,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
        )
  const lpOwnerInfos = lpOwnerRead instanceof Error ? new Map<string, AccountInfo | null>() : lpOwnerRead

  const figures = preliminary.map((pool) => {
    const index = lpPools.indexOf(pool)
    const largestLp = index === -1 ? undefined : lpLargest[index]
    const lpMissing =
      pool.state.lpMint === null || pool.state.shape === "bonding_curve"
        ? null
        : (poolMissing ??
          (pool.lpSupply === null
            ? "LP mint not read"
            : index === -1
              ? `not among the ${settings.maxLpPools} deepest LP pools read (SCANNER_MAX_LP_POOLS)`
              : null) ??
          (largestLp?.status === "rejected" ? reasonOf("LP holders", largestLp.reason) : null) ??
          (lpAccountRead instanceof Error ? reasonOf("LP holder accounts", lpAccountRead) : null) ??
          (lpOwnerRead instanceof Error ? reasonOf("LP holder owners", lpOwnerRead) : null))
    if (lpMissing !== null && index !== -1) partial.push(`${pool.state.venue} ${pool.state.address}: ${lpMissing}`)
    const lpHolders =
      lpMissing !== null || pool.state.lpMint === null
        ? null
        : lpRows
            .filter((row) => row.mint === pool.state.lpMint)
            .map((row) => {
              const kind = classify(row.owner, lpOwnerInfos)
              const lock =
                kind.kind !== "locker"
                  ? { unlockAt: null, permanent: null }
                  : venues.byAuthority.get(row.owner)?.label === "raydium-lp-lock"
                    ? // Raydium's Burn & Earn keeps LP for good under the lock authority.
                      { unlockAt: null, permanent: true }
                    : lockOf(kind.label ?? "", lpOwnerInfos.get(row.owner)?.data ?? null)
              return {
                owner: row.owner,
                tokenAccount: row.tokenAccount,
                amount: row.amount,
                kind: kind.kind,
                label: kind.label,
                ...lock
              }
            })
    return poolFiguresOf({ ...pool, slot: poolSlot, lpHolders, lpMissing }, mint, decimals, quotePrices, quoteMissing)
  })
  const withheld =
    holdersTop.status === "observed"
      ? top
          .filter((holder) => holder.kind === "burn" || holder.kind === "locker")
          .reduce((sum, holder) => sum + BigInt(holder.amount ?? "0"), 0n)
      : null
  const liquidity = liquidityOf(
    figures,
    discoveryMissing,
    solUsd,
    uiAmount(supplyRaw, decimals),
    withheld === null ? null : uiAmount(withheld, decimals)
  )

  const sellPath: SellPath = { transfer, swap }
  // A failed transfer from a real holder means holders cannot sell; a successful one means the token
  // program lets them. The swap's result stays in sellPath.swap: a pool that refuses the sell (a
  // program error there while the transfer passes) is that pool's, not the token's.
  const honeypot: Fact<boolean> =
    transfer.status === "observed"
      ? observed(!transfer.value.ok)
      : notObserved(`sell path not simulated: ${transfer.reason}`)
  // The pool's own tax on a sell, as the simulated swap measured it; buys are not simulated.
  const tradingTax: ScanEvidenceV2["tradingTax"] =
    swap.status !== "observed"
      ? notObserved(`no swap simulated: ${swap.reason}`.slice(0, 500))
      : !swap.value.ok
        ? notObserved(
            `the simulated sell on ${swap.value.venue} failed, so no tax was measured: ${swap.value.error ?? "no error text"}`.slice(
              0,
              500
            )
          )
        : swap.value.effectiveTaxPct === null
          ? notObserved(`the simulated sell on ${swap.value.venue} passed but its output was not read`)
          : observed({ buyPct: null, sellPct: swap.value.effectiveTaxPct, method: "swap_simulation" })

  const issuer = settings.issuers.get(mint) ?? null
  const deployedAt =
    deployer.status === "observed" && deployer.value.at !== null
      ? observed(deployer.value.at)
      : notObserved("creation time not observed")

  return {
    version: 2,
    mint: ours(mint),
    scannedAt: new Date().toISOString(),
    scanDepth: partial.length === 0 ? "full" : "partial",
    source: "risk-api-scanner",
    provenance: {
      scanner: `risk-api-scanner/${settings.scannerVersion}`,
      slot: Number(slot),
      rpcCalls: counter.calls(),
      rpcRoundTrips: counter.roundTrips(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      partial: partial.slice(0, 50).map((reason) => reason.slice(0, 500))
    },
    token: {
      program: observed(program),
      supply: observed(uiAmount(supplyRaw, decimals)),
      supplyRaw: observed(supplyRaw.toString()),
      decimals: observed(decimals),
      mintAuthority: observed(decoded.mintAuthority.__option === "Some" ? ours(decoded.mintAuthority.value) : null),
      freezeAuthority: observed(
        decoded.freezeAuthority.__option === "Some" ? ours(decoded.freezeAuthority.value) : null
      ),
      createdAt: deployedAt
    },
    extensions:
      program === "spl-token" ? notApplicable("SPL Token mints have no extensions") : observed(extensionFacts),
    transferFee,
    tradingTax,
    honeypot,
    sellPath,
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
    liquidity,
    market: notObserved(
      "24 h volume, trades and price changes are not readable from plain RPC; an operator can merge a market feed"
    ),
    aml: notObserved("holder screening is not read by the scanner"),
    issuerVerified: issuer,
    listed,
    outcome: null
  }
}

/**
 * The holder whose sell the scan simulates: the largest that is not a pool, locker or burn address,
 * preferring accounts that are not frozen; its wallet pays the fee when it holds SOL, else the holder
 * wallet with the most SOL does (signatures are not verified in a simulation).
 */
const sellProbeOf = (
  rows: ReadonlyArray<{
    tokenAccount: Address
    owner: Address
    amount: bigint
    frozen: boolean
    kind: HolderV2["kind"]
  }>,
  ownerInfos: ReadonlyMap<string, AccountInfo | null>
): { sourceAccount: Address; sourceOwner: Address; amount: bigint; feePayer: Address } | undefined => {
  const candidates = rows.filter(
    (row) =>
      row.amount > 0n &&
      (row.kind === "holder" || row.kind === "creator" || row.kind === "exchange" || row.kind === "insider")
  )
  const source = candidates.find((row) => !row.frozen) ?? candidates[0]
  if (source === undefined) return undefined
  const wallets = rows.flatMap((row) => {
    const info = ownerInfos.get(row.owner)
    return info !== null &&
      info !== undefined &&
      info.owner === SYSTEM_PROGRAM &&
      info.lamports >= MIN_FEE_PAYER_LAMPORTS
      ? [{ address: row.owner, lamports: info.lamports }]
      : []
  })
  const feePayer =
    wallets.find((wallet) => wallet.address === source.owner) ??
    wallets.sort((a, b) => (a.lamports === b.lamports ? 0 : a.lamports > b.lamports ? -1 : 1))[0]
  if (feePayer === undefined) return undefined
  // A small amount: a thousandth of the holding, at least one base unit.
  const amount = source.amount / 1_000n > 0n ? source.amount / 1_000n : 1n
  return { sourceAccount: source.tokenAccount, sourceOwner: source.owner, amount, feePayer: feePayer.address }
}

/** Enough SOL for the fee and the rent of the fresh destination account. */
const MIN_FEE_PAYER_LAMPORTS = 10_000_000n

/** Token-2022's transfer fee on an amount: ceil(amount × bps / 10,000), at most the maximum fee (spl-token-2022 TransferFee::calculate_fee). */
const transferFeeOn = (amount: bigint, bps: bigint, maxFee: bigint): bigint => {
  if (bps === 0n || amount === 0n) return 0n
  const fee = (amount * bps + 9_999n) / 10_000n
  return fee > maxFee ? maxFee : fee
}

const isSet = (at: Address): boolean => at !== ZERO_ADDRESS
/** PoolState.creator_fee_on (raydium-cp-swap states/pool.rs is_creator_fee_on_input): 0 both tokens, 1 token 0 only, 2 token 1 only. */
const creatorFeeOnInput = (feeOn: number, sellingTokenZero: boolean): boolean =>
  feeOn === 0 || (feeOn === 1 && sellingTokenZero) || (feeOn === 2 && !sellingTokenZero)

/** The swap the scan can simulate into one pool, or why it cannot. */
const swapPoolOf = (
  pool: { readonly state: PoolState; readonly balanceA: bigint | null; readonly balanceB: bigint | null },
  mint: Address,
  mintProgram: Address,
  supply: bigint,
  infos: ReadonlyMap<string, AccountInfo | null>
): SwapPool | string => {
  const { state, balanceA, balanceB } = pool
  const swap = state.swap
  const label = `${state.venue} ${state.address}`
  if (swap === undefined || state.vaultA === null || state.vaultB === null) return `${label}: its swap is not decoded`
  if (balanceA === null || balanceB === null)
    return `${label}: a vault did not read as a token account of the pool's mint`
  const mintIsA = state.mintA === mint
  if (swap.venue === "raydium-cpmm") {
    if (swap.config === null) return `${label}: its AmmConfig ${swap.ammConfig} was not read or does not decode`
    const reserveA = balanceA - swap.feesOwedA
    const reserveB = balanceB - swap.feesOwedB
    if (reserveA < 0n || reserveB < 0n) return `${label}: a vault holds less than the fees the pool owes from it`
    const a = { mint: state.mintA, vault: state.vaultA, tokenProgram: swap.tokenProgramA, reserve: reserveA }
    const b = { mint: state.mintB, vault: state.vaultB, tokenProgram: swap.tokenProgramB, reserve: reserveB }
    return {
      venue: "raydium-cpmm",
      pool: state.address,
      ammConfig: swap.ammConfig,
      observationState: swap.observationState,
      base: mintIsA ? a : b,
      quote: mintIsA ? b : a,
      tradeFeeRate: swap.config.tradeFeeRate,
      // PoolState::adjust_creator_fee_rate: no creator fee unless the pool enables it.
      creatorFeeRate: swap.enableCreatorFee ? swap.config.creatorFeeRate : 0n,
      creatorFeeOnInput: creatorFeeOnInput(swap.creatorFeeOn, mintIsA)
    }
  }
  if (!mintIsA) return `${label}: the mint is this pool's quote; only sells of a pool's base are simulated`
  const global = swap.global
  if (global === null) return `${label}: PumpSwap's GlobalConfig was not read or does not decode`
  if (swap.feeConfig === null) return `${label}: the pump fees program's FeeConfig does not decode`
  const fees = pumpSwapFeesOf(swap, {
    baseMint: state.mintA,
    quoteMint: state.mintB,
    baseReserve: balanceA,
    quoteReserve: balanceB,
    baseSupply: supply
  })
  if (fees === undefined) return `${label}: no fee tier applies (empty FeeConfig tiers or an empty base reserve)`
  // src/sdk/fees.ts getFeeRecipient: a mayhem-mode pool pays the reserved recipients, others the protocol
  // recipients; the program accepts any of the list, so the first set one is used.
  const recipients = swap.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : global.protocolFeeRecipients
  const protocolFeeRecipient = recipients.find(isSet)
  if (protocolFeeRecipient === undefined) return `${label}: GlobalConfig lists no protocol fee recipient`
  const quoteProgram = infos.get(state.vaultB)?.owner
  if (quoteProgram === undefined) return `${label}: the quote vault was not read`
  return {
    venue: "pumpswap",
    pool: state.address,
    base: { mint: state.mintA, vault: state.vaultA, tokenProgram: mintProgram, reserve: balanceA },
    quote: { mint: state.mintB, vault: state.vaultB, tokenProgram: quoteProgram, reserve: balanceB },
    virtualQuoteReserves: swap.virtualQuoteReserves,
    coinCreator: swap.coinCreator,
    isCashbackCoin: swap.isCashbackCoin,
    protocolFeeRecipient,
    buybackFeeRecipient: global.buybackFeeRecipients.find(isSet) ?? global.buybackFeeRecipients[0] ?? ZERO_ADDRESS,
    fees,
    needsExtension: swap.dataLength < PUMPSWAP_EXTENDED_SIZE
  }
}

/** src/sdk/offlinePumpAmm.ts POOL_ACCOUNT_NEW_SIZE: a smaller pool account is extended before a trade. */
const PUMPSWAP_EXTENDED_SIZE = 300

/**
 * The pool the sell path swaps into: the deepest (USD liquidity) PumpSwap or Raydium CPMM pool of the
 * mint whose swap can be built from what the scan read; else why none is simulated.
 */
const swapTargetOf = <
  P extends { readonly state: PoolState; readonly balanceA: bigint | null; readonly balanceB: bigint | null }
>(
  read: ReadonlyArray<P>,
  mint: Address,
  mintProgram: Address,
  supply: bigint,
  infos: ReadonlyMap<string, AccountInfo | null>,
  depth: (pool: P) => number,
  poolMissing: string | null,
  unread: ReadonlyArray<PoolState>
): { readonly pool: SwapPool } | { readonly skip: Fact<never> } => {
  const candidates = read.filter((pool) => pool.state.swap !== undefined).sort((x, y) => depth(y) - depth(x))
  if (candidates.length === 0) {
    if (unread.some((state) => state.swap !== undefined))
      return {
        skip: notObserved("the mint's PumpSwap or Raydium CPMM pool is beyond SCANNER_MAX_POOLS and was not read")
      }
    return {
      skip: notApplicable("no PumpSwap or Raydium CPMM pool of the mint, the venues whose swap instruction is decoded")
    }
  }
  if (poolMissing !== null) return { skip: notObserved(poolMissing) }
  const reasons: Array<string> = []
  for (const candidate of candidates) {
    const pool = swapPoolOf(candidate, mint, mintProgram, supply, infos)
    if (typeof pool !== "string") return { pool }
    reasons.push(pool)
  }
  return { skip: notObserved(reasons.join("; ").slice(0, 500)) }
}
