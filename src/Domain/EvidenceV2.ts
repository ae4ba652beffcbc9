import { Schema } from "effect"
import { Address } from "./Address.ts"
import {
  Aml,
  Market,
  Outcome,
  ScanDepth,
  type ScanEvidence,
  Timestamp
} from "./ScanEvidence.ts"

// Evidence format v2: what a scanner observed about one mint, fact by fact. Every fact says whether it
// was observed, could not be observed (an RPC failed, the call budget ran out, the source has no such
// data) or does not apply to this token (an LP lock for a token with no LP mint). Format v1 (null for
// "unknown") is upgraded on import; docs/scan-evidence.md gives the mapping.

export const FactStatus = Schema.Literal("observed", "not_observed", "not_applicable")
export type FactStatus = typeof FactStatus.Type

const Reason = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))

/** A fact: its value when observed, otherwise why not. */
export const Fact = <S extends Schema.Schema.Any>(value: S) =>
  Schema.Union(
    Schema.Struct({ status: Schema.Literal("observed"), value }),
    Schema.Struct({ status: Schema.Literal("not_observed", "not_applicable"), reason: Reason })
  )

export type Fact<A> =
  | { readonly status: "observed"; readonly value: A }
  | { readonly status: "not_observed" | "not_applicable"; readonly reason: string }

export const observed = <A>(value: A): Fact<A> => ({ status: "observed", value })
export const notObserved = (reason: string): Fact<never> => ({ status: "not_observed", reason })
export const notApplicable = (reason: string): Fact<never> => ({ status: "not_applicable", reason })
/** The value of an observed fact, else null. */
export const valueOf = <A>(fact: Fact<A>): A | null => fact.status === "observed" ? fact.value : null

const Percent = Schema.Number.pipe(Schema.between(0, 100))
const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
const NonNegative = Schema.Number.pipe(Schema.nonNegative(), Schema.finite())
/** A u64 in base units, as decimal digits (JSON numbers lose precision above 2^53). */
const U64 = Schema.String.pipe(Schema.pattern(/^(0|[1-9]\d{0,19})$/))
const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))

/** A JSON scalar setting of an extension (u64 values as decimal strings). */
const Setting = Schema.Union(Schema.String.pipe(Schema.maxLength(1_000)), Schema.Number, Schema.Boolean, Schema.Null)

export const MintExtension = Schema.Struct({
  name: Text(64).annotations({ description: "Token-2022 extension name, e.g. TransferFeeConfig; `Unknown` when the decoder does not know the type." }),
  type: Count.annotations({ description: "The extension's type number in the mint's TLV data." }),
  addresses: Schema.Record({ key: Schema.String, value: Schema.NullOr(Address) }).annotations({
    description: "Every address the extension names (authorities, delegates, hook programs, metadata accounts); null when unset."
  }),
  settings: Schema.Record({ key: Schema.String, value: Setting })
}).annotations({ identifier: "MintExtension" })
export type MintExtension = typeof MintExtension.Type

