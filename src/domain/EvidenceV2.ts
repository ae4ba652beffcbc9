import { Schema } from "effect"
import { Address } from "./Address.ts"
import { Aml, Market, Outcome, ScanDepth, Timestamp } from "./ScanEvidence.ts"
import { Count, Fact, NonNegative, Percent, Text, U64 } from "./EvidenceFacts.ts"
import { InsidersV2 } from "./EvidenceInsiders.ts"

export { type InsiderCluster, InsidersV2 } from "./EvidenceInsiders.ts"

export { Fact, notApplicable, notObserved, observed, valueOfFact } from "./EvidenceFacts.ts"

// Evidence format v2: what a scanner observed about one mint, fact by fact. Every fact says whether it
// was observed, could not be observed (an RPC failed, the call budget ran out, the source has no such
// data) or does not apply to this token (an LP lock for a token with no LP mint). Format v1 (null for
// "unknown") is upgraded on import (EvidenceUpgrade.ts; docs/scan-evidence.md gives the mapping); the
// engines read the v1-shaped scoring view (EvidenceView.ts).

/** A JSON scalar setting of an extension (u64 values as decimal strings). */
const Setting = Schema.Union(Schema.String.pipe(Schema.maxLength(1_000)), Schema.Number, Schema.Boolean, Schema.Null)

export const MintExtension = Schema.Struct({
  name: Text(64).annotations({
    description: "Token-2022 extension name, e.g. TransferFeeConfig; `Unknown` when the decoder does not know the type."
  }),
  type: Count.annotations({ description: "The extension's type number in the mint's TLV data." }),
  addresses: Schema.Record({ key: Schema.String, value: Schema.NullOr(Address) }).annotations({
    description:
      "Every address the extension names (authorities, delegates, hook programs, metadata accounts); null when unset."
  }),
  settings: Schema.Record({ key: Schema.String, value: Setting })
}).annotations({ identifier: "MintExtension" })
export type MintExtension = typeof MintExtension.Type

const TransferFee = Schema.Struct({
  bps: Count.pipe(Schema.lessThanOrEqualTo(10_000)).annotations({ description: "Fee in effect at the scan's epoch." }),
  maxFee: U64,
  configAuthority: Schema.NullOr(Address),
  withdrawAuthority: Schema.NullOr(Address),
  scheduledBps: Schema.NullOr(Count.pipe(Schema.lessThanOrEqualTo(10_000))).annotations({
    description: "A different fee that takes effect at a later epoch, else null."
  }),
  // Model 2.1 (optional: lines written before it have none).
  scheduledEpoch: Schema.optionalWith(Schema.NullOr(Count), { exact: true }).annotations({
    description: "The epoch from which scheduledBps applies (TransferFeeConfig's newer fee epoch); null when unread."
  })
}).annotations({ identifier: "TransferFee" })

/** The program a TransferHook extension calls, and who can change it (model 2.1). */
const TransferHookProgram = Schema.Struct({
  programId: Address,
  upgradeable: Schema.Boolean.annotations({
    description: "false: the program is immutable (no upgrade authority), so the hook cannot change."
  }),
  upgradeAuthority: Schema.NullOr(Address).annotations({
    description: "Who can replace the program; null when immutable."
  })
}).annotations({ identifier: "TransferHookProgram" })

const TradingTax = Schema.Struct({
  buyPct: Schema.NullOr(Percent),
  sellPct: Schema.NullOr(Percent),
  method: Text(64).annotations({ description: "How it was measured, e.g. swap_simulation or imported." })
}).annotations({ identifier: "TradingTax" })

const TokenMetadataV2 = Schema.Struct({
  source: Schema.Literal("metaplex", "token-2022", "imported"),
  name: Schema.NullOr(Text(200)),
  symbol: Schema.NullOr(Text(50)),
  uri: Schema.NullOr(Text(500)),
  mutable: Schema.NullOr(Schema.Boolean),
  updateAuthority: Schema.NullOr(Address)
}).annotations({ identifier: "TokenMetadataV2" })

