import type { ScanEvidence } from "../../../domain/ScanEvidence.ts"
import {
  BUY_TAX_TIERS,
  CAPS,
  EXTREME_TAX_PCT,
  type HardCap,
  HIGH_TAX_PCT,
  SEVERE_TAX_PCT,
  HONEYPOT_POINTS,
  ISSUER_CONTROL,
  type IssuerControlPoints,
  NON_TRANSFERABLE_POINTS,
  SELL_TAX_TIERS,
  TRANSFER_FEE_POINTS
} from "../model.ts"
import type { Flag } from "../flags.ts"
import { type EffectiveTax, formatPct, tierAtLeast } from "../observed.ts"
import { finding, type Rule, shortAddress } from "./rule.ts"

interface IssuerControl {
  readonly rule: string
  readonly flag: Flag
  readonly points: IssuerControlPoints
  // The observed power, described for the reason; null when the token does not carry it.
  readonly describe: (evidence: ScanEvidence) => string | null
  readonly risk: string
  // 2.0: the cap that keeps an unverified token carrying this power out of `ok`, and who holds the power.
  readonly cap?: HardCap
  readonly holder?: (evidence: ScanEvidence) => string | null
}

const issuerControlRule =
  (control: IssuerControl): Rule =>
  ({ evidence }) => {
    const described = control.describe(evidence)
    if (described === null) return null
    if (evidence.verified) {
      return finding({
        rule: control.rule,
        facet: "contract",
        points: control.points.verifiedPoints,
        reason: `${described}; reduced for a verified issuer`,
        risk: `${control.risk} (kept by a verified issuer)`
      })
    }
    const holder = control.holder?.(evidence) ?? null
    return finding({
      rule: control.rule,
      facet: "contract",
      points: control.points.points,
      reason: described,
      risk: holder === null ? control.risk : `${control.risk} (held by ${holder})`,
      flag: control.flag,
      cap: control.cap ?? null
    })
  }

const addressDescription = (field: string, address: string | null): string | null =>
  address === null ? null : `${field} is set (${shortAddress(address)})`

export const mintAuthorityActive = issuerControlRule({
  rule: "mint_authority_active",
  flag: "mint_authority_active",
  points: ISSUER_CONTROL.mintAuthority,
  describe: (evidence) => addressDescription("mintAuthority", evidence.mintAuthority),
  risk: "Mint authority is active: new supply can be minted at any time",
  cap: CAPS.mintAuthority,
  holder: (evidence) => evidence.mintAuthority
})

export const freezeAuthorityActive = issuerControlRule({
  rule: "freeze_authority_active",
  flag: "freeze_authority_active",
  points: ISSUER_CONTROL.freezeAuthority,
  describe: (evidence) => addressDescription("freezeAuthority", evidence.freezeAuthority),
  risk: "Freeze authority is active: holder accounts can be frozen",
  cap: CAPS.freezeAuthority,
  holder: (evidence) => evidence.freezeAuthority
})

export const permanentDelegate = issuerControlRule({
  rule: "permanent_delegate",
  flag: "permanent_delegate",
  points: ISSUER_CONTROL.permanentDelegate,
  describe: (evidence) => addressDescription("extensions.permanentDelegate", evidence.extensions.permanentDelegate),
  risk: "Permanent delegate can transfer or burn tokens from any holder",
  cap: CAPS.permanentDelegate,
  holder: (evidence) => evidence.extensions.permanentDelegate
})

const transferHookControl = issuerControlRule({
  rule: "transfer_hook",
  flag: "transfer_hook",
  points: ISSUER_CONTROL.transferHook,
  describe: (evidence) => {
    const described = addressDescription("extensions.transferHook", evidence.extensions.transferHook)
    const upgradeable = evidence.extensions.transferHookUpgradeable ?? null
    const authority = evidence.extensions.transferHookAuthority ?? null
    return described === null
      ? null
      : upgradeable === null
        ? `${described}; its program's upgradeability not observed`
        : upgradeable
          ? `${described}; its program is upgradeable${authority === null ? "" : ` by ${shortAddress(authority)}`}`
          : `${described}; its program is immutable`
  },
  risk: "Transfer hook runs a custom program on every transfer and can block sells",
  // A program whose upgradeability is not observed counts as one that can change.
  cap: CAPS.transferHook,
  holder: (evidence) => evidence.extensions.transferHook
})

// 2.1: an immutable hook program cannot change what it does; the sell simulation shows whether it blocks
// (without one the token is thin evidence). It costs its points without the cap.
export const transferHook: Rule = (observed) => {
  const found = transferHookControl(observed)
  return found !== null && observed.evidence.extensions.transferHookUpgradeable === false
    ? { ...found, cap: null, risk: `${found.risk.replace(/ \(held by .*\)$/, "")} (its program is immutable)` }
    : found
}

const pausableControl = issuerControlRule({
  rule: "pausable",
  flag: "pausable",
  points: ISSUER_CONTROL.pausable,
  describe: (evidence) => {
    const authority = evidence.extensions.pausableAuthority ?? null
    const paused = evidence.extensions.paused === true ? " and transfers are paused now" : ""
    return authority === null
      ? evidence.extensions.paused === true
        ? "extensions.paused is true"
        : null
      : `extensions.pausableAuthority is set (${shortAddress(authority)})${paused}`
  },
  risk: "Pausable: one key can stop every transfer, sells included",
  cap: CAPS.pausable,
  holder: (evidence) => evidence.extensions.pausableAuthority ?? null
})

