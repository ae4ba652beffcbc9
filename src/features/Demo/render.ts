import type { ScanEvidenceEncoded } from "../../domain/ScanEvidence.ts"
import type { TokenProfile } from "./profile.ts"

const HOUR_MS = 60 * 60 * 1000

export interface ScanMoment {
  // The latest scan of the token; createdAt and the LP lock expiry are fixed relative to it.
  readonly latestMs: number
  readonly scannedAtMs: number
  // Older scans saw the market at another level: liquidity, volume and counts scale by this.
  readonly drift: number
}

const isoAt = (ms: number): string => new Date(Math.round(ms / 1000) * 1000).toISOString()
const usd = (value: number): number => Number(value.toFixed(2))
const count = (value: number): number => Math.max(0, Math.round(value))

const marketOf = (profile: TokenProfile, drift: number, liquidityUsd: number): ScanEvidenceEncoded["market"] => {
  const { market } = profile
  const marketCap = usd(market.marketCap * drift)
  const [priceChange5m, priceChange1h, priceChange6h, priceChange24h] = market.priceChanges
  const buys = count(market.buys * drift)
  const sells = count(market.sells * drift)
  return {
    priceUsd: Number((marketCap / profile.supply).toPrecision(8)),
    liquidityUsd,
    marketCap,
    volume24h: usd(market.volume24h * drift),
    priceChange5m,
    priceChange1h,
    priceChange6h,
    priceChange24h,
    buyCount24h: buys,
    sellCount24h: sells,
    tradeCount24h: buys + sells,
    uniqueTraders24h: Math.min(buys + sells, count(market.uniqueTraders * drift))
  }
}

// What a full scan reports; scanDepth then blanks what a shallower scan does not read.
const fullScanOf = (profile: TokenProfile, moment: ScanMoment): ScanEvidenceEncoded => {
  const liquidityUsd = usd(profile.liquidity.usd * moment.drift)
  const lockHours = profile.liquidity.lockExpiresInHours
  return {
    mint: profile.mint,
    scannedAt: isoAt(moment.scannedAtMs),
    scanDepth: profile.scanDepth,
    source: "cached_scan",
    name: profile.name,
    symbol: profile.symbol,
    decimals: profile.decimals,
    supply: profile.supply,
    tokenProgram: profile.tokenProgram,
    createdAt: isoAt(moment.latestMs - profile.ageHours * HOUR_MS),
    mintAuthority: profile.mintAuthority,
    freezeAuthority: profile.freezeAuthority,
    extensions: profile.extensions,
    trading: profile.trading,
    liquidity: {
      liquidityUsd,
      lpLocked: profile.liquidity.lpLocked,
      lpLockPercentage: profile.liquidity.lpLockPct,
      lpLockExpiresAt: lockHours === null ? null : isoAt(moment.latestMs + lockHours * HOUR_MS),
      poolCount: profile.liquidity.poolCount
    },
    holders: {
      holderCount: profile.holders.count,
      top: profile.holders.top,
      creatorPct: profile.holders.creatorPct,
      bundledLaunchPct: profile.holders.bundledPct
    },
    deployer: profile.deployer,
    market: marketOf(profile, moment.drift, liquidityUsd),
    metadata: profile.metadata,
    aml: profile.aml,
    verified: profile.verified,
    outcome: profile.outcome
  }
}

export const scanOf = (profile: TokenProfile, moment: ScanMoment): ScanEvidenceEncoded => {
  const scan = fullScanOf(profile, moment)
  switch (profile.scanDepth) {
    case "full":
      return scan
    case "partial":
      // A partial scan skipped the sell simulation and the AML screen.
      return { ...scan, trading: { isHoneypot: null, buyTax: null, sellTax: null }, aml: {} }
    case "metadata_only":
      return {
        mint: scan.mint,
        scannedAt: scan.scannedAt,
        scanDepth: "metadata_only",
        source: scan.source,
        name: scan.name,
        symbol: scan.symbol,
        metadata: scan.metadata,
        outcome: null
      }
  }
}