export const TransferFee = Schema.Struct({
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
export const TransferHookProgram = Schema.Struct({
  programId: Address,
  upgradeable: Schema.Boolean.annotations({ description: "false: the program is immutable (no upgrade authority), so the hook cannot change." }),
  upgradeAuthority: Schema.NullOr(Address).annotations({ description: "Who can replace the program; null when immutable." })
}).annotations({ identifier: "TransferHookProgram" })

export const TradingTax = Schema.Struct({
  buyPct: Schema.NullOr(Percent),
  sellPct: Schema.NullOr(Percent),
  method: Text(64).annotations({ description: "How it was measured, e.g. swap_simulation or imported." })
}).annotations({ identifier: "TradingTax" })

export const TokenMetadataV2 = Schema.Struct({
  source: Schema.Literal("metaplex", "token-2022", "imported"),
  name: Schema.NullOr(Text(200)),
  symbol: Schema.NullOr(Text(50)),
  uri: Schema.NullOr(Text(500)),
  mutable: Schema.NullOr(Schema.Boolean),
  updateAuthority: Schema.NullOr(Address)
}).annotations({ identifier: "TokenMetadataV2" })

export const HolderKindV2 = Schema.Literal("holder", "pool", "locker", "burn", "creator", "insider", "exchange")

export const HolderV2 = Schema.Struct({
  address: Address.annotations({ description: "The owner of the token account (the wallet or program authority)." }),
  tokenAccount: Schema.NullOr(Address),
  amount: Schema.NullOr(U64),
  pct: Percent,
  kind: HolderKindV2,
  label: Schema.NullOr(Text(100)).annotations({ description: "e.g. raydium-amm-v4, jupiter-lock, incinerator, Binance." }),
  labelSource: Schema.NullOr(Text(200)).annotations({ description: "Where the label came from: a program id's package, a label list." }),
  unlockAt: Schema.optionalWith(Schema.NullOr(Timestamp), { exact: true }).annotations({
    description: "For a token locker: when the locked tokens release (model 2.1); null or absent when permanent or unread."
  })
}).annotations({ identifier: "HolderV2" })
export type HolderV2 = typeof HolderV2.Type

export const DeployerV2 = Schema.Struct({
  address: Address,
  signature: Schema.NullOr(Text(100)),
  slot: Schema.NullOr(Count),
  at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "DeployerObservation" })

export const DeployerRecordV2 = Schema.Struct({
  priorLaunches: Schema.NullOr(Count),
  priorRugs: Schema.NullOr(Count),
  priorHoneypots: Schema.NullOr(Count),
  flagged: Schema.NullOr(Schema.Boolean)
}).annotations({ identifier: "DeployerRecordV2" })

/** A figure read at one slot from one pool (the reference SOL–USDC pool for SOL/USD). */
export const PricePoint = Schema.Struct({
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
  unlockAt: Schema.NullOr(Timestamp).annotations({ description: "For a locker: when the lock fully releases; null when permanent or unread." }),
  permanent: Schema.NullOr(Schema.Boolean).annotations({ description: "For a locker: the lock never releases (Raydium Burn & Earn)." })
}).annotations({ identifier: "LpHolder" })
export type LpHolder = typeof LpHolder.Type

export const PoolReserves = Schema.Struct({
  mintAmount: U64.annotations({ description: "The scanned mint's reserve in base units." }),
  quoteAmount: U64.annotations({ description: "The other side's reserve in base units." }),
  source: Schema.Literal("vaults", "stored", "vault_shares").annotations({
    description: "Read from the vault token accounts, from the pool account itself (bonding curves), or as the pool's share of the Meteora vaults it deposits in (DAMM v1)."
  })
}).annotations({ identifier: "PoolReserves" })

export const BondingCurve = Schema.Struct({
  complete: Schema.Boolean.annotations({ description: "The curve has migrated (or is complete and awaits migration)." }),
  progressPct: Schema.NullOr(Percent)
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
  shape: Schema.optionalWith(Schema.Literal("constant_product", "concentrated", "bins", "bonding_curve"), { exact: true }),
  quoteMint: Schema.optionalWith(Address, { exact: true }),
  slot: Schema.optionalWith(Count, { exact: true }).annotations({ description: "Slot the pool and its vaults were read at." }),
  reserves: Schema.optionalWith(Fact(PoolReserves), { exact: true }),
  liquidityUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({ description: "Both sides valued in USD at the reference SOL price." }),
  priceUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({ description: "The scanned mint's price in this pool." }),
  bondingCurve: Schema.optionalWith(Fact(BondingCurve), { exact: true }),
  lpMint: Schema.optionalWith(Schema.NullOr(Address), { exact: true }),
  lpHolders: Schema.optionalWith(Fact(Schema.Array(LpHolder).pipe(Schema.maxItems(20))), { exact: true }).annotations({
    description: "The largest holders of the LP mint, classified; not_applicable where the pool has no LP mint."
  })
}).annotations({ identifier: "PoolLp" })
export type PoolLp = typeof PoolLp.Type

export const LiquidityV2 = Schema.Struct({
  liquidityUsd: Fact(NonNegative),
  poolCount: Fact(Count),
  /** Summary of LP locks across pools (v1's lpLocked / lpLockPercentage). */
  lpLocked: Fact(Schema.Boolean),
  lpLockedPct: Fact(Percent),
  lpLockExpiresAt: Fact(Timestamp),
  pools: Fact(Schema.Array(PoolLp).pipe(Schema.maxItems(100))),
  // Written by the pool scanner.
  solUsd: Schema.optionalWith(Fact(PricePoint), { exact: true }).annotations({ description: "SOL/USD from the reference SOL–USDC pool, read in the same scan." }),
  priceUsd: Schema.optionalWith(Fact(PricePoint), { exact: true }).annotations({ description: "The mint's price from its deepest pool." }),
  marketCapUsd: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({ description: "priceUsd × circulating supply." }),
  circulatingSupply: Schema.optionalWith(Fact(NonNegative), { exact: true }).annotations({
    description: "Supply in whole tokens less what the top holders show burned (incinerator) or locked (lockers)."
  })
}).annotations({ identifier: "LiquidityV2" })

/** v1's market figures; when they come from a market feed (docs/market-feed.md), which feed read them and when. */
export const MarketV2 = Schema.Struct({
  ...Market.fields,
  source: Schema.optionalWith(Text(64), { exact: true }).annotations({ description: "The market feed the figures came from (`risk-api import-market`)." }),
  observedAt: Schema.optionalWith(Timestamp, { exact: true }).annotations({ description: "When the feed observed them." })
}).annotations({ identifier: "MarketV2" })
export type MarketV2 = typeof MarketV2.Type

/** One simulated sell-path transaction (simulateTransaction, sigVerify false, replaceRecentBlockhash). */
export const SellCheck = Schema.Struct({
  ok: Schema.Boolean,
  error: Schema.NullOr(Text(500)).annotations({ description: "The runtime's error and the failing program's last log line, when it failed." }),
  sourceAccount: Address.annotations({ description: "The real holder's token account the simulation spends from." }),
  sourceOwner: Address,
  amount: U64.annotations({ description: "Base units sent (transfer) or sold (swap)." }),
  received: Schema.NullOr(U64).annotations({ description: "Base units the destination gained (transfer: of the mint; swap: of the quote)." }),
  feeCharged: Schema.NullOr(U64).annotations({ description: "Transfer: amount less received (the transfer fee actually withheld). Swap: expectedOut less received (the tax, in quote base units)." }),
  expectedOut: Schema.optionalWith(U64, { exact: true }).annotations({
    description: "Swap: the quote the pool's curve and fee tier give for `amount`; effectiveTaxPct = 1 − received / expectedOut."
  }),
  effectiveTaxPct: Schema.NullOr(Percent).annotations({ description: "Share of the amount lost in the transfer, or of the quoted output lost in the swap." }),
  unitsConsumed: Schema.NullOr(Count),
  venue: Schema.NullOr(Text(64)).annotations({ description: "Swap: the pool's venue." }),
  answer: Schema.Literal("simulated", "recorded").annotations({ description: "simulated: the RPC node ran it; recorded: a recorded answer (tests only)." })
}).annotations({ identifier: "SellCheck" })
export type SellCheck = typeof SellCheck.Type

export const SellPath = Schema.Struct({
  transfer: Fact(SellCheck).annotations({ description: "A small transfer from a real non-pool holder to a fresh associated account." }),
  swap: Fact(SellCheck).annotations({ description: "A small swap to the quote token in a pool whose swap instruction is decoded." })
}).annotations({ identifier: "SellPath" })
export type SellPath = typeof SellPath.Type

export const IssuerVerified = Schema.Struct({
  issuer: Text(100),
  source: Text(500)
}).annotations({ identifier: "IssuerVerified" })

export const Listing = Schema.Struct({
  list: Text(100),
  source: Text(500)
}).annotations({ identifier: "Listing" })

export const Provenance = Schema.Struct({
  scanner: Text(64).annotations({ description: "What wrote the scan: `risk-api-scanner/<version>`, or `import` for upgraded v1." }),
  slot: Schema.NullOr(Count).annotations({ description: "RPC slot every read was pinned at (minContextSlot)." }),
  rpcCalls: Schema.NullOr(Count).annotations({ description: "JSON-RPC calls the scan made (what a provider bills)." }),
  rpcRoundTrips: Schema.optionalWith(Count, { exact: true }).annotations({ description: "HTTP requests the scan made: the calls of one stage go as one JSON-RPC batch." }),
  durationMs: Schema.NullOr(NonNegative),
  upgradedFrom: Schema.optionalWith(Schema.Literal(1), { exact: true }),
  partial: Schema.Array(Text(500)).pipe(Schema.maxItems(50)).annotations({
    description: "Why the scan is partial: each read that failed or was inconsistent. Empty for a full scan."
  })
}).annotations({ identifier: "Provenance" })

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
  transferFee: Fact(TransferFee).annotations({ description: "The Token-2022 transfer fee; not_applicable without the extension." }),
  tradingTax: Fact(TradingTax).annotations({ description: "A tax charged by a pool or program on buys and sells, separate from the transfer fee." }),
  honeypot: Fact(Schema.Boolean).annotations({ description: "true when a simulated sell failed." }),
  transferHookProgram: Schema.optionalWith(Fact(TransferHookProgram), { exact: true }).annotations({
    description: "The transfer hook's program and its upgrade authority (model 2.1); not_applicable without a hook."
  }),
  sellPath: Schema.optionalWith(SellPath, { exact: true }).annotations({ description: "The sell-path simulations behind `honeypot`, marked by which ran." }),
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
  liquidity: LiquidityV2,
  market: Fact(MarketV2),
  aml: Fact(Aml),
  issuerVerified: Schema.NullOr(IssuerVerified).annotations({
    description: "The issuer is on the curated verified list (src/Domain/issuers.json), with its source."
  }),
  listed: Schema.Array(Listing).pipe(Schema.maxItems(50)).annotations({
    description: "Community lists the operator imported that include this mint."
  }),
  outcome: Schema.NullOr(Outcome)
}).annotations({
  identifier: "ScanEvidenceV2",
  description: "One scan of one mint, format v2: every fact observed, not_observed or not_applicable.",
  parseOptions: { onExcessProperty: "error" }
})
export type ScanEvidenceV2 = typeof ScanEvidenceV2.Type
export type ScanEvidenceV2Encoded = typeof ScanEvidenceV2.Encoded

