import type { ScanEvidence } from "../../Domain/ScanEvidence.ts"
import {
  BUY_TAX_TIERS,
  CAPS,
  EXTREME_TAX_PCT,
  HONEYPOT_POINTS,
  ISSUER_CONTROL,
  type IssuerControlPoints,
  NON_TRANSFERABLE_POINTS,
  SELL_TAX_TIERS,
  TRANSFER_FEE_BPS_TIERS
} from "../model.ts"
import type { Flag } from "../flags.ts"
import { formatPct, tierAtLeast } from "../observed.ts"
import { finding, type Rule, shortAddress } from "./rule.ts"

interface IssuerControl {
  readonly rule: string
  readonly flag: Flag
  readonly points: IssuerControlPoints
  // The observed power, described for the reason; null when the token does not carry it.
  readonly describe: (evidence: ScanEvidence) => string | null
  readonly risk: string
}

const issuerControlRule = (control: IssuerControl): Rule => ({ evidence }) => {
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
  return finding({ rule: control.rule, facet: "contract", points: control.points.points, reason: described, risk: control.risk, flag: control.flag })
}

const addressDescription = (field: string, address: string | null): string | null =>
  address === null ? null : `${field} is set (${shortAddress(address)})`

export const mintAuthorityActive = issuerControlRule({
  rule: "mint_authority_active",
  flag: "mint_authority_active",
  points: ISSUER_CONTROL.mintAuthority,
  describe: (evidence) => addressDescription("mintAuthority", evidence.mintAuthority),
  risk: "Mint authority is active: new supply can be minted at any time"
})

export const freezeAuthorityActive = issuerControlRule({
  rule: "freeze_authority_active",
  flag: "freeze_authority_active",
  points: ISSUER_CONTROL.freezeAuthority,
  describe: (evidence) => addressDescription("freezeAuthority", evidence.freezeAuthority),
  risk: "Freeze authority is active: holder accounts can be frozen"
})

export const permanentDelegate = issuerControlRule({
  rule: "permanent_delegate",
  flag: "permanent_delegate",
  points: ISSUER_CONTROL.permanentDelegate,
  describe: (evidence) => addressDescription("extensions.permanentDelegate", evidence.extensions.permanentDelegate),
  risk: "Permanent delegate can transfer or burn tokens from any holder"
})

export const transferHook = issuerControlRule({
  rule: "transfer_hook",
  flag: "transfer_hook",
  points: ISSUER_CONTROL.transferHook,
  describe: (evidence) => addressDescription("extensions.transferHook", evidence.extensions.transferHook),
  risk: "Transfer hook runs a custom program on every transfer and can block sells"
})

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

export const transferFee: Rule = ({ evidence }) => {
  const bps = evidence.extensions.transferFeeBps
  const tier = bps === null ? undefined : tierAtLeast(bps, TRANSFER_FEE_BPS_TIERS)
  if (bps === null || tier === undefined) return null
  return finding({
    rule: "transfer_fee",
    facet: "contract",
    points: tier.points,
    reason: `extensions.transferFeeBps ${bps} >= ${tier.threshold}`,
    risk: `Token-2022 transfer fee of ${formatPct(bps / 100)} on every transfer`,
    flag: "transfer_fee",
    cap: bps >= EXTREME_TAX_PCT * 100 ? CAPS.extremeTax : null
  })
}

export const buyTax: Rule = ({ evidence }) => {
  const tax = evidence.trading.buyTax
  const tier = tax === null ? undefined : tierAtLeast(tax, BUY_TAX_TIERS)
  if (tax === null || tier === undefined) return null
  return finding({
    rule: "buy_tax",
    facet: "contract",
    points: tier.points,
    reason: `trading.buyTax ${formatPct(tax)} >= ${tier.threshold}%`,
    risk: `Buy tax of ${formatPct(tax)}`,
    flag: "buy_tax"
  })
}

export const sellTax: Rule = ({ evidence }) => {
  const tax = evidence.trading.sellTax
  const tier = tax === null ? undefined : tierAtLeast(tax, SELL_TAX_TIERS)
  if (tax === null || tier === undefined) return null
  return finding({
    rule: "sell_tax",
    facet: "contract",
    points: tier.points,
    reason: `trading.sellTax ${formatPct(tax)} >= ${tier.threshold}%`,
    risk: `Sell tax of ${formatPct(tax)}`,
    flag: "sell_tax",
    cap: tax >= EXTREME_TAX_PCT ? CAPS.extremeTax : null
  })
}
