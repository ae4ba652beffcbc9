import type { Address } from "@solana/kit"
import type { ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { liquidityOf, poolFiguresOf } from "../PoolFigures.ts"
import { lockOf } from "../PoolScan.ts"
import type { VenueIndex } from "../Programs.ts"
import { type AccountInfos, isTokenProgram, readAccounts, tokenAccountOf } from "./Accounts.ts"
import { atOrAfter, COMMITMENT, reasonOf, type ScanContext, uiAmount } from "./Context.ts"
import type { Classification } from "./Holders.ts"
import type { PoolBalances, PoolsRead } from "./Pools.ts"

// Stage "lp": who holds the LP tokens of the deepest LP pools (SCANNER_MAX_LP_POOLS), burned, locked or
// free, and the liquidity summary. Round 4 reads each LP mint's largest accounts, round 5 those accounts,
// round 6 their owners (where a locker's state account says when the lock ends).

/** The LP pools whose holders are read: the deepest with an LP mint whose supply was read. */
export const lpPoolsOf = (
  ctx: ScanContext,
  read: PoolsRead,
  depth: (pool: PoolBalances) => number
): ReadonlyArray<PoolBalances> =>
  read.pools
    .filter((pool) => pool.state.lpMint !== null && pool.state.shape !== "bonding_curve" && pool.lpSupply !== null)
    .sort((x, y) => depth(y) - depth(x))
    .slice(0, ctx.settings.maxLpPools)

/** Round 4: each LP mint's largest accounts. */
export const readLpLargest = ({ rpc, slot }: ScanContext, lpPools: ReadonlyArray<PoolBalances>) =>
  Promise.allSettled(
    lpPools.map((pool) =>
      rpc
        .getTokenLargestAccounts(pool.state.lpMint!, { commitment: COMMITMENT })
        .send()
        .then((answer) => atOrAfter(answer, slot))
    )
  )

type LpLargest = Awaited<ReturnType<typeof readLpLargest>>

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))

/** Round 5: the LP holders' token accounts (ten per LP mint at most); an Error when the read failed. */
export const readLpAccounts = ({ rpc, slot }: ScanContext, lpLargest: LpLargest) => {
  const accounts = lpLargest.flatMap((result) =>
    result.status === "fulfilled"
      ? result.value.value
          .filter((entry) => BigInt(entry.amount) > 0n)
          .slice(0, 10)
          .map((entry) => entry.address)
      : []
  )
  const read: Promise<AccountInfos | Error> =
    accounts.length === 0
      ? Promise.resolve(new Map())
      : readAccounts(rpc, accounts, slot).then((answer) => answer.infos, asError)
  return read.then((infos) => ({ accounts, infos }))
}

interface LpRow {
  readonly tokenAccount: Address
  readonly owner: Address
  readonly amount: bigint
  readonly mint: Address
}

const lpRowsOf = ({ accounts, infos }: Awaited<ReturnType<typeof readLpAccounts>>): ReadonlyArray<LpRow> =>
  infos instanceof Error
    ? []
    : accounts.flatMap((at) => {
        const info = infos.get(at)
        const parsed =
          info === null || info === undefined || !isTokenProgram(info.owner) ? undefined : tokenAccountOf(info.data)
        return parsed === undefined
          ? []
          : [{ tokenAccount: at, owner: parsed.owner, amount: parsed.amount, mint: parsed.mint }]
      })

/** Round 6: the LP holders' owners. */
export const readLpOwners = async (
  { rpc, slot }: ScanContext,
  lpAccounts: Awaited<ReturnType<typeof readLpAccounts>>
) => {
  const rows = lpRowsOf(lpAccounts)
  const owners = [...new Set(rows.map((row) => row.owner))]
  const infos: AccountInfos | Error =
    owners.length === 0 ? new Map() : await readAccounts(rpc, owners, slot).then((read) => read.infos, asError)
  return { rows, infos }
}

export interface LpInput {
  readonly decimals: number
  readonly supplyRaw: bigint
  readonly pools: PoolsRead
  readonly lpPools: ReadonlyArray<PoolBalances>
  readonly lpLargest: LpLargest
  readonly lpAccounts: Awaited<ReturnType<typeof readLpAccounts>>
  readonly lpOwners: Awaited<ReturnType<typeof readLpOwners>>
  readonly discoveryMissing: ReadonlyArray<string>
  /** Raw amount held by burn and locker addresses among the top holders; null when not observed. */
  readonly withheld: bigint | null
}

/** The liquidity block: each pool's figures with its LP holders, and the summary across pools. */
export const liquidityFactsOf = (
  ctx: ScanContext,
  input: LpInput,
  venues: VenueIndex,
  classify: (owner: Address, infos: AccountInfos) => Classification
): ScanEvidenceV2["liquidity"] => {
  const { pools, lpPools, lpLargest, lpAccounts, lpOwners, decimals } = input
  const ownerInfos: AccountInfos = lpOwners.infos instanceof Error ? new Map() : lpOwners.infos
  const figures = pools.pools.map((pool) => {
    const index = lpPools.indexOf(pool)
    const largestLp = index === -1 ? undefined : lpLargest[index]
    const lpMissing =
      pool.state.lpMint === null || pool.state.shape === "bonding_curve"
        ? null
        : (pools.missing ??
          (pool.lpSupply === null
            ? "LP mint not read"
            : index === -1
              ? `not among the ${ctx.settings.maxLpPools} deepest LP pools read (SCANNER_MAX_LP_POOLS)`
              : null) ??
          (largestLp?.status === "rejected" ? reasonOf("LP holders", largestLp.reason) : null) ??
          (lpAccounts.infos instanceof Error ? reasonOf("LP holder accounts", lpAccounts.infos) : null) ??
          (lpOwners.infos instanceof Error ? reasonOf("LP holder owners", lpOwners.infos) : null))
    if (lpMissing !== null && index !== -1) ctx.gaps.note(`${pool.state.venue} ${pool.state.address}: ${lpMissing}`)
    const lpHolders =
      lpMissing !== null || pool.state.lpMint === null
        ? null
        : lpOwners.rows
            .filter((row) => row.mint === pool.state.lpMint)
            .map((row) => {
              const kind = classify(row.owner, ownerInfos)
              const lock =
                kind.kind !== "locker"
                  ? { unlockAt: null, permanent: null }
                  : venues.byAuthority.get(row.owner)?.label === "raydium-lp-lock"
                    ? // Raydium's Burn & Earn keeps LP for good under the lock authority.
                      { unlockAt: null, permanent: true }
                    : lockOf(kind.label ?? "", ownerInfos.get(row.owner)?.data ?? null)
              return {
                owner: row.owner,
                tokenAccount: row.tokenAccount,
                amount: row.amount,
                kind: kind.kind,
                label: kind.label,
                ...lock
              }
            })
    return poolFiguresOf(
      { ...pool, slot: pools.slot, lpHolders, lpMissing },
      ctx.mint,
      decimals,
      pools.quotePrices,
      pools.quoteMissing
    )
  })
  const withheld = input.withheld === null ? null : uiAmount(input.withheld, decimals)
  return liquidityOf(figures, input.discoveryMissing, pools.solUsd, uiAmount(input.supplyRaw, decimals), withheld)
}