const HolderKindV2 = Schema.Literal("holder", "pool", "locker", "burn", "creator", "insider", "exchange")

export const HolderV2 = Schema.Struct({
  address: Address.annotations({ description: "The owner of the token account (the wallet or program authority)." }),
  tokenAccount: Schema.NullOr(Address),
  amount: Schema.NullOr(U64),
  pct: Percent,
  kind: HolderKindV2,
  label: Schema.NullOr(Text(100)).annotations({
    description: "e.g. raydium-amm-v4, jupiter-lock, incinerator, Binance."
  }),
  labelSource: Schema.NullOr(Text(200)).annotations({
    description: "Where the label came from: a program id's package, a label list."
  }),
  unlockAt: Schema.optionalWith(Schema.NullOr(Timestamp), { exact: true }).annotations({
    description:
      "For a token locker: when the locked tokens release (model 2.1); null or absent when permanent or unread."
  })
}).annotations({ identifier: "HolderV2" })
export type HolderV2 = typeof HolderV2.Type

const DeployerV2 = Schema.Struct({
  address: Address,
  signature: Schema.NullOr(Text(100)),
  slot: Schema.NullOr(Count),
  at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "DeployerObservation" })

const DeployerRecordV2 = Schema.Struct({
  priorLaunches: Schema.NullOr(Count),
  priorRugs: Schema.NullOr(Count),
  priorHoneypots: Schema.NullOr(Count),
  flagged: Schema.NullOr(Schema.Boolean)
}).annotations({ identifier: "DeployerRecordV2" })

/** A figure read at one slot from one pool (the reference SOL–USDC pool for SOL/USD). */
const PricePoint = Schema.Struct({
  value: NonNegative,
  pool: Address,
  venue: Text(64),
  slot: Count
}).annotations({ identifier: "PricePoint" })

/** One holder of a pool's LP mint: its owner, share of the LP supply and class (burn, locker, pool, holder). */
export const LpHolder = Schema.Struct({
  address: Address,
  tokenAccount: Address,
  pct: Percent,
  kind: HolderKindV2,
  label: Schema.NullOr(Text(100)),
  unlockAt: Schema.NullOr(Timestamp).annotations({
    description: "For a locker: when the lock fully releases; null when permanent or unread."
  }),
  permanent: Schema.NullOr(Schema.Boolean).annotations({
    description: "For a locker: the lock never releases (Raydium Burn & Earn)."
  })
}).annotations({ identifier: "LpHolder" })
export type LpHolder = typeof LpHolder.Type

/** A liquidity figure of a concentrated-liquidity position (u128), as decimal digits. */
const U128 = Schema.String.pipe(Schema.pattern(/^(0|[1-9]\d{0,38})$/))

/** One of the largest positions of a concentrated-liquidity or bin pool, and who can withdraw it (model 2.1). */
export const PositionOwner = Schema.Struct({
  position: Address.annotations({ description: "The position account." }),
  owner: Address.annotations({
    description:
      "Who can withdraw it: the wallet holding the position NFT (Orca Whirlpool, Raydium CLMM) or the position's owner field (Meteora DLMM)."
  }),
  nftMint: Schema.NullOr(Address).annotations({
    description: "The position NFT; null where positions have none (DLMM)."
  }),
  liquidity: U128.annotations({
    description: "The position's liquidity (Whirlpool, CLMM) or the sum of its bin liquidity shares (DLMM)."
  }),
  pct: Percent.annotations({ description: "Its share of the liquidity of all the pool's positions." }),
  kind: HolderKindV2.annotations({
    description:
      "creator: the deployer; insider: a member of a deployer_funded or common_funder cluster; else as holders."
  }),
  label: Schema.NullOr(Text(100)),
  locked: Schema.NullOr(Schema.Boolean).annotations({
    description:
      "true: its liquidity cannot be withdrawn now (an Orca Whirlpool LockConfig or a Raydium CLMM NFT held by Raydium's locking program: for good; a Meteora DLMM lock_release_point still ahead); false: checked, not locked; null: not read (the read failed)."
  })
}).annotations({ identifier: "PositionOwner" })
export type PositionOwner = typeof PositionOwner.Type

