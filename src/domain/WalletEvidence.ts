import { Schema } from "effect"
import { Address } from "./Address.ts"
import { Timestamp } from "./ScanEvidence.ts"

// Cached evidence about wallets, imported as NDJSON like scans: labels a source put on an address, and
// counterparty exposures observed for a wallet. Each line carries `type` to say which it is.

export const Severity = Schema.Literal("info", "low", "medium", "high", "critical").annotations({
  identifier: "Severity",
  description: "info < low < medium < high < critical."
})
export type Severity = typeof Severity.Type

const Text = (max: number) => Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max))

export const WalletLabel = Schema.Struct({
  type: Schema.Literal("label"),
  address: Address,
  label: Text(64).annotations({
    description: "e.g. sanctioned, scam, mixer, exploiter, rugger, exchange, market_maker."
  }),
  category: Text(64).annotations({ description: "e.g. sanctions, fraud, deployer, service." }),
  severity: Severity,
  source: Text(64).annotations({ description: "Who said so, e.g. manual_review, ofac_list, community_report." }),
  detail: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(500)), { default: () => "" }),
  observedAt: Timestamp
}).annotations({ identifier: "WalletLabel", parseOptions: { onExcessProperty: "error" } })
export type WalletLabel = typeof WalletLabel.Type

const Direction = Schema.Literal("inbound", "outbound")

export const WalletExposure = Schema.Struct({
  type: Schema.Literal("exposure"),
  walletAddress: Address,
  counterpartyAddress: Address,
  counterpartyLabel: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(64)), { default: () => "" }),
  category: Text(64).annotations({
    description: "Category of the counterparty, e.g. deployer, sanctions, mixer, exchange."
  }),
  direction: Direction,
  exposureType: Text(32).annotations({ description: "e.g. swap, transfer, lp." }),
  hopDistance: Schema.Number.pipe(Schema.int(), Schema.between(1, 6)).annotations({
    description: "1: direct counterparty; 2: counterparty of a counterparty; ..."
  }),
  exposureAmountUsd: Schema.Number.pipe(Schema.nonNegative(), Schema.finite()),
  exposurePct: Schema.Number.pipe(Schema.between(0, 100)).annotations({ description: "Share of the wallet's volume." }),
  txCount: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  lastSeenAt: Timestamp
}).annotations({ identifier: "WalletExposure", parseOptions: { onExcessProperty: "error" } })
export type WalletExposure = typeof WalletExposure.Type

export const WalletEvidenceLine = Schema.Union(WalletLabel, WalletExposure)
export type WalletEvidenceLine = typeof WalletEvidenceLine.Type
