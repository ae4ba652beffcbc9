import { type Address, getBase58Decoder } from "@solana/kit"
import {
  type Fact,
  type InsiderCluster,
  notObserved,
  observed,
  type PoolLp,
  type PositionOwner,
  type ScanEvidenceV2
} from "../../../domain/EvidenceV2.ts"
import { type PositionLayout, type PositionRead, positionLayoutOf } from "../Pools/Positions.ts"
import { type AccountInfos, isTokenProgram, readAccounts, tokenAccountOf } from "./Accounts.ts"
import { atOrAfter, COMMITMENT, ours, reasonOf, type ScanContext } from "./Context.ts"
import type { Classification } from "./Holders.ts"
import type { PoolBalances, PoolsRead } from "./Pools.ts"

// Stage "positions" (model 2.1): who can withdraw the liquidity of the concentrated-liquidity and bin
// pools (Orca Whirlpool, Raydium CLMM, Meteora DLMM), which have no LP mint. Round 4 reads each pool's
// positions (one getProgramAccounts: the position account type and the pool); round 5 the holder of each
// of the largest positions' NFTs (getTokenLargestAccounts of the NFT mint; a DLMM position names its
// owner, so it needs none); round 6 those token accounts (one getMultipleAccounts for every pool). The
// pools read are the deepest SCANNER_MAX_LP_POOLS of them. A failed or unbudgeted read leaves the pool's
// positions not observed, never empty.

/** Positions whose owners are read per pool. */
const TOP_POSITIONS = 5

const base58 = getBase58Decoder()

/** The pools whose positions are read: the deepest with a position layout. */
export const positionPoolsOf = (
  ctx: ScanContext,
  read: PoolsRead,
  depth: (pool: PoolBalances) => number
): ReadonlyArray<PoolBalances> =>
  read.pools
    .filter((pool) => positionLayoutOf(pool.state.venue) !== undefined)
    .sort((x, y) => depth(y) - depth(x))
    .slice(0, ctx.settings.maxLpPools)

const positionsOfPool = ({ rpc, slot }: ScanContext, layout: PositionLayout, pool: Address) =>
  rpc
    .getProgramAccounts(layout.program, {
      encoding: "base64",
      commitment: COMMITMENT,
      minContextSlot: slot,
      withContext: true,
      ...(layout.dataSlice === null
        ? {}
        : { dataSlice: { offset: layout.dataSlice.offset, length: layout.dataSlice.length } }),
      filters: [
        ...(layout.dataSize === null ? [] : [{ dataSize: BigInt(layout.dataSize) }]),
        { memcmp: { offset: 0n, bytes: base58.decode(layout.discriminator) as never, encoding: "base58" } },
        { memcmp: { offset: BigInt(layout.poolOffset), bytes: pool as string as never, encoding: "base58" } }
      ]
    })
    .send()
    .then((answer) => {
      atOrAfter(answer, slot)
      const positions: Array<PositionRead> = []
      for (const entry of answer.value) {
        const decoded = layout.decode(entry.pubkey, Uint8Array.from(Buffer.from(entry.account.data[0], "base64")))
        if (decoded !== undefined) positions.push(decoded)
      }
      return positions
    })

/** Round 4: each pool's positions. */
export const readPositions = (ctx: ScanContext, pools: ReadonlyArray<PoolBalances>) =>
  Promise.allSettled(pools.map((pool) => positionsOfPool(ctx, positionLayoutOf(pool.state.venue)!, pool.state.address)))

type PositionsRead = Awaited<ReturnType<typeof readPositions>>

/** The largest positions of a pool, by liquidity (those with none left out). */
const topOf = (positions: ReadonlyArray<PositionRead>): ReadonlyArray<PositionRead> =>
  positions
    .filter((position) => position.liquidity > 0n)
    .sort((a, b) => (b.liquidity > a.liquidity ? 1 : b.liquidity < a.liquidity ? -1 : 0))
    .slice(0, TOP_POSITIONS)