// ---------------------------------------------------------------------------------------------------
// v1 -> v2 (import) and v2 -> the scoring view (the v1 shape the engines and routes read).

const V1_REASON = "not in the v1 evidence"

const fromNullable = <A>(value: A | null): Fact<A> => value === null ? notObserved(V1_REASON) : observed(value)

/** v1 evidence as v2. v1 cannot tell "unknown" from "none", so null reads as not_observed, except where v1 defined null as none. */
export const upgradeV1 = (scan: ScanEvidence): ScanEvidenceV2 => {
  const e = scan.extensions
  const extensionFacts: Array<MintExtension> = []
  const addExtension = (name: string, type: number, addresses: Record<string, string | null>, settings: Record<string, string | number | boolean | null> = {}) =>
    extensionFacts.push({ name, type, addresses: addresses as MintExtension["addresses"], settings })
  if (e.transferFeeBps !== null && e.transferFeeBps > 0) addExtension("TransferFeeConfig", 1, {}, { bps: e.transferFeeBps })
  if (e.mintCloseAuthority !== null) addExtension("MintCloseAuthority", 3, { closeAuthority: e.mintCloseAuthority })
  if (e.defaultAccountStateFrozen === true) addExtension("DefaultAccountState", 6, {}, { state: "frozen" })
  if (e.nonTransferable === true) addExtension("NonTransferable", 9, {})
  if (e.permanentDelegate !== null) addExtension("PermanentDelegate", 12, { delegate: e.permanentDelegate })
  if (e.transferHook !== null) addExtension("TransferHook", 14, { programId: e.transferHook })
  const isToken2022 = scan.tokenProgram === "token-2022"
  const creator = scan.holders.top.some((holder) => holder.kind === "creator")
  return {
    version: 2,
    mint: scan.mint,
    scannedAt: scan.scannedAt,
    scanDepth: scan.scanDepth,
    source: scan.source,
    provenance: { scanner: "import", slot: null, rpcCalls: null, durationMs: null, upgradedFrom: 1, partial: [] },
    token: {
      program: observed(scan.tokenProgram),
      supply: fromNullable(scan.supply),
      supplyRaw: notObserved(V1_REASON),
      decimals: fromNullable(scan.decimals),
      // v1 defines a null authority as revoked (the scoring model reads it so).
      mintAuthority: observed(scan.mintAuthority),
      freezeAuthority: observed(scan.freezeAuthority),
      createdAt: fromNullable(scan.createdAt)
    },
    extensions: isToken2022 ? observed(extensionFacts) : notApplicable("SPL Token mints have no extensions"),
    transferFee: !isToken2022
      ? notApplicable("SPL Token mints have no transfer fee")
      : e.transferFeeBps === null
      ? notObserved(V1_REASON)
      : e.transferFeeBps === 0
      ? notApplicable("no transfer fee")
      : observed({
        bps: e.transferFeeNowBps ?? e.transferFeeBps,
        maxFee: "0",
        configAuthority: null,
        withdrawAuthority: null,
        scheduledBps: e.transferFeeNowBps === undefined || e.transferFeeNowBps === null ? null : e.transferFeeBps,
        ...(e.transferFeeScheduledEpoch === undefined ? {} : { scheduledEpoch: e.transferFeeScheduledEpoch })
      }),
    tradingTax: scan.trading.buyTax === null && scan.trading.sellTax === null
      ? notObserved(V1_REASON)
      : observed({ buyPct: scan.trading.buyTax, sellPct: scan.trading.sellTax, method: "imported" }),
    honeypot: fromNullable(scan.trading.isHoneypot),
    ...(e.transferHook === null || e.transferHookUpgradeable === undefined || e.transferHookUpgradeable === null
      ? {}
      : { transferHookProgram: observed({ programId: e.transferHook, upgradeable: e.transferHookUpgradeable, upgradeAuthority: e.transferHookAuthority ?? null }) }),
    metadata: scan.name === null && scan.symbol === null && scan.metadata.uri === null && scan.metadata.mutable === null
      ? notObserved(V1_REASON)
      : observed({
        source: "imported",
        name: scan.name,
        symbol: scan.symbol,
        uri: scan.metadata.uri,
        mutable: scan.metadata.mutable,
        updateAuthority: null
      }),
    copycatOf: scan.metadata.copycatOf === null ? notObserved(V1_REASON) : observed(scan.metadata.copycatOf),
    holders: {
      count: fromNullable(scan.holders.holderCount),
      top: scan.holders.top.length === 0
        ? notObserved(V1_REASON)
        : observed(scan.holders.top.map((holder) => ({
          address: holder.address,
          tokenAccount: null,
          amount: null,
          pct: holder.pct,
          kind: holder.kind,
          label: null,
          labelSource: creator || holder.kind !== "holder" ? "import" : null,
          ...(holder.unlockAt === undefined ? {} : { unlockAt: holder.unlockAt })
        }))),
      creatorPct: fromNullable(scan.holders.creatorPct),
      bundledLaunchPct: fromNullable(scan.holders.bundledLaunchPct)
    },
    deployer: scan.deployer.address === null
      ? notObserved(V1_REASON)
      : observed({ address: scan.deployer.address, signature: null, slot: null, at: null }),
    deployerRecord: {
      priorLaunches: scan.deployer.priorLaunches,
      priorRugs: scan.deployer.priorRugs,
      priorHoneypots: scan.deployer.priorHoneypots,
      flagged: scan.deployer.flagged
    },
    liquidity: {
      liquidityUsd: fromNullable(scan.liquidity.liquidityUsd),
      poolCount: fromNullable(scan.liquidity.poolCount),
      lpLocked: fromNullable(scan.liquidity.lpLocked),
      lpLockedPct: fromNullable(scan.liquidity.lpLockPercentage),
      lpLockExpiresAt: fromNullable(scan.liquidity.lpLockExpiresAt),
      pools: notObserved(V1_REASON)
    },
    market: observed(scan.market),
    aml: observed(scan.aml),
    issuerVerified: scan.verified ? { issuer: "imported", source: "v1 evidence: verified" } : null,
    listed: scan.listed ?? [],
    outcome: scan.outcome
  }
}

