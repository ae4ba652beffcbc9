import type { ScanEvidence } from "./ScanEvidence.ts"
import { type MarketV2, type MintExtension, type PoolLp, type ScanEvidenceV2, valueOfFact } from "./EvidenceV2.ts"
import { clusterSummaryOf } from "./EvidenceInsiders.ts"

// v2 evidence -> the scoring view: the v1 shape the engines, the decision model and the routes read.

const extension = (scan: ScanEvidenceV2, name: string): MintExtension | undefined =>
  scan.extensions.status === "observed" ? scan.extensions.value.find((ext) => ext.name === name) : undefined

/** Whether the extension is present: null when the extension list was not observed. */
const hasExtension = (scan: ScanEvidenceV2, name: string): boolean | null =>
  scan.extensions.status === "not_observed" ? null : extension(scan, name) !== undefined

const stringSetting = (ext: MintExtension | undefined, key: string): string | null => {
  const value = ext?.settings[key]
  return typeof value === "string" ? value : null
}

/**
 * The v1-shaped view the scoring engines, the decision model and the routes read. A fact that is not
 * observed becomes null (unknown, which lowers confidence); a fact that does not apply becomes the value
 * that means "none" where v1 has one (no transfer fee is 0 bps; no LP lock for a token without LP is
 * null and its liquidity facts are left to the pool data).
 */