/** Round 5: the token account holding each top position's NFT (the largest account of its mint). */
export const readPositionNfts = ({ rpc, slot }: ScanContext, read: PositionsRead) => {
  const mints = [
    ...new Set(
      read.flatMap((result) =>
        result.status === "fulfilled"
          ? topOf(result.value).flatMap((position) => (position.nftMint === null ? [] : [position.nftMint]))
          : []
      )
    )
  ]
  return Promise.allSettled(
    mints.map((mint) =>
      rpc
        .getTokenLargestAccounts(mint, { commitment: COMMITMENT })
        .send()
        .then((answer) => atOrAfter(answer, slot).value.find((entry) => BigInt(entry.amount) > 0n)?.address ?? null)
    )
  ).then((results) => new Map(mints.map((mint, i) => [mint as string, results[i]!])))
}

type NftsRead = Awaited<ReturnType<typeof readPositionNfts>>

/**
 * Before round 5: the accounts that say whether the top positions are locked (an Orca Whirlpool
 * LockConfig PDA; a DLMM position itself and its pair), derived between the rounds so that round 5's
 * read starts with the round's others (one batch).
 */
export const positionLockAddressesOf = async (
  pools: ReadonlyArray<PoolBalances>,
  read: PositionsRead
): Promise<ReadonlyMap<string, ReadonlyArray<Address>>> =>
  new Map(
    await Promise.all(
      pools.flatMap((pool, i) => {
        const lock = positionLayoutOf(pool.state.venue)?.lock
        const result = read[i]
        return lock === undefined || result?.status !== "fulfilled"
          ? []
          : topOf(result.value).map(
              async (position) =>
                [position.address as string, await lock.accounts(position.address, pool.state.address)] as const
            )
      })
    )
  )

/** Round 5, with the NFTs: those accounts, one getMultipleAccounts for every pool; an Error when it failed. */
export const readPositionLocks = async (ctx: ScanContext, at: ReadonlyMap<string, ReadonlyArray<Address>>) => {
  const addresses = [...new Set([...at.values()].flat())]
  const infos: AccountInfos | Error =
    addresses.length === 0
      ? new Map()
      : await readAccounts(ctx.rpc, addresses, ctx.slot).then(
          (answer) => answer.infos as AccountInfos,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
        )
  return { at, infos, now: { slot: ctx.slot, unixTime: BigInt(Math.floor(Date.now() / 1000)) } }
}

type LocksRead = Awaited<ReturnType<typeof readPositionLocks>>

/** Whether the position is locked: null where the venue's locks are not read, the read failed or cannot tell. */
const lockedOf = (layout: PositionLayout, position: Address, owner: Address, locks: LocksRead): boolean | null => {
  if (layout.lockHolder !== undefined) return owner === layout.lockHolder.address
  const addresses = locks.at.get(position)
  if (layout.lock === undefined || addresses === undefined || locks.infos instanceof Error) return null
  const infos = locks.infos
  return layout.lock.locked(
    position,
    addresses.map((at) => infos.get(at) ?? null),
    locks.now
  )
}

/** Round 6: the NFT token accounts (their owners); an Error when the read failed. */
export const readNftAccounts = ({ rpc, slot }: ScanContext, nfts: NftsRead): Promise<AccountInfos | Error> => {
  const accounts = [...nfts.values()].flatMap((result) =>
    result.status === "fulfilled" && result.value !== null ? [result.value] : []
  )
  return accounts.length === 0
    ? Promise.resolve(new Map())
    : readAccounts(rpc, accounts, slot).then(
        (answer) => answer.infos as AccountInfos,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error)))
      )
}

export interface PositionsInput {
  readonly pools: ReadonlyArray<PoolBalances>
  readonly read: PositionsRead
  readonly nfts: NftsRead
  readonly nftAccounts: AccountInfos | Error
  readonly locks: LocksRead
  readonly classify: (owner: Address, infos: AccountInfos) => Classification
}

type PositionsFact = NonNullable<PoolLp["positions"]>