const extension = (scan: ScanEvidenceV2, name: string): MintExtension | undefined =>
  scan.extensions.status === "observed" ? scan.extensions.value.find((ext) => ext.name === name) : undefined

/** Whether the extension is present: null when the extension list was not observed. */
const hasExtension = (scan: ScanEvidenceV2, name: string): boolean | null =>
  scan.extensions.status === "not_observed" ? null : extension(scan, name) !== undefined

const stringSetting = (ext: MintExtension | undefined, key: string): string | null => {
  const value = ext?.settings[key]
  return typeof value === "string" ? value : null
}

/**
 * The v1-shaped view the scoring engines, the decision model and the routes read. A fact that is not
 * observed becomes null (unknown, which lowers confidence); a fact that does not apply becomes the value
 * that means "none" where v1 has one (no transfer fee is 0 bps; no LP lock for a token without LP is
 * null and its liquidity facts are left to the pool data).
 */
export const scoringView = (scan: ScanEvidenceV2): ScanEvidence => {
  const lpBurnedPct = lpBurnedPctOf(scan)
  const lpTopWalletsPct = lpTopWalletsPctOf(scan)
  const program = valueOf(scan.token.program) ?? "spl-token"
  const metadata = valueOf(scan.metadata)
  const transferFee = scan.transferFee.status === "observed"
    ? Math.max(scan.transferFee.value.bps, scan.transferFee.value.scheduledBps ?? 0)
    : scan.transferFee.status === "not_applicable"
    ? (program === "token-2022" ? 0 : null)
    : null
  const tax = valueOf(scan.tradingTax)
  const top = valueOf(scan.holders.top) ?? []
  const hook = extension(scan, "TransferHook")
  const fee = valueOf(scan.transferFee)
  const hookProgram = scan.transferHookProgram === undefined ? null : valueOf(scan.transferHookProgram)
  const defaultState = extension(scan, "DefaultAccountState")
  const deployer = valueOf(scan.deployer)
  return {
    mint: scan.mint,
    scannedAt: scan.scannedAt,
    scanDepth: scan.scanDepth,
    source: scan.source,
    name: metadata?.name ?? null,
    symbol: metadata?.symbol ?? null,
    decimals: valueOf(scan.token.decimals),
    supply: valueOf(scan.token.supply),
    tokenProgram: program,
    createdAt: valueOf(scan.token.createdAt),
    mintAuthority: valueOf(scan.token.mintAuthority),
    freezeAuthority: valueOf(scan.token.freezeAuthority),
    extensions: {
      transferFeeBps: transferFee,
      permanentDelegate: extension(scan, "PermanentDelegate")?.addresses["delegate"] ?? null,
      transferHook: hook?.addresses["programId"] ?? null,
      // SPL Token mints have no extensions: v1 leaves these null for them.
      defaultAccountStateFrozen: program !== "token-2022"
        ? null
        : defaultState === undefined
        ? hasExtension(scan, "DefaultAccountState") === null ? null : false
        : stringSetting(defaultState, "state") === "frozen",
      nonTransferable: program !== "token-2022" ? null : hasExtension(scan, "NonTransferable"),
      mintCloseAuthority: extension(scan, "MintCloseAuthority")?.addresses["closeAuthority"] ?? null,
      ...pausableOf(scan),
      // Model 2.1: a scheduled fee apart from the one in effect, and the hook program's upgradeability.
      ...(fee === null || fee.scheduledBps === null || fee.scheduledBps === fee.bps
        ? {}
        : { transferFeeNowBps: fee.bps, transferFeeScheduledEpoch: fee.scheduledEpoch ?? null }),
      ...(hookProgram === null ? {} : { transferHookUpgradeable: hookProgram.upgradeable, transferHookAuthority: hookProgram.upgradeAuthority })
    },
    trading: {
      isHoneypot: valueOf(scan.honeypot),
      buyTax: tax?.buyPct ?? null,
      sellTax: tax?.sellPct ?? null
    },
    liquidity: {
      liquidityUsd: valueOf(scan.liquidity.liquidityUsd),
      lpLocked: valueOf(scan.liquidity.lpLocked),
      lpLockPercentage: valueOf(scan.liquidity.lpLockedPct),
      lpLockExpiresAt: valueOf(scan.liquidity.lpLockExpiresAt),
      poolCount: valueOf(scan.liquidity.poolCount),
      ...(lpBurnedPct === null ? {} : { lpBurnedPct }),
      ...(lpTopWalletsPct === null ? {} : { lpTopWalletsPct }),
      ...(bondingCurveOnly(scan) ? { bondingCurveOnly: true } : {})
    },
    holders: {
      holderCount: valueOf(scan.holders.count),
      top: top.map((holder) => ({
        address: holder.address,
        pct: holder.pct,
        kind: holder.kind,
        ...(holder.unlockAt === undefined || holder.unlockAt === null ? {} : { unlockAt: holder.unlockAt })
      })),
      creatorPct: valueOf(scan.holders.creatorPct),
      bundledLaunchPct: valueOf(scan.holders.bundledLaunchPct)
    },
    deployer: {
      address: deployer?.address ?? null,
      priorLaunches: scan.deployerRecord.priorLaunches,
      priorRugs: scan.deployerRecord.priorRugs,
      priorHoneypots: scan.deployerRecord.priorHoneypots,
      flagged: scan.deployerRecord.flagged
    },
    market: marketOf(scan),
    metadata: {
      mutable: metadata?.mutable ?? null,
      uri: metadata?.uri ?? null,
      copycatOf: valueOf(scan.copycatOf)
    },
    aml: valueOf(scan.aml) ?? { flaggedHolderCount: null, flaggedHolderPct: null },
    verified: scan.issuerVerified !== null,
    ...(scan.listed.length === 0 ? {} : { listed: scan.listed }),
    outcome: scan.outcome
  }
}

