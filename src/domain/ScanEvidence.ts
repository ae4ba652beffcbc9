import { ParseResult, Schema } from "effect"
import { Address } from "./Address.ts"
import { ClusterSummary } from "./EvidenceInsiders.ts"

// What a scanner observed about one mint at one moment. Scans are append-only; every field a scanner
// could not observe is null (or absent), and missing evidence lowers confidence instead of reading as safe.

const Nullable = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.optionalWith(Schema.NullOr(schema), { default: () => null })

const Percent = Schema.Number.pipe(Schema.between(0, 100))
const NonNegative = Schema.Number.pipe(Schema.nonNegative(), Schema.finite())
const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

// Decoded to the canonical UTC form (`2026-11-22T10:00:00.000Z`). The decoded type stays a string, so a
// stored scan is already in its decoded form and the read path needs no schema decode (it costs ~0.5 ms).
export const Timestamp = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (text, _, ast) => {
    const millis = ISO_8601.test(text) ? Date.parse(text) : Number.NaN
    return Number.isNaN(millis)
      ? ParseResult.fail(new ParseResult.Type(ast, text, `not an ISO 8601 timestamp: ${JSON.stringify(text)}`))
      : ParseResult.succeed(new Date(millis).toISOString())
  },
  encode: ParseResult.succeed
}).annotations({
  identifier: "Timestamp",
  description: "ISO 8601 timestamp with a time zone; normalised to UTC.",
  jsonSchema: { type: "string", format: "date-time" }
})

export const epochMillisOf = (timestamp: string): number => Date.parse(timestamp)

export const HolderKind = Schema.Literal("holder", "pool", "locker", "burn", "creator", "insider", "exchange")
export type HolderKind = typeof HolderKind.Type

export const Holder = Schema.Struct({
  address: Address,
  pct: Percent.annotations({ description: "Share of total supply, 0 to 100." }),
  kind: Schema.optionalWith(HolderKind, { default: () => "holder" as const }).annotations({
    description: "pool, locker and burn accounts are excluded from holder concentration."
  }),
  unlockAt: Schema.optional(Schema.NullOr(Timestamp)).annotations({
    description:
      "For a locker: when its tokens release (model 2.1). A lock releasing within 7 days of the scan counts as held."
  })
}).annotations({ identifier: "Holder" })
export type Holder = typeof Holder.Type

export const Extensions = Schema.Struct({
  transferFeeBps: Nullable(Count.pipe(Schema.lessThanOrEqualTo(10_000))).annotations({
    description: "The higher of the fee in effect and a scheduled newer fee."
  }),
  permanentDelegate: Nullable(Address),
  transferHook: Nullable(Address),
  defaultAccountStateFrozen: Nullable(Schema.Boolean),
  nonTransferable: Nullable(Schema.Boolean),
  mintCloseAuthority: Nullable(Address),
  // Model 2.0 additions: optional, absent in scans stored before them (read as not observed).
  pausableAuthority: Schema.optional(Schema.NullOr(Address)).annotations({
    description: "Pausable extension: who can pause every transfer."
  }),
  paused: Schema.optional(Schema.NullOr(Schema.Boolean)),
  // Model 2.1 additions.
  transferFeeNowBps: Schema.optional(Schema.NullOr(Count.pipe(Schema.lessThanOrEqualTo(10_000)))).annotations({
    description:
      "The fee in effect at the scan, when a different fee is scheduled (transferFeeBps is then the higher of the two)."
  }),
  transferFeeScheduledEpoch: Schema.optional(Schema.NullOr(Count)).annotations({
    description: "The epoch from which the scheduled fee applies."
  }),
  transferHookUpgradeable: Schema.optional(Schema.NullOr(Schema.Boolean)).annotations({
    description: "The transfer hook's program can be upgraded (false: immutable); null or absent when not read."
  }),
  transferHookAuthority: Schema.optional(Schema.NullOr(Address)).annotations({
    description: "The hook program's upgrade authority."
  })
}).annotations({
  identifier: "Token2022Extensions",
  description: "Token-2022 extensions; null when not present or not observed."
})

