import { type Fact, notObserved, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { COMMITMENT, ours, type ScanContext } from "./Context.ts"

// Stage "deployer": the fee payer of the mint's first transaction. Round 2 pages back through the mint's
// signatures (getSignaturesForAddress, 1,000 a page, SCANNER_SIGNATURE_PAGES pages at most; a later page
// is a round trip of its own); round 4 reads the oldest one (getTransaction).

export interface History {
  /** Whether the paging reached the first signature within the budget of pages. */
  readonly complete: boolean
  readonly oldest: { readonly signature: string; readonly slot: bigint; readonly blockTime: bigint | null } | undefined
  /** The oldest signatures read (the last two pages), oldest first: the launch window's transactions (stage Launch). */
  readonly earliest?: ReadonlyArray<{ readonly signature: string; readonly slot: bigint }>
}

/** Round 2: the mint's signatures back to the oldest, within the budget of pages. */
export const readHistory = async ({ rpc, mint, slot, settings }: ScanContext): Promise<History> => {
  let before: string | undefined
  let oldest: History["oldest"]
  let pages: Array<ReadonlyArray<{ readonly signature: string; readonly slot: bigint }>> = []
  const earliest = () => pages.flat().reverse()
  for (let page = 0; page < settings.signaturePages; page++) {
    const batch = await rpc
      .getSignaturesForAddress(mint, {
        commitment: COMMITMENT,
        limit: 1_000,
        minContextSlot: slot,
        ...(before === undefined ? {} : { before: before as never })
      })
      .send()
    pages = [...pages.slice(-1), batch.map((entry) => ({ signature: entry.signature, slot: entry.slot }))]
    const last = batch.at(-1)
    if (last !== undefined) {
      oldest = {
        signature: last.signature,
        slot: last.slot,
        blockTime: last.blockTime === null ? null : BigInt(last.blockTime)
      }
      before = last.signature
    }
    if (batch.length < 1_000) return { complete: true, oldest, earliest: earliest() }
  }
  return { complete: false, oldest, earliest: earliest() }
}

/** Round 4: the first transaction, when the history reached it (null when there is none to read). */
export const readFirstTransaction = ({ rpc }: ScanContext, history: PromiseSettledResult<History>) =>
  history.status === "fulfilled" && history.value.complete && history.value.oldest !== undefined
    ? rpc
        .getTransaction(history.value.oldest.signature as never, {
          commitment: COMMITMENT,
          encoding: "json",
          maxSupportedTransactionVersion: 0
        })
        .send()
    : Promise.resolve(null)

type FirstTransaction = Awaited<ReturnType<typeof readFirstTransaction>>

export const deployerOf = (
  { gaps, settings }: ScanContext,
  history: PromiseSettledResult<History>,
  firstTransaction: PromiseSettledResult<FirstTransaction>
): ScanEvidenceV2["deployer"] => {
  if (history.status === "rejected") return gaps.missed("signature history", history.reason)
  const oldest = history.value.oldest
  if (!history.value.complete)
    return notObserved(`first transaction not reached within ${settings.signaturePages * 1_000} signatures`)
  if (oldest === undefined) return notObserved("no transaction touches the mint")
  if (firstTransaction.status === "rejected") return gaps.missed("first transaction", firstTransaction.reason)
  if (firstTransaction.value === null) return gaps.missed("first transaction", "not found")
  const payer = firstTransaction.value.transaction.message.accountKeys[0]
  return payer === undefined
    ? gaps.missed("first transaction", "no fee payer")
    : observed({
        address: ours(payer),
        signature: oldest.signature,
        slot: Number(oldest.slot),
        at: oldest.blockTime === null ? null : new Date(Number(oldest.blockTime) * 1000).toISOString()
      })
}

/** The token's creation time: the deployer's first transaction's block time. */
export const createdAtOf = (deployer: ScanEvidenceV2["deployer"]): Fact<string> =>
  deployer.status === "observed" && deployer.value.at !== null
    ? observed(deployer.value.at)
    : notObserved("creation time not observed")
