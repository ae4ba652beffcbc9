import { epochMillisOf, type ScanEvidence } from "../Domain/ScanEvidence.ts"
import type { TokenRiskPacket } from "./Schemas.ts"
import { assessTokenOnce, confidenceOf } from "../Scoring/index.ts"
import { observe } from "../Scoring/observed.ts"

const roundPct = (value: number | null): number | null => value === null ? null : Math.round(value * 100) / 100

export const TOKEN_RISK_SOURCES = ["svc_token_scans", "svc_scoring_engine"] as const

/** The full token risk packet of a mint's latest scan, as seen at `now`. */
export const tokenRiskPacketOf = (evidence: ScanEvidence, now: number): TokenRiskPacket => {
  const assessment = assessTokenOnce(evidence)
  const ageSeconds = Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))
  const { market, trading, liquidity } = evidence
  const observed = observe(evidence)
  return {
    address: evidence.mint,
    name: evidence.name,
    symbol: evidence.symbol,
    safetyScore: assessment.safetyScore,
    riskScore: assessment.riskScore,
    riskLevel: assessment.riskLevel,
    recommendedAction: assessment.recommendedAction,
    summary: assessment.summary,
    modelVersion: assessment.modelVersion,
    confidence: confidenceOf(assessment, evidence, ageSeconds),
    facets: assessment.facets,
    hardCaps: assessment.hardCaps,
    risks: assessment.risks,
    market: {
      liquidityUsd: liquidity.liquidityUsd ?? market.liquidityUsd,
      marketCap: market.marketCap,
      volume24h: market.volume24h,
      priceChange5m: market.priceChange5m,
      priceChange1h: market.priceChange1h,
      priceChange6h: market.priceChange6h,
      priceChange24h: market.priceChange24h,
      buyCount24h: market.buyCount24h,
      sellCount24h: market.sellCount24h,
      tradeCount24h: market.tradeCount24h
    },
    evidence: {
      isHoneypot: trading.isHoneypot,
      lpLocked: liquidity.lpLocked,
      lpLockPercentage: liquidity.lpLockPercentage,
      buyTax: observed.buy.totalPct,
      sellTax: observed.sell.totalPct,
      transferFeePct: observed.sell.transferFeePct,
      top10HolderPct: roundPct(observed.top10Pct),
      excludedHolderPct: observed.excludedPct,
      issuerVerified: evidence.verified,
      listed: evidence.listed ?? [],
      deployerAddress: evidence.deployer.address,
      scanSource: evidence.source,
      scannedAt: evidence.scannedAt
    },
    scoreBreakdown: assessment.scoreBreakdown,
    sources: TOKEN_RISK_SOURCES
  }
}