const Positions = Schema.Struct({
  count: Count.annotations({ description: "Positions the pool has (a getProgramAccounts over its program)." }),
  top: Schema.Array(PositionOwner).pipe(Schema.maxItems(10)).annotations({
    description: "The largest positions by liquidity, with their owners."
  })
}).annotations({ identifier: "Positions" })

const PoolReserves = Schema.Struct({
  mintAmount: U64.annotations({ description: "The scanned mint's reserve in base units." }),
  quoteAmount: U64.annotations({ description: "The other side's reserve in base units." }),
  source: Schema.Literal("vaults", "stored", "vault_shares").annotations({
    description:
      "Read from the vault token accounts, from the pool account itself (bonding curves), or as the pool's share of the Meteora vaults it deposits in (DAMM v1)."
  })
}).annotations({ identifier: "PoolReserves" })

const BondingCurve = Schema.Struct({
  complete: Schema.Boolean.annotations({
    description: "The curve has migrated (or is complete and awaits migration)."
  }),
  progressPct: Schema.NullOr(Percent),
  depthUsd: Schema.optionalWith(Schema.NullOr(NonNegative), { exact: true }).annotations({
    description:
      "The quote reserve the curve prices buys and sells against (virtual + real: pump.fun virtual_quote_reserves, LaunchLab virtual_quote + real_quote), in USD; null when the quote has no USD price, absent where the curve defines no such reserve (Meteora DBC). A depth, not liquidity anyone can withdraw: a curve has no LP."
  })
}).annotations({ identifier: "BondingCurve" })

export const PoolLp = Schema.Struct({
  pool: Address,
  venue: Text(64),
  burnedPct: Fact(Percent),
  lockedPct: Fact(Percent),
  locker: Schema.NullOr(Text(64)),
  unlockAt: Schema.NullOr(Timestamp),
  unlockedPct: Fact(Percent),
  // Written by the pool scanner (evidence v2 lines written before it have none of these).
  shape: Schema.optionalWith(Schema.Literal("constant_product", "concentrated", "bins", "bonding_curve"), {
    exact: true
  }),
  quoteMint: Schema.optionalWith(Address, { exact: true }),
  slot: Schema.optionalWith(Count, { exact: true }).annotations({
    description: "Slot the pool and its vaults were read at."
  }),
  reserves: Schema.optionalWith(Fact(PoolReserves), { exact: true }),
  liquidityUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({
    description: "Both sides valued in USD at the reference SOL price."
  }),
  priceUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({
    description: "The scanned mint's price in this pool."
  }),
  bondingCurve: Schema.optionalWith(Fact(BondingCurve), { exact: true }),
  lpMint: Schema.optionalWith(Schema.NullOr(Address), { exact: true }),
  lpHolders: Schema.optionalWith(Fact(Schema.Array(LpHolder).pipe(Schema.maxItems(20))), { exact: true }).annotations({
    description: "The largest holders of the LP mint, classified; not_applicable where the pool has no LP mint."
  }),
  positions: Schema.optionalWith(Fact(Positions), { exact: true }).annotations({
    description:
      "Concentrated-liquidity and bin pools (model 2.1): the largest positions and who can withdraw them; absent for other pools."
  })
}).annotations({ identifier: "PoolLp" })
export type PoolLp = typeof PoolLp.Type

const LiquidityV2 = Schema.Struct({
  liquidityUsd: Fact(NonNegative),
  poolCount: Fact(Count),
  /** Summary of LP locks across pools (v1's lpLocked / lpLockPercentage). */
  lpLocked: Fact(Schema.Boolean),
  lpLockedPct: Fact(Percent),
  lpLockExpiresAt: Fact(Timestamp),
  pools: Fact(Schema.Array(PoolLp).pipe(Schema.maxItems(100))),
  // Written by the pool scanner.
  solUsd: Schema.optionalWith(Fact(PricePoint), { exact: true }).annotations({
    description: "SOL/USD from the reference SOL–USDC pool, read in the same scan."
  }),
  priceUsd: Schema.optionalWith(Fact(PricePoint), { exact: true }).annotations({
    description: "The mint's price from its deepest pool."
  }),
  marketCapUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({
    description: "priceUsd × circulating supply."
  }),
  circulatingSupply: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({
    description: "Supply in whole tokens less what the top holders show burned (incinerator) or locked (lockers)."
  })
}).annotations({ identifier: "LiquidityV2" })

