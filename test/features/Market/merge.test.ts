import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { notObserved, observed, ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import type { MarketFeedLine } from "../../../src/features/Market/FeedLine.ts"
import { withMarketFigures } from "../../../src/features/Market/Merge.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

// The merge rule on its own: a feed's figures become the scan's market fact while they are fresh.

const REASON =
  "24 h volume, trades and price changes are not readable from plain RPC; an operator can merge a market feed"
const mint = newAddress()
const scannedAt = minutesAgo(0)
const base = upgradeV1(decodeScan(cleanScan(mint, { scannedAt })))
const scan: ScanEvidenceV2 = { ...base, market: notObserved(REASON) }
const figures = (minutesOld: number): MarketFeedLine => ({
  mint,
  observedAt: minutesAgo(minutesOld, Date.parse(scannedAt)),
  volume24hUsd: 48_000,
  trades24h: 912,
  priceChange24hPct: -35.5,
  source: "feed-a"
})

describe("market feed merge", () => {
  test("figures observed within the window become the market fact, with their source and time", () => {
    const merged = withMarketFigures(scan, figures(59), 3_600)
    expect(merged.market).toEqual(
      observed({
        priceUsd: null,
        liquidityUsd: null,
        marketCap: null,
        volume24h: 48_000,
        priceChange5m: null,
        priceChange1h: null,
        priceChange6h: null,
        priceChange24h: -35.5,
        buyCount24h: null,
        sellCount24h: null,
        tradeCount24h: 912,
        uniqueTraders24h: null,
        source: "feed-a",
        observedAt: figures(59).observedAt
      })
    )
    // The rest of the scan is the scanner's.
    expect({ ...merged, market: scan.market }).toEqual(scan)
    // A valid v2 document, and the view the routes read has the figures but not the feed's name.
    const roundTrip = Schema.decodeUnknownSync(ScanEvidenceV2)(Schema.encodeSync(ScanEvidenceV2)(merged))
    expect(roundTrip).toEqual(merged)
    const view = scoringView(merged)
    expect(view.market).toMatchObject({ volume24h: 48_000, tradeCount24h: 912, priceChange24h: -35.5 })
    expect(Object.keys(view.market)).not.toContain("source")
  })

  test("figures older than the window, or none, leave the scanner's not_observed fact and reason", () => {
    expect(withMarketFigures(scan, figures(61), 3_600)).toBe(scan)
    expect(withMarketFigures(scan, figures(61), 3_660).market.status).toBe("observed")
    expect(withMarketFigures(scan, undefined, 3_600).market).toEqual(notObserved(REASON))
  })

  test("a market the scanner observed itself is kept", () => {
    expect(withMarketFigures(base, figures(1), 3_600)).toBe(base)
  })
})