export const Trading = Schema.Struct({
  isHoneypot: Nullable(Schema.Boolean).annotations({ description: "true when a simulated sell failed." }),
  buyTax: Nullable(Percent),
  sellTax: Nullable(Percent)
}).annotations({ identifier: "TradingSimulation" })

export const Liquidity = Schema.Struct({
  liquidityUsd: Nullable(NonNegative),
  lpLocked: Nullable(Schema.Boolean),
  lpLockPercentage: Nullable(Percent),
  lpLockExpiresAt: Nullable(Timestamp),
  poolCount: Nullable(Count),
  lpBurnedPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description: "Share of the LP supply burned (model 2.0)."
  }),
  peak24hUsd: Schema.optional(Schema.NullOr(NonNegative)).annotations({
    description:
      "Highest liquidity of the mint's scans in the 24 hours before this one (model 2.0; filled from the scan history)."
  }),
  lpTopWalletsPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description:
      "Share of a pool's LP supply held by its 3 largest wallets (burn, locker and pool accounts excluded), the highest across pools (model 2.1)."
  }),
  bondingCurveOnly: Schema.optional(Schema.Boolean).annotations({
    description: "Every pool is a bonding curve: there is no LP that anyone could pull (model 2.1)."
  }),
  curve: Schema.optional(Schema.Literal("live", "complete")).annotations({
    description:
      "The bonding curves among the pools (model 2.1): live when one has not completed (it quotes buys and sells from its reserves: a market), complete when every one has (it trades nothing until its migration pool is seen); absent without a curve."
  }),
  curveDepthUsd: Schema.optional(Schema.NullOr(NonNegative)).annotations({
    description:
      "The quote reserve the live curves price trades against (virtual + real), in USD (model 2.1): the depth a sell meets, not liquidity anyone can pull; absent or null when not observed."
  }),
  positionsCreatorPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description:
      "Share of the token's concentrated liquidity (CLMM, Whirlpool, DLMM positions read) in positions the deployer or its insider cluster owns that are not locked (model 2.1); absent or null: not observed."
  })
}).annotations({ identifier: "LiquidityEvidence" })

export const Holders = Schema.Struct({
  holderCount: Nullable(Count),
  top: Schema.optionalWith(Schema.Array(Holder).pipe(Schema.maxItems(100)), { default: () => [] }).annotations({
    description: "Largest token accounts, largest first, with their kind."
  }),
  creatorPct: Nullable(Percent),
  bundledLaunchPct: Nullable(Percent).annotations({
    description: "Supply bought in the launch block by linked wallets."
  }),
  sniperPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description:
      "Supply bought in the slots right after the launch block by wallets other than the deployer: snipers (model 2.1)."
  }),
  clusters: Schema.optional(Schema.Array(ClusterSummary).pipe(Schema.maxItems(50))).annotations({
    description:
      "The observed insider clusters of a v2 scan's insiders block, largest first (issue 27); absent when not observed."
  })
}).annotations({ identifier: "HolderEvidence" })

export const Deployer = Schema.Struct({
  address: Nullable(Address),
  priorLaunches: Nullable(Count),
  priorRugs: Nullable(Count),
  priorHoneypots: Nullable(Count),
  flagged: Nullable(Schema.Boolean).annotations({ description: "Deployer carries an adverse label." }),
  // Model 2.1 additions: the deployer's own launch holding (dev sold %).
  initialPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description: "Supply the deployer held when the launch window closed."
  }),
  soldPct: Schema.optional(Schema.NullOr(Percent)).annotations({
    description: "Share of that initial holding the deployer no longer holds (dev sold %); null when it held none."
  })
}).annotations({ identifier: "DeployerEvidence" })

