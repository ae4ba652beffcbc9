import type { ScanEvidence } from "../../domain/ScanEvidence.ts"

export interface EvidenceWeight {
  readonly evidence: string
  readonly weight: number
  readonly isObserved: (evidence: ScanEvidence) => boolean
}

const observed = (...values: ReadonlyArray<unknown>): boolean => values.some((value) => value !== null)

// Weights sum to 100. A null authority can mean "revoked", so the mint account counts as read when any of
// its fields came back; an empty holders.top means the holder list was not read.
export const EVIDENCE_WEIGHTS: ReadonlyArray<EvidenceWeight> = [
  {
    evidence: "mint account (decimals, supply, authorities, extensions)",
    weight: 15,
    isObserved: (e) => observed(e.decimals, e.supply, e.mintAuthority, e.freezeAuthority)
  },
  { evidence: "trading.isHoneypot", weight: 15, isObserved: (e) => observed(e.trading.isHoneypot) },
  { evidence: "trading.sellTax", weight: 5, isObserved: (e) => observed(e.trading.sellTax) },
  { evidence: "trading.buyTax", weight: 3, isObserved: (e) => observed(e.trading.buyTax) },
  {
    evidence: "liquidity.liquidityUsd or market.liquidityUsd",
    weight: 10,
    isObserved: (e) => observed(e.liquidity.liquidityUsd, e.market.liquidityUsd)
  },
  {
    evidence: "liquidity.lpLocked, liquidity.lpLockPercentage or liquidity.positionsCreatorPct",
    weight: 7,
    isObserved: (e) =>
      observed(e.liquidity.lpLocked, e.liquidity.lpLockPercentage, e.liquidity.positionsCreatorPct ?? null)
  },
  { evidence: "holders.top (non-empty)", weight: 10, isObserved: (e) => e.holders.top.length > 0 },
  { evidence: "holders.holderCount", weight: 3, isObserved: (e) => observed(e.holders.holderCount) },
  { evidence: "holders.creatorPct", weight: 2, isObserved: (e) => observed(e.holders.creatorPct) },
  { evidence: "holders.bundledLaunchPct", weight: 2, isObserved: (e) => observed(e.holders.bundledLaunchPct) },
  { evidence: "deployer.priorRugs", weight: 6, isObserved: (e) => observed(e.deployer.priorRugs) },
  { evidence: "deployer.priorHoneypots", weight: 3, isObserved: (e) => observed(e.deployer.priorHoneypots) },
  { evidence: "deployer.flagged", weight: 2, isObserved: (e) => observed(e.deployer.flagged) },
  { evidence: "createdAt", weight: 5, isObserved: (e) => observed(e.createdAt) },
  { evidence: "market.volume24h", weight: 2, isObserved: (e) => observed(e.market.volume24h) },
  { evidence: "market.marketCap", weight: 2, isObserved: (e) => observed(e.market.marketCap) },
  {
    evidence: "market.priceChange (any window)",
    weight: 1,
    isObserved: (e) =>
      observed(e.market.priceChange5m, e.market.priceChange1h, e.market.priceChange6h, e.market.priceChange24h)
  },
  {
    evidence: "market.buyCount24h and market.sellCount24h",
    weight: 1,
    isObserved: (e) => e.market.buyCount24h !== null && e.market.sellCount24h !== null
  },
  { evidence: "metadata.mutable", weight: 2, isObserved: (e) => observed(e.metadata.mutable) },
  { evidence: "name and symbol", weight: 1, isObserved: (e) => e.name !== null && e.symbol !== null },
  {
    evidence: "aml.flaggedHolderCount or aml.flaggedHolderPct",
    weight: 3,
    isObserved: (e) => observed(e.aml.flaggedHolderCount, e.aml.flaggedHolderPct)
  }
]

const TOTAL_WEIGHT = EVIDENCE_WEIGHTS.reduce((total, entry) => total + entry.weight, 0)

// Share of the weighted evidence that was observed, 0 to 1, rounded to two decimals.
export const evidenceCompletenessOf = (evidence: ScanEvidence): number => {
  const observedWeight = EVIDENCE_WEIGHTS.filter((entry) => entry.isObserved(evidence)).reduce(
    (total, entry) => total + entry.weight,
    0
  )
  return Math.round((observedWeight / TOTAL_WEIGHT) * 100) / 100
}