/** v1's market figures; when they come from a market feed (docs/market-feed.md), which feed read them and when. */
export const MarketV2 = Schema.Struct({
  ...Market.fields,
  source: Schema.optionalWith(Text(64), { exact: true }).annotations({
    description: "The market feed the figures came from (`risk-api import-market`)."
  }),
  observedAt: Schema.optionalWith(Timestamp, { exact: true }).annotations({
    description: "When the feed observed them."
  })
}).annotations({ identifier: "MarketV2" })
export type MarketV2 = typeof MarketV2.Type

/** One simulated sell-path transaction (simulateTransaction, sigVerify false, replaceRecentBlockhash). */
export const SellCheck = Schema.Struct({
  ok: Schema.Boolean,
  error: Schema.NullOr(Text(500)).annotations({
    description: "The runtime's error and the failing program's last log line, when it failed."
  }),
  sourceAccount: Address.annotations({ description: "The real holder's token account the simulation spends from." }),
  sourceOwner: Address,
  amount: U64.annotations({ description: "Base units sent (transfer) or sold (swap)." }),
  received: Schema.NullOr(U64).annotations({
    description: "Base units the destination gained (transfer: of the mint; swap: of the quote)."
  }),
  feeCharged: Schema.NullOr(U64).annotations({
    description:
      "Transfer: amount less received (the transfer fee actually withheld). Swap: expectedOut less received (the tax, in quote base units)."
  }),
  expectedOut: Schema.optionalWith(U64, { exact: true }).annotations({
    description:
      "Swap: the quote the pool's curve and fee tier give for `amount`; effectiveTaxPct = 1 − received / expectedOut."
  }),
  effectiveTaxPct: Schema.NullOr(Percent).annotations({
    description: "Share of the amount lost in the transfer, or of the quoted output lost in the swap."
  }),
  unitsConsumed: Schema.NullOr(Count),
  venue: Schema.NullOr(Text(64)).annotations({ description: "Swap: the pool's venue." }),
  answer: Schema.Literal("simulated", "recorded").annotations({
    description: "simulated: the RPC node ran it; recorded: a recorded answer (tests only)."
  })
}).annotations({ identifier: "SellCheck" })
export type SellCheck = typeof SellCheck.Type

export const SellPath = Schema.Struct({
  transfer: Fact(SellCheck).annotations({
    description: "A small transfer from a real non-pool holder to a fresh associated account."
  }),
  swap: Fact(SellCheck).annotations({
    description: "A small swap to the quote token in a pool whose swap instruction is decoded."
  })
}).annotations({ identifier: "SellPath" })
export type SellPath = typeof SellPath.Type

const IssuerVerified = Schema.Struct({
  issuer: Text(100),
  source: Text(500)
}).annotations({ identifier: "IssuerVerified" })

const Listing = Schema.Struct({
  list: Text(100),
  source: Text(500)
}).annotations({ identifier: "Listing" })

const Provenance = Schema.Struct({
  scanner: Text(64).annotations({
    description: "What wrote the scan: `risk-api-scanner/<version>`, or `import` for upgraded v1."
  }),
  slot: Schema.NullOr(Count).annotations({ description: "RPC slot every read was pinned at (minContextSlot)." }),
  rpcCalls: Schema.NullOr(Count).annotations({ description: "JSON-RPC calls the scan made (what a provider bills)." }),
  rpcRoundTrips: Schema.optionalWith(Count, { exact: true }).annotations({
    description: "HTTP requests the scan made: the calls of one stage go as one JSON-RPC batch."
  }),
  durationMs: Schema.NullOr(NonNegative),
  upgradedFrom: Schema.optionalWith(Schema.Literal(1), { exact: true }),
  partial: Schema.Array(Text(500)).pipe(Schema.maxItems(50)).annotations({
    description: "Why the scan is partial: each read that failed or was inconsistent. Empty for a full scan."
  })
}).annotations({ identifier: "Provenance" })