export const scoringView = (scan: ScanEvidenceV2): ScanEvidence => {
  const lpBurnedPct = lpBurnedPctOf(scan)
  const lpTopWalletsPct = lpTopWalletsPctOf(scan)
  const positionsCreatorPct = positionsCreatorPctOf(scan)
  const program = valueOfFact(scan.token.program) ?? "spl-token"
  const metadata = valueOfFact(scan.metadata)
  const transferFee =
    scan.transferFee.status === "observed"
      ? Math.max(scan.transferFee.value.bps, scan.transferFee.value.scheduledBps ?? 0)
      : scan.transferFee.status === "not_applicable"
        ? program === "token-2022"
          ? 0
          : null
        : null
  const tax = valueOfFact(scan.tradingTax)
  const top = valueOfFact(scan.holders.top) ?? []
  const hook = extension(scan, "TransferHook")
  const fee = valueOfFact(scan.transferFee)
  const hookProgram = scan.transferHookProgram === undefined ? null : valueOfFact(scan.transferHookProgram)
  const defaultState = extension(scan, "DefaultAccountState")
  const deployer = valueOfFact(scan.deployer)
  return {
    mint: scan.mint,
    scannedAt: scan.scannedAt,
    scanDepth: scan.scanDepth,
    source: scan.source,
    name: metadata?.name ?? null,
    symbol: metadata?.symbol ?? null,
    decimals: valueOfFact(scan.token.decimals),
    supply: valueOfFact(scan.token.supply),
    tokenProgram: program,
    createdAt: valueOfFact(scan.token.createdAt),
    mintAuthority: valueOfFact(scan.token.mintAuthority),
    freezeAuthority: valueOfFact(scan.token.freezeAuthority),
    extensions: {
      transferFeeBps: transferFee,
      permanentDelegate: extension(scan, "PermanentDelegate")?.addresses.delegate ?? null,
      transferHook: hook?.addresses.programId ?? null,
      // SPL Token mints have no extensions: v1 leaves these null for them.
      defaultAccountStateFrozen:
        program !== "token-2022"
          ? null
          : defaultState === undefined
            ? hasExtension(scan, "DefaultAccountState") === null
              ? null
              : false
            : stringSetting(defaultState, "state") === "frozen",
      nonTransferable: program !== "token-2022" ? null : hasExtension(scan, "NonTransferable"),
      mintCloseAuthority: extension(scan, "MintCloseAuthority")?.addresses.closeAuthority ?? null,
      ...pausableOf(scan),
      // Model 2.1: a scheduled fee apart from the one in effect, and the hook program's upgradeability.
      ...(fee === null || fee.scheduledBps === null || fee.scheduledBps === fee.bps
        ? {}
        : { transferFeeNowBps: fee.bps, transferFeeScheduledEpoch: fee.scheduledEpoch ?? null }),
      ...(hookProgram === null
        ? {}
        : { transferHookUpgradeable: hookProgram.upgradeable, transferHookAuthority: hookProgram.upgradeAuthority })
    },
    trading: {
      isHoneypot: valueOfFact(scan.honeypot),
      buyTax: tax?.buyPct ?? null,
      sellTax: tax?.sellPct ?? null
    },
    liquidity: {
      liquidityUsd: valueOfFact(scan.liquidity.liquidityUsd),
      lpLocked: valueOfFact(scan.liquidity.lpLocked),
      lpLockPercentage: valueOfFact(scan.liquidity.lpLockedPct),
      lpLockExpiresAt: valueOfFact(scan.liquidity.lpLockExpiresAt),
      poolCount: valueOfFact(scan.liquidity.poolCount),
      ...(lpBurnedPct === null ? {} : { lpBurnedPct }),
      ...(lpTopWalletsPct === null ? {} : { lpTopWalletsPct }),
      ...(bondingCurveOnly(scan) ? { bondingCurveOnly: true } : {}),
      ...curveOf(scan),
      ...(positionsCreatorPct === null ? {} : { positionsCreatorPct })
    },
    holders: insiderHoldersOf(scan, {
      holderCount: valueOfFact(scan.holders.count),
      top: top.map((holder) => ({
        address: holder.address,
        pct: holder.pct,
        kind: holder.kind,
        ...(holder.unlockAt === undefined || holder.unlockAt === null ? {} : { unlockAt: holder.unlockAt })
      })),
      creatorPct: valueOfFact(scan.holders.creatorPct),
      bundledLaunchPct: valueOfFact(scan.holders.bundledLaunchPct)
    }),
    deployer: {
      address: deployer?.address ?? null,
      priorLaunches: scan.deployerRecord.priorLaunches,
      priorRugs: scan.deployerRecord.priorRugs,
      priorHoneypots: scan.deployerRecord.priorHoneypots,
      flagged: scan.deployerRecord.flagged,
      ...deployerHoldingOf(scan)
    },
    market: marketOf(scan),
    metadata: {
      mutable: metadata?.mutable ?? null,
      uri: metadata?.uri ?? null,
      copycatOf: valueOfFact(scan.copycatOf)
    },
    aml: valueOfFact(scan.aml) ?? { flaggedHolderCount: null, flaggedHolderPct: null },
    verified: scan.issuerVerified !== null,
    ...(scan.listed.length === 0 ? {} : { listed: scan.listed }),
    outcome: scan.outcome
  }
}

// The insiders block feeds the ownership rules (docs/scoring-model.md): a holder in a deployer_funded or
// common_funder cluster is an insider (insider_holding), the supply bought in the creation slot is the
// bundled launch share (bundled_launch) when the scan has no other figure for it, and the supply bought in
// the slots after it the sniped share (sniped_launch). The observed clusters are kept, summarised, for the
// token risk packet's risks (clusterRiskOf names each). Without the block the fields are left out.
const insiderHoldersOf = (scan: ScanEvidenceV2, holders: ScanEvidence["holders"]): ScanEvidence["holders"] => {
  const insiders = scan.insiders
  if (insiders === undefined) return holders
  const launch = valueOfFact(insiders.launchBuyers)
  const clusters = valueOfFact(insiders.clusters)
  const linked = new Set<string>(
    clusters
      ?.filter((cluster) => cluster.reason !== "same_slot")
      .flatMap((cluster) => cluster.members.map((member) => member.owner)) ?? []
  )
  return {
    ...holders,
    ...(clusters === null || clusters.length === 0 ? {} : { clusters: clusters.map(clusterSummaryOf) }),
    top: holders.top.map((holder) =>
      holder.kind === "holder" && linked.has(holder.address) ? { ...holder, kind: "insider" } : holder
    ),
    bundledLaunchPct: holders.bundledLaunchPct ?? launch?.sameSlotPct ?? null,
    sniperPct: launch?.sniperPct ?? null
  }
}

