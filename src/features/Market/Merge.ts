import { Config } from "effect"
import { type MarketV2, observed, type ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import type { MarketFeedLine } from "./FeedLine.ts"

const MAX_MARKET_AGE_SECONDS = 7 * 86_400

/** SCANNER_MARKET_MAX_AGE_SECONDS: how old a feed's figures may be, at the scan's time, to be merged into it. */
export const MarketMaxAgeSeconds = Config.integer("SCANNER_MARKET_MAX_AGE_SECONDS").pipe(
  Config.validate({
    message: `SCANNER_MARKET_MAX_AGE_SECONDS must be between 1 and ${MAX_MARKET_AGE_SECONDS}`,
    validation: (n) => n >= 1 && n <= MAX_MARKET_AGE_SECONDS
  }),
  Config.withDefault(3_600)
)

/** The figures as the evidence's market fact: what a feed does not give stays null (the view fills price from the pools). */
export const marketOf = (figures: MarketFeedLine): MarketV2 => ({
  priceUsd: null,
  liquidityUsd: null,
  marketCap: null,
  volume24h: figures.volume24hUsd,
  priceChange5m: null,
  priceChange1h: null,
  priceChange6h: null,
  priceChange24h: figures.priceChange24hPct,
  buyCount24h: null,
  sellCount24h: null,
  tradeCount24h: figures.trades24h,
  uniqueTraders24h: null,
  source: figures.source,
  observedAt: figures.observedAt
})

/**
 * A scan with a feed's figures merged: its `market` fact becomes observed when the figures were observed at
 * most `maxAgeSeconds` before the scan (or after it). Otherwise, and when the scanner observed a market
 * itself, the scan stays as the scanner wrote it.
 */
export const withMarketFigures = (
  evidence: ScanEvidenceV2,
  figures: MarketFeedLine | undefined,
  maxAgeSeconds: number
): ScanEvidenceV2 => {
  if (figures === undefined || evidence.market.status === "observed") return evidence
  const ageMs = Date.parse(evidence.scannedAt) - Date.parse(figures.observedAt)
  return ageMs > maxAgeSeconds * 1000 ? evidence : { ...evidence, market: observed(marketOf(figures)) }
}
