import { Schema } from "effect"
import { Address } from "../../domain/Address.ts"
import { Timestamp } from "../../domain/ScanEvidence.ts"

// The fields are described in docs/market-feed.md: a description on a refinement would replace the
// message an operator reads for a bad value ("Expected a non-negative number, actual -1").

/** One line of a market feed (`risk-api import-market`): one mint's 24 h figures at one moment. */
export const MarketFeedLine = Schema.Struct({
  mint: Address,
  observedAt: Timestamp,
  volume24hUsd: Schema.Number.pipe(Schema.finite(), Schema.nonNegative()),
  trades24h: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  priceChange24hPct: Schema.Number.pipe(Schema.finite(), Schema.greaterThanOrEqualTo(-100)),
  source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))
}).annotations({ identifier: "MarketFeedLine", parseOptions: { onExcessProperty: "error" } })
export type MarketFeedLine = typeof MarketFeedLine.Type