// Dev sold % (dev_sold): the share of its holding at the close of the launch window the deployer no longer
// holds; null when it held none, or when the holding was not observed. The deployer's cluster is not in it:
// the evidence has its members' holdings now, not at launch.
const deployerHoldingOf = (scan: ScanEvidenceV2): Pick<ScanEvidence["deployer"], "initialPct" | "soldPct"> => {
  if (scan.insiders === undefined) return {}
  const holding = valueOfFact(scan.insiders.deployerHolding)
  if (holding === null) return { initialPct: null, soldPct: null }
  const computed =
    holding.initialPct > 0
      ? Math.round(Math.min(100, Math.max(0, (1 - holding.currentPct / holding.initialPct) * 100)) * 100) / 100
      : null
  return { initialPct: holding.initialPct, soldPct: holding.soldPct ?? computed }
}

// The model-2.0 fields are left out when there is nothing to say, so a v1 scan's view is unchanged.
const pausableOf = (scan: ScanEvidenceV2): Pick<ScanEvidence["extensions"], "pausableAuthority" | "paused"> => {
  const pausable = extension(scan, "PausableConfig")
  if (pausable === undefined) return {}
  const paused = pausable.settings.paused
  return {
    pausableAuthority: pausable.addresses.authority ?? null,
    paused: typeof paused === "boolean" ? paused : null
  }
}

// Model 2.1: the share of a pool's LP the 3 largest wallets hold (who could pull it), the highest across pools.
const LP_WALLET_KINDS: ReadonlyArray<string> = ["holder", "creator", "insider", "exchange"]
const lpTopWalletsPctOf = (scan: ScanEvidenceV2): number | null => {
  if (scan.liquidity.pools.status !== "observed") return null
  const shares = scan.liquidity.pools.value.flatMap((pool) => {
    if (pool.lpHolders?.status !== "observed") return []
    const wallets = pool.lpHolders.value
      .filter((holder) => LP_WALLET_KINDS.includes(holder.kind))
      .map((holder) => holder.pct)
    return [
      Math.min(
        100,
        wallets
          .sort((a, b) => b - a)
          .slice(0, 3)
          .reduce((a, b) => a + b, 0)
      )
    ]
  })
  return shares.length === 0 ? null : Math.round(Math.max(...shares) * 100) / 100
}

// Model 2.1: the share of the token's concentrated liquidity in positions the deployer or its insider cluster owns
// that are not locked (a lock not read counts as none): per pool the sum of those positions' shares, across the
// pools whose positions were read weighted by their liquidity (the highest pool's share when a pool's liquidity
// is not valued, which can only read worse). Null when no pool's positions were read, or the deepest concentrated
// pool's were not (a failed read of the main pool must not let a shallow one speak for the token).
const PULLABLE_POSITION_KINDS: ReadonlyArray<string> = ["creator", "insider"]
const positionsCreatorPctOf = (scan: ScanEvidenceV2): number | null => {
  if (scan.liquidity.pools.status !== "observed") return null
  const concentrated = scan.liquidity.pools.value.filter((pool) => pool.positions !== undefined)
  const usd = (pool: PoolLp): number | null => (pool.liquidityUsd === undefined ? null : valueOfFact(pool.liquidityUsd))
  const deepest = [...concentrated].sort((a, b) => (usd(b) ?? -1) - (usd(a) ?? -1))[0]
  if (deepest === undefined || deepest.positions?.status !== "observed") return null
  const read = concentrated.flatMap((pool) => {
    if (pool.positions?.status !== "observed") return []
    const pulled = pool.positions.value.top
      .filter((position) => PULLABLE_POSITION_KINDS.includes(position.kind) && position.locked !== true)
      .reduce((total, position) => total + position.pct, 0)
    return [{ pct: Math.min(100, pulled), usd: usd(pool) }]
  })
  const totalUsd = read.reduce((total, pool) => total + (pool.usd ?? 0), 0)
  const share =
    read.every((pool) => pool.usd !== null) && totalUsd > 0
      ? read.reduce((total, pool) => total + pool.pct * (pool.usd ?? 0), 0) / totalUsd
      : Math.max(...read.map((pool) => pool.pct))
  return Math.round(share * 100) / 100
}