// The model-2.0 fields are left out when there is nothing to say, so a v1 scan's view is unchanged.
const pausableOf = (scan: ScanEvidenceV2): Pick<ScanEvidence["extensions"], "pausableAuthority" | "paused"> => {
  const pausable = extension(scan, "PausableConfig")
  if (pausable === undefined) return {}
  const paused = pausable.settings["paused"]
  return { pausableAuthority: pausable.addresses["authority"] ?? null, paused: typeof paused === "boolean" ? paused : null }
}

// Model 2.1: the share of a pool's LP the 3 largest wallets hold (who could pull it), the highest across pools.
const LP_WALLET_KINDS: ReadonlyArray<string> = ["holder", "creator", "insider", "exchange"]
const lpTopWalletsPctOf = (scan: ScanEvidenceV2): number | null => {
  if (scan.liquidity.pools.status !== "observed") return null
  const shares = scan.liquidity.pools.value.flatMap((pool) => {
    if (pool.lpHolders?.status !== "observed") return []
    const wallets = pool.lpHolders.value.filter((holder) => LP_WALLET_KINDS.includes(holder.kind)).map((holder) => holder.pct)
    return [Math.min(100, wallets.sort((a, b) => b - a).slice(0, 3).reduce((a, b) => a + b, 0))]
  })
  return shares.length === 0 ? null : Math.round(Math.max(...shares) * 100) / 100
}