/** How the launch stream first saw the token (src/workers/Stream): the launch transaction, when and where. */
const LaunchV2 = Schema.Struct({
  program: Address,
  kind: Schema.Literal("create", "create_v2", "create_pool"),
  slot: Count,
  signature: Text(100),
  time: Schema.NullOr(Timestamp).annotations({ description: "The launch transaction's block time." })
}).annotations({ identifier: "Launch" })

export const ScanEvidenceV2 = Schema.Struct({
  version: Schema.Literal(2),
  mint: Address,
  scannedAt: Timestamp,
  scanDepth: ScanDepth,
  source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)),
  provenance: Provenance,
  token: Schema.Struct({
    program: Fact(Schema.Literal("spl-token", "token-2022")),
    supply: Fact(NonNegative).annotations({ description: "Supply in whole tokens (UI amount)." }),
    supplyRaw: Fact(U64),
    decimals: Fact(Count.pipe(Schema.lessThanOrEqualTo(255))),
    mintAuthority: Fact(Schema.NullOr(Address)).annotations({ description: "Observed null: revoked." }),
    freezeAuthority: Fact(Schema.NullOr(Address)),
    createdAt: Fact(Timestamp)
  }),
  extensions: Fact(Schema.Array(MintExtension).pipe(Schema.maxItems(64))).annotations({
    description: "Every Token-2022 extension of the mint; not_applicable for SPL Token mints."
  }),
  transferFee: Fact(TransferFee).annotations({
    description: "The Token-2022 transfer fee; not_applicable without the extension."
  }),
  tradingTax: Fact(TradingTax).annotations({
    description: "A tax charged by a pool or program on buys and sells, separate from the transfer fee."
  }),
  honeypot: Fact(Schema.Boolean).annotations({ description: "true when a simulated sell failed." }),
  transferHookProgram: Schema.optionalWith(Fact(TransferHookProgram), { exact: true }).annotations({
    description: "The transfer hook's program and its upgrade authority (model 2.1); not_applicable without a hook."
  }),
  sellPath: Schema.optionalWith(SellPath, { exact: true }).annotations({
    description: "The sell-path simulations behind `honeypot`, marked by which ran."
  }),
  metadata: Fact(TokenMetadataV2),
  copycatOf: Fact(Schema.NullOr(Text(100))).annotations({
    description: "The well-known token this one imitates; observed null: checked, not a copycat (model 2.1)."
  }),
  holders: Schema.Struct({
    count: Fact(Count),
    top: Fact(Schema.Array(HolderV2).pipe(Schema.maxItems(100))),
    creatorPct: Fact(Percent),
    bundledLaunchPct: Fact(Percent)
  }),
  deployer: Fact(DeployerV2),
  deployerRecord: DeployerRecordV2,
  insiders: Schema.optionalWith(InsidersV2, { exact: true }),
  liquidity: LiquidityV2,
  market: Fact(MarketV2),
  aml: Fact(Aml),
  issuerVerified: Schema.NullOr(IssuerVerified).annotations({
    description: "The issuer is on the curated verified list (src/domain/issuers.json), with its source."
  }),
  listed: Schema.Array(Listing).pipe(Schema.maxItems(50)).annotations({
    description: "Community lists the operator imported that include this mint."
  }),
  outcome: Schema.NullOr(Outcome),
  launch: Schema.optionalWith(LaunchV2, { exact: true }).annotations({
    description: "Present when the launch stream saw the token launch."
  })
}).annotations({
  identifier: "ScanEvidenceV2",
  description: "One scan of one mint, format v2: every fact observed, not_observed or not_applicable.",
  parseOptions: { onExcessProperty: "error" }
})
export type ScanEvidenceV2 = typeof ScanEvidenceV2.Type
