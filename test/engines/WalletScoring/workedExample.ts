import { Schema } from "effect"
import { WalletExposure, WalletLabel } from "../../../src/domain/WalletEvidence.ts"
import type { DeployedToken, DeployerRecord, WalletEvidence } from "../../../src/engines/WalletScoring/index.ts"

// The JSON form of WalletEvidence used by docs/wallet-model.md: the two maps as objects keyed by address.
const DocEvidence = Schema.Struct({
  walletAddress: Schema.String,
  labels: Schema.Array(WalletLabel),
  exposures: Schema.Array(WalletExposure),
  counterpartyLabels: Schema.Record({ key: Schema.String, value: Schema.Array(WalletLabel) }),
  counterpartyLaunches: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ launches: Schema.Number, rugged: Schema.Number, honeypots: Schema.Number })
  }),
  deployedTokens: Schema.Array(
    Schema.Struct({
      address: Schema.String,
      name: Schema.NullOr(Schema.String),
      symbol: Schema.NullOr(Schema.String),
      safetyScore: Schema.Number,
      isHoneypot: Schema.NullOr(Schema.Boolean),
      lpLocked: Schema.NullOr(Schema.Boolean),
      scannedAt: Schema.String,
      outcome: Schema.NullOr(Schema.Literal("active", "rugged", "abandoned"))
    })
  )
})

export const walletEvidenceFromJson = (json: unknown): WalletEvidence => {
  const decoded = Schema.decodeUnknownSync(DocEvidence)(json)
  return {
    walletAddress: decoded.walletAddress,
    labels: decoded.labels,
    exposures: decoded.exposures,
    counterpartyLabels: new Map(Object.entries(decoded.counterpartyLabels)),
    counterpartyLaunches: new Map<string, DeployerRecord>(Object.entries(decoded.counterpartyLaunches)),
    deployedTokens: decoded.deployedTokens satisfies ReadonlyArray<DeployedToken>
  }
}