// Model 2.1: liquidity held only by bonding curves has no LP anyone could pull.
const bondingCurveOnly = (scan: ScanEvidenceV2): boolean =>
  scan.liquidity.pools.status === "observed" &&
  scan.liquidity.pools.value.length > 0 &&
  scan.liquidity.pools.value.every((pool) => pool.shape === "bonding_curve")

// Model 2.1: the bonding curves among the pools. A curve that has not completed is a market (it quotes buys and
// sells from its reserves), priced on its virtual + real quote reserve: the live curves' depths summed, null when
// one of them has no depth read. A completed curve trades nothing until its migration pool is seen.
const curveOf = (scan: ScanEvidenceV2): Pick<ScanEvidence["liquidity"], "curve" | "curveDepthUsd"> => {
  if (scan.liquidity.pools.status !== "observed") return {}
  const curves = scan.liquidity.pools.value.flatMap((pool) =>
    pool.bondingCurve?.status === "observed" ? [pool.bondingCurve.value] : []
  )
  if (curves.length === 0) return {}
  const live = curves.filter((curve) => !curve.complete)
  if (live.length === 0) return { curve: "complete" }
  const depths = live.map((curve) => curve.depthUsd ?? null)
  return {
    curve: "live",
    curveDepthUsd: depths.some((depth) => depth === null)
      ? null
      : Math.round(depths.reduce((total: number, depth) => total + (depth ?? 0), 0) * 100) / 100
  }
}

// The LP share burned across pools, weighted equally (per-pool LP comes from the pool scanner).
const lpBurnedPctOf = (scan: ScanEvidenceV2): number | null => {
  if (scan.liquidity.pools.status !== "observed") return null
  const burned = scan.liquidity.pools.value.flatMap((pool) =>
    pool.burnedPct.status === "observed" ? [pool.burnedPct.value] : []
  )
  return burned.length === 0 ? null : Math.round((burned.reduce((a, b) => a + b, 0) / burned.length) * 100) / 100
}

// Price, liquidity and market cap read from the pools fill what a market feed did not give.
const marketOf = (scan: ScanEvidenceV2): ScanEvidence["market"] => {
  const market = v1Market(valueOfFact(scan.market))
  const price = scan.liquidity.priceUsd === undefined ? null : valueOfFact(scan.liquidity.priceUsd)
  const cap = scan.liquidity.marketCapUsd === undefined ? null : valueOfFact(scan.liquidity.marketCapUsd)
  if (price === null && cap === null) return market
  return {
    ...market,
    priceUsd: market.priceUsd ?? price?.value ?? null,
    liquidityUsd: market.liquidityUsd ?? valueOfFact(scan.liquidity.liquidityUsd),
    marketCap: market.marketCap ?? cap
  }
}

// The view keeps v1's market object: a feed's name and time stay in the v2 document.
const v1Market = (market: MarketV2 | null): ScanEvidence["market"] => {
  if (market === null) return emptyMarket
  const { source: _source, observedAt: _observedAt, ...figures } = market
  return figures
}

const emptyMarket: ScanEvidence["market"] = {
  priceUsd: null,
  liquidityUsd: null,
  marketCap: null,
  volume24h: null,
  priceChange5m: null,
  priceChange1h: null,
  priceChange6h: null,
  priceChange24h: null,
  buyCount24h: null,
  sellCount24h: null,
  tradeCount24h: null,
  uniqueTraders24h: null
}
