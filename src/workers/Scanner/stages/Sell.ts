import type { Address } from "@solana/kit"
import {
  type Fact,
  notObserved,
  observed,
  type ScanEvidenceV2,
  type SellCheck,
  type SellPath
} from "../../../domain/EvidenceV2.ts"
import { INCINERATOR, SYSTEM_PROGRAM, type VenueIndex } from "../Programs.ts"
import { simulateSwap, simulateTransfer } from "../SellPath.ts"
import { holderQuoteAccount, type SwapPool, type SwapProbe } from "../SwapInstructions.ts"
import { type AccountInfos, balanceOf } from "./Accounts.ts"
import { reasonOf, type ScanContext } from "./Context.ts"
import type { ClassifiedRow, HolderRow } from "./Holders.ts"
import type { MintFacts } from "./Mint.ts"
import type { SwapTarget } from "./SwapTarget.ts"

// Stage "sell path": can a real holder sell? Round 4 reads, beside the holders' owners, the associated
// accounts of the swap pool's quote mint of the few holders the probe may pick (the swap's output account:
// its balance before the swap). Round 5 simulates a transfer from a real holder that is not a pool, and a
// swap of the same amount from the same account into the swap pool (SwapTarget.ts).

/** Enough SOL for the fee and the rent of the fresh destination account. */
const MIN_FEE_PAYER_LAMPORTS = 10_000_000n

export interface SellProbe {
  readonly sourceAccount: Address
  readonly sourceOwner: Address
  readonly amount: bigint
  readonly feePayer: Address
}

/** The holders whose quote accounts round 4 reads: the first three unfrozen candidates and the first candidate. */
export const quoteOwnersOf = (
  rows: ReadonlyArray<HolderRow>,
  vaults: ReadonlySet<Address>,
  venues: VenueIndex
): ReadonlyArray<Address> => {
  // The probe is the first holder that is no pool, locker or burn address, unfrozen if any is; whether an
  // owner is a program's account shows only in round 4's read, so the first three are read.
  const candidates = rows.filter(
    (row) =>
      row.amount > 0n &&
      !vaults.has(row.tokenAccount) &&
      row.owner !== INCINERATOR &&
      row.owner !== SYSTEM_PROGRAM &&
      !venues.byAuthority.has(row.owner)
  )
  return [
    ...new Set(
      [...candidates.filter((row) => !row.frozen).slice(0, 3), ...candidates.slice(0, 1)].map((row) => row.owner)
    )
  ]
}

/** Round 4 (in the holders' owner read): the quote accounts of those holders, when a swap is simulated. */
export const quoteAccountsOf = (target: SwapTarget, quoteOwners: ReadonlyArray<Address>): ReadonlyArray<Address> =>
  "pool" in target ? quoteOwners.map((owner) => holderQuoteAccount(target.pool, owner)) : []

/**
 * The holder whose sell the scan simulates: the largest that is not a pool, locker or burn address,
 * preferring accounts that are not frozen; its wallet pays the fee when it holds SOL, else the holder
 * wallet with the most SOL does (signatures are not verified in a simulation).
 */
export const sellProbeOf = (rows: ReadonlyArray<ClassifiedRow>, ownerInfos: AccountInfos): SellProbe | undefined => {
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

/** Token-2022's transfer fee on an amount: ceil(amount × bps / 10,000), at most the maximum fee (spl-token-2022 TransferFee::calculate_fee). */
const transferFeeOn = (amount: bigint, bps: bigint, maxFee: bigint): bigint => {
  if (bps === 0n || amount === 0n) return 0n
  const fee = (amount * bps + 9_999n) / 10_000n
  return fee > maxFee ? maxFee : fee
}

export interface SellInput {
  readonly mint: MintFacts
  readonly transferFee: ScanEvidenceV2["transferFee"]
  readonly hookProgram: Address | undefined
  readonly target: SwapTarget
  readonly probe: SellProbe | undefined
  /** Why no probe was found, when none was. */
  readonly noProbe: string
  readonly quoteOwners: ReadonlyArray<Address>
  readonly ownerRead: PromiseSettledResult<AccountInfos>
}

type SwapRun = { readonly pool: SwapPool; readonly probe: SwapProbe } | Fact<never>

/** The swap round 5 simulates, or why none is. */
const swapRunOf = (input: SellInput): SwapRun => {
  const { target, probe, ownerRead, transferFee } = input
  if (!("pool" in target)) return target.skip
  if (probe === undefined) return notObserved(input.noProbe)
  if (ownerRead.status === "rejected") return notObserved(reasonOf("holder's quote account", ownerRead.reason))
  if (!input.quoteOwners.includes(probe.sourceOwner))
    return notObserved(
      "the sold-from holder's quote account was not read (the first three candidates are pool or locker accounts)"
    )
  const quoteInfo = ownerRead.value.get(holderQuoteAccount(target.pool, probe.sourceOwner))
  const quoteBalance = quoteInfo === null ? 0n : balanceOf(quoteInfo, target.pool.quote.mint)
  if (quoteBalance === undefined)
    return notObserved(`the holder's quote account of ${target.pool.quote.mint} did not read as one`)
  return {
    pool: target.pool,
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
}

/** Round 5: the transfer and the swap, simulated at the pinned slot. */
export const readSellPath = (
  { rpc, mint, slot, gaps }: ScanContext,
  input: SellInput
): Promise<readonly [Fact<SellCheck>, Fact<SellCheck>]> => {
  const { probe, hookProgram } = input
  const run = swapRunOf(input)
  return Promise.all([
    probe === undefined
      ? Promise.resolve(notObserved(input.noProbe) as Fact<SellCheck>)
      : simulateTransfer(
          rpc,
          {
            mint,
            tokenProgram: input.mint.info.owner,
            decimals: input.mint.decimals,
            ...probe,
            ...(hookProgram === undefined ? {} : { transferHook: { program: hookProgram } })
          },
          slot
        ).then(
          (check) => observed(check) as Fact<SellCheck>,
          (error: unknown) => gaps.missed("transfer simulation", error) as Fact<SellCheck>
        ),
    "status" in run
      ? Promise.resolve(run as Fact<SellCheck>)
      : simulateSwap(rpc, run.pool, run.probe, slot).then(
          (check) => observed(check) as Fact<SellCheck>,
          (error: unknown) => gaps.missed("swap simulation", error) as Fact<SellCheck>
        )
  ] as const)
}

/** The sell path, and what it says: a honeypot when a real holder's transfer fails; the pool's sell tax. */
export const sellFactsOf = (
  transfer: Fact<SellCheck>,
  swap: Fact<SellCheck>
): { readonly sellPath: SellPath } & Pick<ScanEvidenceV2, "honeypot" | "tradingTax"> => ({
  sellPath: { transfer, swap },
  // A failed transfer from a real holder means holders cannot sell; a successful one means the token
  // program lets them. The swap's result stays in sellPath.swap: a pool that refuses the sell (a
  // program error there while the transfer passes) is that pool's, not the token's.
  honeypot:
    transfer.status === "observed"
      ? observed(!transfer.value.ok)
      : notObserved(`sell path not simulated: ${transfer.reason}`),
  // The pool's own tax on a sell, as the simulated swap measured it; buys are not simulated.
  tradingTax:
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
})
