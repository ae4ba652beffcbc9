import type { ScanEvidence } from "./ScanEvidence.ts"
import {
  type Fact,
  type MintExtension,
  notApplicable,
  notObserved,
  observed,
  type ScanEvidenceV2
} from "./EvidenceV2.ts"

// v1 evidence -> v2, on import: v1's nulls become facts (docs/scan-evidence.md gives the mapping).

const V1_REASON = "not in the v1 evidence"

const fromNullable = <A>(value: A | null): Fact<A> => (value === null ? notObserved(V1_REASON) : observed(value))

/** v1 evidence as v2. v1 cannot tell "unknown" from "none", so null reads as not_observed, except where v1 defined null as none. */
export const upgradeV1 = (scan: ScanEvidence): ScanEvidenceV2 => {
  const e = scan.extensions
  const extensionFacts: Array<MintExtension> = []
  const addExtension = (
    name: string,
    type: number,
    addresses: Record<string, string | null>,
    settings: Record<string, string | number | boolean | null> = {}
  ) => extensionFacts.push({ name, type, addresses: addresses as MintExtension["addresses"], settings })
  if (e.transferFeeBps !== null && e.transferFeeBps > 0)
    addExtension("TransferFeeConfig", 1, {}, { bps: e.transferFeeBps })
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
    tradingTax:
      scan.trading.buyTax === null && scan.trading.sellTax === null
        ? notObserved(V1_REASON)
        : observed({ buyPct: scan.trading.buyTax, sellPct: scan.trading.sellTax, method: "imported" }),
    honeypot: fromNullable(scan.trading.isHoneypot),
    ...(e.transferHook === null || e.transferHookUpgradeable === undefined || e.transferHookUpgradeable === null
      ? {}
      : {
          transferHookProgram: observed({
            programId: e.transferHook,
            upgradeable: e.transferHookUpgradeable,
            upgradeAuthority: e.transferHookAuthority ?? null
          })
        }),
    metadata:
      scan.name === null && scan.symbol === null && scan.metadata.uri === null && scan.metadata.mutable === null
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
      top:
        scan.holders.top.length === 0
          ? notObserved(V1_REASON)
          : observed(
              scan.holders.top.map((holder) => ({
                address: holder.address,
                tokenAccount: null,
                amount: null,
                pct: holder.pct,
                kind: holder.kind,
                label: null,
                labelSource: creator || holder.kind !== "holder" ? "import" : null,
                ...(holder.unlockAt === undefined ? {} : { unlockAt: holder.unlockAt })
              }))
            ),
      creatorPct: fromNullable(scan.holders.creatorPct),
      bundledLaunchPct: fromNullable(scan.holders.bundledLaunchPct)
    },
    deployer:
      scan.deployer.address === null
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
