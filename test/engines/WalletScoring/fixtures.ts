import { base58 } from "@scure/base"
import { Schema } from "effect"
import { WalletExposure, WalletLabel } from "../../../src/domain/WalletEvidence.ts"
import type { DeployedToken, DeployerRecord, WalletEvidence } from "../../../src/engines/WalletScoring/index.ts"

// A valid address for each small number: 32 bytes, all equal to n.
export const addressOf = (n: number): string => base58.encode(new Uint8Array(32).fill(n))

export const WALLET = addressOf(1)
export const COUNTERPARTY = addressOf(2)
export const OTHER_COUNTERPARTY = addressOf(3)
const OBSERVED_AT = "2026-06-01T12:00:00.000Z"

const decodeLabel = Schema.decodeUnknownSync(WalletLabel)
const decodeExposure = Schema.decodeUnknownSync(WalletExposure)

export const labelOf = (fields: Partial<typeof WalletLabel.Encoded> = {}): WalletLabel =>
  decodeLabel({
    type: "label",
    address: WALLET,
    label: "scam",
    category: "fraud",
    severity: "high",
    source: "manual_review",
    observedAt: OBSERVED_AT,
    ...fields
  })

export const exposureOf = (fields: Partial<typeof WalletExposure.Encoded> = {}): WalletExposure =>
  decodeExposure({
    type: "exposure",
    walletAddress: WALLET,
    counterpartyAddress: COUNTERPARTY,
    category: "sanctions",
    direction: "outbound",
    exposureType: "transfer",
    hopDistance: 1,
    exposureAmountUsd: 10_000,
    exposurePct: 5,
    txCount: 3,
    lastSeenAt: OBSERVED_AT,
    ...fields
  })

export const tokenOf = (n: number, fields: Partial<DeployedToken> = {}): DeployedToken => ({
  address: addressOf(100 + n),
  name: `Token ${n}`,
  symbol: `TK${n}`,
  safetyScore: 85,
  isHoneypot: false,
  lpLocked: true,
  scannedAt: OBSERVED_AT,
  outcome: "active",
  ...fields
})

export interface EvidencePatch {
  readonly labels?: ReadonlyArray<WalletLabel>
  readonly exposures?: ReadonlyArray<WalletExposure>
  readonly counterpartyLabels?: ReadonlyArray<WalletLabel>
  readonly counterpartyLaunches?: ReadonlyArray<readonly [string, DeployerRecord]>
  readonly deployedTokens?: ReadonlyArray<DeployedToken>
}

// Counterparty labels are keyed by the address they carry, as the service builds them.
export const evidenceOf = (patch: EvidencePatch = {}): WalletEvidence => {
  const counterpartyLabels = new Map<string, Array<WalletLabel>>()
  for (const label of patch.counterpartyLabels ?? []) {
    counterpartyLabels.set(label.address, [...(counterpartyLabels.get(label.address) ?? []), label])
  }
  return {
    walletAddress: WALLET,
    labels: patch.labels ?? [],
    exposures: patch.exposures ?? [],
    counterpartyLabels,
    counterpartyLaunches: new Map(patch.counterpartyLaunches ?? []),
    deployedTokens: patch.deployedTokens ?? []
  }
}

// An exchange label and exposures to counterparties that carry only benign labels.
export const CLEAN_EVIDENCE: EvidencePatch = {
  labels: [labelOf({ label: "exchange", category: "service", severity: "info", source: "community_report" })],
  exposures: [
    exposureOf({ category: "exchange", exposureAmountUsd: 250_000, exposurePct: 60 }),
    exposureOf({ counterpartyAddress: OTHER_COUNTERPARTY, category: "dex", exposureType: "swap", hopDistance: 2 })
  ],
  counterpartyLabels: [
    labelOf({ address: COUNTERPARTY, label: "exchange", category: "service", severity: "info" }),
    labelOf({ address: OTHER_COUNTERPARTY, label: "market_maker", category: "service", severity: "low" })
  ],
  counterpartyLaunches: [[OTHER_COUNTERPARTY, { launches: 4, rugged: 0, honeypots: 0 }]]
}
