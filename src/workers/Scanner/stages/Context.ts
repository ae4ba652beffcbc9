import type { Address, Slot } from "@solana/kit"
import type { Address as EvidenceAddress } from "../../../domain/Address.ts"
import { type Fact, notObserved } from "../../../domain/EvidenceV2.ts"
import { CallBudgetExhausted, type ScanRpc } from "../Rpc.ts"
import type { FunderBook, InsiderSettings, LaunchMemory } from "./FunderBook.ts"

// What every stage of a scan shares: the RPC of this scan, the mint, the settings, the slot the first read
// pinned, and the record of what could not be read (the evidence's provenance.partial, in the order found).

export interface ScanSettings {
  /** Pages of 1,000 signatures read back to find the mint's first transaction. */
  readonly signaturePages: number
  readonly scannerVersion: string
  /** Curated issuers (src/domain/issuers.json or SCANNER_ISSUERS_FILE). */
  readonly issuers: ReadonlyMap<string, { readonly issuer: string; readonly source: string }>
  /** Labelled exchange wallets, by owner address. */
  readonly exchangeLabels: ReadonlyMap<string, { readonly label: string; readonly source: string }>
  /** The SOL–USDC pool SOL/USD is read from (SCANNER_REFERENCE_POOL). */
  readonly referencePool: Address
  /** Pools whose reserves a scan reads (SCANNER_MAX_POOLS), and LP pools whose holders it reads (SCANNER_MAX_LP_POOLS). */
  readonly maxPools: number
  readonly maxLpPools: number
  /** The insiders stage (funders, launch buyers) and its funder book; off when absent. */
  readonly insiders?: InsiderSettings & { readonly book: FunderBook; readonly launches?: LaunchMemory }
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

export const describe = (error: unknown): string =>
  error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300)

/** Why a read failed, as provenance.partial words it. */
export const reasonOf = (what: string, error: unknown): string =>
  error instanceof CallBudgetExhausted ? `${what}: call budget spent` : `${what}: ${describe(error)}`

/** The reads a scan could not make, in the order found; nothing is ever filled with a safe default. */
export class Gaps {
  readonly reasons: Array<string> = []
  /** Records a failed read and gives the fact it leaves: not observed, with the reason. */
  missed(what: string, error: unknown): Fact<never> {
    const reason = reasonOf(what, error)
    this.reasons.push(reason)
    return notObserved(reason)
  }
  note(...reasons: ReadonlyArray<string>): void {
    this.reasons.push(...reasons)
  }
}

/** One scan's context, given to every stage after the first read pinned the slot. */
export interface ScanContext {
  readonly rpc: ScanRpc
  readonly mint: Address
  readonly settings: ScanSettings
  readonly slot: Slot
  readonly gaps: Gaps
}

export const COMMITMENT = "confirmed" as const

// kit's Address and the evidence's Address brand the same validated base58 string.
export const ours = (value: Address): EvidenceAddress => value as string as EvidenceAddress

export const pctOf = (amount: bigint, supply: bigint): number =>
  supply === 0n ? 0 : Math.min(100, Number((amount * 1_000_000n) / supply) / 10_000)

export const uiAmount = (raw: bigint, decimals: number): number => Number(raw) / 10 ** decimals

/** A read's answer older than the pinned slot is as good as no answer. */
export const atOrAfter = <A extends { readonly context: { readonly slot: bigint } }>(answer: A, slot: Slot): A => {
  if (answer.context.slot < slot) throw new Error(`answer from slot ${answer.context.slot}, older than ${slot}`)
  return answer
}