export const Market = Schema.Struct({
  priceUsd: Nullable(NonNegative),
  liquidityUsd: Nullable(NonNegative),
  marketCap: Nullable(NonNegative),
  volume24h: Nullable(NonNegative),
  priceChange5m: Nullable(Schema.Number),
  priceChange1h: Nullable(Schema.Number),
  priceChange6h: Nullable(Schema.Number),
  priceChange24h: Nullable(Schema.Number),
  buyCount24h: Nullable(Count),
  sellCount24h: Nullable(Count),
  tradeCount24h: Nullable(Count),
  uniqueTraders24h: Nullable(Count)
}).annotations({ identifier: "MarketEvidence" })

export const Metadata = Schema.Struct({
  mutable: Nullable(Schema.Boolean),
  uri: Nullable(Schema.String),
  copycatOf: Nullable(Schema.String).annotations({
    description: "Symbol or mint of a well-known token this one imitates."
  })
}).annotations({ identifier: "MetadataEvidence" })

export const Aml = Schema.Struct({
  flaggedHolderCount: Nullable(Count),
  flaggedHolderPct: Nullable(Percent)
}).annotations({ identifier: "AmlEvidence" })

export const ScanDepth = Schema.Literal("full", "partial", "metadata_only")
export type ScanDepth = typeof ScanDepth.Type

export const Outcome = Schema.Literal("active", "rugged", "abandoned")
export type Outcome = typeof Outcome.Type

export const ScanEvidence = Schema.Struct({
  mint: Address,
  scannedAt: Timestamp,
  scanDepth: Schema.optionalWith(ScanDepth, { default: () => "full" as const }),
  source: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)), {
    default: () => "cached_scan"
  }),
  name: Nullable(Schema.String.pipe(Schema.maxLength(200))),
  symbol: Nullable(Schema.String.pipe(Schema.maxLength(50))),
  decimals: Nullable(Count.pipe(Schema.lessThanOrEqualTo(255))),
  supply: Nullable(NonNegative),
  tokenProgram: Schema.optionalWith(Schema.Literal("spl-token", "token-2022"), { default: () => "spl-token" as const }),
  createdAt: Nullable(Timestamp).annotations({ description: "When the mint or its first pool was created." }),
  mintAuthority: Nullable(Address),
  freezeAuthority: Nullable(Address),
  extensions: Schema.optionalWith(Extensions, { default: () => Schema.decodeSync(Extensions)({}) }),
  trading: Schema.optionalWith(Trading, { default: () => Schema.decodeSync(Trading)({}) }),
  liquidity: Schema.optionalWith(Liquidity, { default: () => Schema.decodeSync(Liquidity)({}) }),
  holders: Schema.optionalWith(Holders, { default: () => Schema.decodeSync(Holders)({}) }),
  deployer: Schema.optionalWith(Deployer, { default: () => Schema.decodeSync(Deployer)({}) }),
  market: Schema.optionalWith(Market, { default: () => Schema.decodeSync(Market)({}) }),
  metadata: Schema.optionalWith(Metadata, { default: () => Schema.decodeSync(Metadata)({}) }),
  aml: Schema.optionalWith(Aml, { default: () => Schema.decodeSync(Aml)({}) }),
  verified: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "Issuer-verified: the issuer of a curated list (e.g. a regulated stablecoin) vouches for this mint."
  }),
  listed: Schema.optional(
    Schema.Array(
      Schema.Struct({
        list: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
        source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))
      })
    ).pipe(Schema.maxItems(50))
  ).annotations({
    description: "Community lists that include the mint (model 2.0). Being listed is not issuer verification."
  }),
  outcome: Nullable(Outcome).annotations({ description: "Observed fate of the token when known." })
}).annotations({
  identifier: "ScanEvidence",
  description: "One scan of one mint, as imported from NDJSON.",
  parseOptions: { onExcessProperty: "error" }
})
export type ScanEvidence = typeof ScanEvidence.Type
export type ScanEvidenceEncoded = typeof ScanEvidence.Encoded