// Paused now, nobody can sell: the cap holds even for a verified issuer.
export const pausable: Rule = (observed) => {
  const found = pausableControl(observed)
  return found !== null && observed.evidence.extensions.paused === true
    ? { ...found, cap: CAPS.pausable, flag: "pausable" }
    : found
}

export const mintCloseAuthority = issuerControlRule({
  rule: "mint_close_authority",
  flag: "mint_close_authority",
  points: ISSUER_CONTROL.mintCloseAuthority,
  describe: (evidence) => addressDescription("extensions.mintCloseAuthority", evidence.extensions.mintCloseAuthority),
  risk: "Mint close authority can close the mint account"
})

const defaultFrozenControl = issuerControlRule({
  rule: "default_frozen",
  flag: "default_frozen",
  points: ISSUER_CONTROL.defaultFrozen,
  describe: (evidence) =>
    evidence.extensions.defaultAccountStateFrozen === true ? "extensions.defaultAccountStateFrozen is true" : null,
  risk: "New token accounts start frozen: bought tokens cannot move until the issuer thaws them"
})

export const defaultFrozen: Rule = (observed) => {
  const found = defaultFrozenControl(observed)
  return found !== null && !observed.evidence.verified ? { ...found, cap: CAPS.defaultFrozen } : found
}

export const nonTransferable: Rule = ({ evidence }) =>
  evidence.extensions.nonTransferable === true
    ? finding({
        rule: "non_transferable",
        facet: "contract",
        points: NON_TRANSFERABLE_POINTS,
        reason: "extensions.nonTransferable is true",
        risk: "Token is non-transferable: it cannot be sold",
        flag: "non_transferable",
        cap: CAPS.nonTransferable
      })
    : null

export const honeypot: Rule = ({ evidence }) =>
  evidence.trading.isHoneypot === true
    ? finding({
        rule: "honeypot",
        facet: "contract",
        points: HONEYPOT_POINTS,
        reason: "trading.isHoneypot is true (a simulated sell failed)",
        risk: "Honeypot: a simulated sell failed, holders may be unable to sell",
        flag: "honeypot",
        cap: CAPS.honeypot
      })
    : null

// 2.1: a scheduled fee is not the fee in effect: "x% now, y% from epoch N". The taxes count the higher one
// (a scheduled increase is a certainty to come), and say so.
const scheduledFee = (evidence: ScanEvidence): string | null => {
  const now = evidence.extensions.transferFeeNowBps ?? null
  const bps = evidence.extensions.transferFeeBps
  if (now === null || bps === null || now === bps) return null
  const epoch = evidence.extensions.transferFeeScheduledEpoch ?? null
  return `${formatPct(now / 100)} now, ${formatPct(bps / 100)} from ${epoch === null ? "a later epoch" : `epoch ${epoch}`}`
}

// The fee's cost is counted in the effective buy and sell taxes; this rule names it.
export const transferFee: Rule = ({ evidence }) => {
  const bps = evidence.extensions.transferFeeBps
  if (bps === null || bps === 0) return null
  const scheduled = scheduledFee(evidence)
  return finding({
    rule: "transfer_fee",
    facet: "contract",
    points: TRANSFER_FEE_POINTS,
    reason: `extensions.transferFeeBps ${bps} > 0 (its cost is in the effective taxes)${scheduled === null ? "" : `; ${scheduled}`}`,
    risk:
      scheduled === null
        ? `Token-2022 transfer fee of ${formatPct(bps / 100)} on every transfer`
        : `Token-2022 transfer fee of ${scheduled} on every transfer`,
    flag: "transfer_fee"
  })
}

const taxParts = (tax: EffectiveTax, evidence: ScanEvidence): string => {
  const scheduled = scheduledFee(evidence)
  return `transfer fee ${formatPct(tax.transferFeePct ?? 0)}${scheduled === null ? "" : ` (${scheduled})`} + trading tax ${formatPct(tax.tradingPct ?? 0)}`
}

export const buyTax: Rule = ({ buy, evidence }) => {
  const tier = buy.totalPct === null ? undefined : tierAtLeast(buy.totalPct, BUY_TAX_TIERS)
  if (buy.totalPct === null || tier === undefined) return null
  return finding({
    rule: "buy_tax",
    facet: "contract",
    points: tier.points,
    reason: `effective buy tax ${formatPct(buy.totalPct)} (${taxParts(buy, evidence)}) >= ${tier.threshold}%`,
    risk: `Buy tax of ${formatPct(buy.totalPct)} (${taxParts(buy, evidence)})`,
    flag: "buy_tax"
  })
}

const taxCap = (pct: number): HardCap | null =>
  pct >= EXTREME_TAX_PCT
    ? CAPS.extremeTax
    : pct >= SEVERE_TAX_PCT
      ? CAPS.severeTax
      : pct >= HIGH_TAX_PCT
        ? CAPS.highTax
        : null

export const sellTax: Rule = ({ sell, evidence }) => {
  const tier = sell.totalPct === null ? undefined : tierAtLeast(sell.totalPct, SELL_TAX_TIERS)
  if (sell.totalPct === null || tier === undefined) return null
  return finding({
    rule: "sell_tax",
    facet: "contract",
    points: tier.points,
    reason: `effective sell tax ${formatPct(sell.totalPct)} (${taxParts(sell, evidence)}) >= ${tier.threshold}%`,
    risk: `Sell tax of ${formatPct(sell.totalPct)} (${taxParts(sell, evidence)})`,
    flag: "sell_tax",
    cap: taxCap(sell.totalPct)
  })
}