/** The owner of a position: the DLMM owner field, or the holder of its NFT; an Error saying why it is unknown. */
const ownerOf = (position: PositionRead, nfts: NftsRead, nftAccounts: AccountInfos | Error): Address | Error => {
  if (position.owner !== null) return position.owner
  const nft = position.nftMint === null ? undefined : nfts.get(position.nftMint)
  if (nft === undefined) return new Error(`position NFT ${position.nftMint} not read`)
  if (nft.status === "rejected") return new Error(reasonOf(`position NFT ${position.nftMint}`, nft.reason))
  if (nft.value === null) return new Error(`position NFT ${position.nftMint}: no holder`)
  if (nftAccounts instanceof Error) return new Error(reasonOf("position NFT accounts", nftAccounts))
  const info = nftAccounts.get(nft.value) ?? null
  const parsed = info === null || !isTokenProgram(info.owner) ? undefined : tokenAccountOf(info.data)
  if (parsed === undefined || parsed.mint !== position.nftMint || parsed.amount === 0n)
    return new Error(`position NFT ${position.nftMint}: ${nft.value} is not its holder's token account`)
  return parsed.owner
}

/** Each read pool's positions fact, by pool address; gaps noted for the reads that failed. */
export const positionFactsOf = (ctx: ScanContext, input: PositionsInput): ReadonlyMap<string, PositionsFact> => {
  const facts = new Map<string, PositionsFact>()
  if (input.locks.infos instanceof Error) ctx.gaps.note(reasonOf("position locks", input.locks.infos))
  input.pools.forEach((pool, i) => {
    const layout = positionLayoutOf(pool.state.venue)!
    const result = input.read[i]!
    const at = pool.state.address
    if (result.status === "rejected") {
      facts.set(at, ctx.gaps.missed(`${pool.state.venue} ${at} positions`, result.reason))
      return
    }
    const total = result.value.reduce((sum, position) => sum + position.liquidity, 0n)
    const top: Array<PositionOwner> = []
    for (const position of topOf(result.value)) {
      const owner = ownerOf(position, input.nfts, input.nftAccounts)
      if (owner instanceof Error) {
        facts.set(at, ctx.gaps.missed(`${pool.state.venue} ${at} position owners`, owner))
        return
      }
      const lockHolder = layout.lockHolder?.address === owner ? layout.lockHolder : undefined
      const kind =
        lockHolder === undefined
          ? input.classify(owner, new Map())
          : { kind: "locker" as const, label: lockHolder.label, labelSource: lockHolder.source }
      top.push({
        position: ours(position.address),
        owner: ours(owner),
        nftMint: position.nftMint === null ? null : ours(position.nftMint),
        liquidity: position.liquidity.toString(),
        pct: total === 0n ? 0 : Math.min(100, Number((position.liquidity * 1_000_000n) / total) / 10_000),
        kind: kind.kind,
        label: kind.label,
        locked: lockedOf(layout, position.address, owner, input.locks)
      })
    }
    facts.set(at, observed({ count: result.value.length, top }))
  })
  return facts
}

/**
 * The liquidity block with each concentrated or bin pool's positions: observed for the pools read (owners
 * in a deployer_funded or common_funder cluster marked insider), not observed for those beyond the limit.
 */
export const withPositions = (
  liquidity: ScanEvidenceV2["liquidity"],
  facts: ReadonlyMap<string, PositionsFact>,
  clusters: Fact<ReadonlyArray<InsiderCluster>> | undefined,
  maxPools: number
): ScanEvidenceV2["liquidity"] => {
  if (liquidity.pools.status !== "observed") return liquidity
  const linked = new Map<string, string>()
  if (clusters?.status === "observed")
    for (const cluster of clusters.value)
      if (cluster.reason !== "same_slot")
        for (const member of cluster.members) linked.set(member.owner, `${cluster.reason} cluster`)
  const pools = liquidity.pools.value.map((pool) => {
    if (positionLayoutOf(pool.venue) === undefined) return pool
    const fact: PositionsFact =
      facts.get(pool.pool) ??
      notObserved(`not among the ${maxPools} deepest concentrated-liquidity pools read (SCANNER_MAX_LP_POOLS)`)
    const marked: PositionsFact =
      fact.status !== "observed"
        ? fact
        : observed({
            ...fact.value,
            top: fact.value.top.map((entry) => {
              const cluster = entry.kind === "holder" ? linked.get(entry.owner) : undefined
              return cluster === undefined ? entry : { ...entry, kind: "insider" as const, label: cluster }
            })
          })
    return { ...pool, positions: marked }
  })
  return { ...liquidity, pools: observed(pools) }
}