// Model 2.1: liquidity held only by bonding curves has no LP anyone could pull.
const bondingCurveOnly = (scan: ScanEvidenceV2): boolean =>
  scan.liquidity.pools.status === "observed" && scan.liquidity.pools.value.length > 0 &&
  scan.liquidity.pools.value.every((pool) => pool.shape === "bonding_curve")

// The LP share burned across pools, weighted equally (per-pool LP comes from the pool scanner).
const lpBurnedPctOf = (scan: ScanEvidenceV2): number | null => {
  if (scan.liquidity.pools.status !== "observed") return null
  const burned = scan.liquidity.pools.value.flatMap((pool) => pool.burnedPct.status === "observed" ? [pool.burnedPct.value] : [])
  return burned.length === 0 ? null : Math.round(burned.reduce((a, b) => a + b, 0) / burned.length * 100) / 100
}

// Price, liquidity and market cap read from the pools fill what a market feed did not give.
const marketOf = (scan: ScanEvidenceV2): ScanEvidence["market"] => {
  const market = v1Market(valueOf(scan.market))
  const price = scan.liquidity.priceUsd === undefined ? null : valueOf(scan.liquidity.priceUsd)
  const cap = scan.liquidity.marketCapUsd === undefined ? null : valueOf(scan.liquidity.marketCapUsd)
  if (price === null && cap === null) return market
  return {
    ...market,
    priceUsd: market.priceUsd ?? price?.value ?? null,
    liquidityUsd: market.liquidityUsd ?? valueOf(scan.liquidity.liquidityUsd),
    marketCap: market.marketCap ?? cap
  }
}

// The view keeps v1's market object: a feed's name and time stay in the v2 document.
const v1Market = (market: MarketV2 | null): ScanEvidence["market"] => {
  if (market === null) return emptyMarket
  const { source: _source, observedAt: _observedAt, ...figures } = market
  return figures
}

const emptyMarket: ScanEvidence["market"] = {
  priceUsd: null,
  liquidityUsd: null,
  marketCap: null,
  volume24h: null,
  priceChange5m: null,
  priceChange1h: null,
  priceChange6h: null,
  priceChange24h: null,
  buyCount24h: null,
  sellCount24h: null,
  tradeCount24h: null,
  uniqueTraders24h: null
}
