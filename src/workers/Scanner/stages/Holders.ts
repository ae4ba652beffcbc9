import type { Address } from "@solana/kit"
import { type Fact, type HolderV2, notObserved, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { INCINERATOR, SYSTEM_PROGRAM, type VenueIndex } from "../Programs.ts"
import { decodeLock } from "../Pools/Lockers.ts"
import { type AccountInfos, readAccounts, tokenAccountOf } from "./Accounts.ts"
import { atOrAfter, COMMITMENT, pctOf, ours, type ScanContext, type ScanSettings } from "./Context.ts"

// Stage "holders and classification": round 2 reads the largest token accounts (getTokenLargestAccounts),
// round 3 those accounts (their owners, amounts and state), round 4 the owners (which program owns each:
// a pool's or a locker's account). Each owner is then classified: burn, pool, locker, the deployer, a
// labelled exchange, or a holder. A token locker's lock state (the owner's account) gives its release time.

const FROZEN = 2 // token account state byte at offset 108
/** The largest accounts read: getTokenLargestAccounts gives 20. */
const TOP = 20

export interface HolderRow {
  readonly tokenAccount: Address
  readonly owner: Address
  readonly amount: bigint
  readonly frozen: boolean
}

export type Classification = Pick<HolderV2, "kind" | "label" | "labelSource">
export type ClassifiedRow = HolderRow &
  Classification & {
    /** A token locker's first release: a date, null when permanent or "forever"; absent when unread. */
    readonly unlockAt?: Date | null
  }

/**
 * When a locker holder's tokens start to release (model 2.1): from the lock state account that owns the
 * token account, read with the owners in round 4 (no call of its own), decoded per its locker's layout
 * (Pools/Lockers.ts). The cliff where the lock has one (a vesting releases from there), else the end.
 * Raydium's Burn & Earn authority is permanent (null). Absent when the owner is no lock account of this
 * mint: unread, never a guess.
 */
export const tokenLockOf = (
  classification: Classification,
  owner: Address,
  infos: AccountInfos,
  venues: VenueIndex,
  mint: Address
): { readonly unlockAt?: Date | null } => {
  if (classification.kind !== "locker" || classification.label === null) return {}
  if (venues.byAuthority.get(owner)?.label === "raydium-lp-lock") return { unlockAt: null }
  const data = infos.get(owner)?.data
  const lock = data === undefined ? undefined : decodeLock(classification.label, data)
  if (lock === undefined || lock.mint !== mint) return {}
  return { unlockAt: lock.permanent ? null : (lock.cliffAt ?? lock.unlockAt) }
}

/** Round 2: the mint's largest token accounts. */
export const readLargest = ({ rpc, mint, slot }: ScanContext) =>
  rpc
    .getTokenLargestAccounts(mint, { commitment: COMMITMENT })
    .send()
    .then((answer) => atOrAfter(answer, slot).value)

type Largest = Awaited<ReturnType<typeof readLargest>>

/** The accounts round 3 reads: the largest with a balance. */
export const holderAccountsOf = (largest: PromiseSettledResult<Largest>): ReadonlyArray<Address> =>
  largest.status === "fulfilled"
    ? largest.value
        .filter((entry) => BigInt(entry.amount) > 0n)
        .slice(0, TOP)
        .map((entry) => entry.address)
    : []

/** Round 3: the largest accounts themselves. */
export const readHolderAccounts = (
  { rpc, slot }: ScanContext,
  accounts: ReadonlyArray<Address>
): Promise<AccountInfos> =>
  accounts.length === 0 ? Promise.resolve(new Map()) : readAccounts(rpc, accounts, slot).then((read) => read.infos)

/**
 * The rows of the holders read: owner, amount and state of each account that is a token account of the
 * mint; `top` is observed (filled once owners are classified) or why the holders were not read.
 */
export const holderRowsOf = (
  { mint, gaps }: ScanContext,
  mintProgram: Address,
  accounts: ReadonlyArray<Address>,
  largest: PromiseSettledResult<Largest>,
  holderRead: PromiseSettledResult<AccountInfos>
): { readonly top: Fact<never> | "observed"; readonly rows: ReadonlyArray<HolderRow> } => {
  if (largest.status === "rejected") return { top: gaps.missed("largest holders", largest.reason), rows: [] }
  if (holderRead.status === "rejected")
    return { top: gaps.missed("largest holders' owners", holderRead.reason), rows: [] }
  const rows: Array<HolderRow> = []
  for (const at of accounts) {
    const info = holderRead.value.get(at) ?? null
    const parsed = info === null || info.owner !== mintProgram ? undefined : tokenAccountOf(info.data)
    if (info === null || parsed === undefined || parsed.mint !== mint) {
      gaps.note(`holder ${at}: not a token account of this mint`)
      continue
    }
    rows.push({ tokenAccount: at, owner: parsed.owner, amount: parsed.amount, frozen: info.data[108] === FROZEN })
  }
  return { top: "observed", rows }
}

/** Round 4: the holders' owners, with accounts another stage reads in the same call (the sell probe's quote accounts). */
export const readOwners = (
  { rpc, slot }: ScanContext,
  rows: ReadonlyArray<HolderRow>,
  alongside: ReadonlyArray<Address>
) => {
  const owners = [...new Set(rows.map((row) => row.owner))]
  return owners.length === 0
    ? Promise.resolve(new Map() as AccountInfos)
    : readAccounts(rpc, [...owners, ...alongside], slot).then((read) => read.infos as AccountInfos)
}

/** What an owner is: its own address first (burn, a venue's authority), then its account's program, the deployer, the labels. */
export const classifierOf =
  (venues: VenueIndex, deployer: Address | undefined, settings: ScanSettings) =>
  (owner: Address, infos: AccountInfos): Classification => {
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
    if (owner === deployer)
      return { kind: "creator", label: "deployer", labelSource: "fee payer of the mint's first transaction" }
    const exchange = settings.exchangeLabels.get(owner)
    if (exchange !== undefined) return { kind: "exchange", label: exchange.label, labelSource: exchange.source }
    return { kind: "holder", label: null, labelSource: null }
  }

/** The holders block of the evidence (the count is not read) from the classified rows. */
export const holdersOf = (
  top: Fact<never> | "observed",
  classified: ReadonlyArray<ClassifiedRow>,
  supplyRaw: bigint,
  deployer: Address | undefined
): ScanEvidenceV2["holders"] => {
  const holdersTop: ScanEvidenceV2["holders"]["top"] =
    top !== "observed"
      ? top
      : observed(
          classified.map(
            (row): HolderV2 => ({
              address: ours(row.owner),
              tokenAccount: ours(row.tokenAccount),
              amount: row.amount.toString(),
              pct: pctOf(row.amount, supplyRaw),
              kind: row.kind,
              label: row.label,
              labelSource: row.labelSource,
              ...(row.unlockAt === undefined ? {} : { unlockAt: row.unlockAt?.toISOString() ?? null })
            })
          )
        )
  const creatorPct: Fact<number> =
    holdersTop.status !== "observed"
      ? notObserved("largest holders not observed")
      : deployer === undefined
        ? notObserved("deployer not observed")
        : observed(
            Math.min(
              100,
              holdersTop.value
                .filter((holder) => holder.kind === "creator")
                .reduce((sum, holder) => sum + holder.pct, 0)
            )
          )
  return {
    count: notObserved("counting every holder needs getProgramAccounts over all token accounts; not read"),
    top: holdersTop,
    creatorPct,
    bundledLaunchPct: notObserved("launch-block bundles are not read")
  }
}

/** The raw amount the burn and locker addresses among the top holders keep out of circulation; null when not observed. */
export const withheldOf = (holders: ScanEvidenceV2["holders"]): bigint | null =>
  holders.top.status === "observed"
    ? holders.top.value
        .filter((holder) => holder.kind === "burn" || holder.kind === "locker")
        .reduce((sum, holder) => sum + BigInt(holder.amount ?? "0"), 0n)
    : null
