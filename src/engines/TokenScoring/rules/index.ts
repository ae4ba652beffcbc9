import { abandoned, rugged } from "./outcome.ts"
import { deployerFlagged, flaggedHolders } from "./aml.ts"
import {
  buyTax,
  defaultFrozen,
  freezeAuthorityActive,
  honeypot,
  mintAuthorityActive,
  mintCloseAuthority,
  nonTransferable,
  pausable,
  permanentDelegate,
  sellTax,
  transferFee,
  transferHook
} from "./contract.ts"
import { deployerPriorHoneypots, deployerPriorRugs, devSold } from "./deployer.ts"
import { thinEvidence } from "./evidence.ts"
import {
  liquidityDrop,
  lowLiquidity,
  lpLockExpiring,
  lpPartiallyLocked,
  lpUnlocked,
  noMarket,
  positionsUnlocked,
  thinLiquidityForCap
} from "./liquidity.ts"
import { extremeVolatility, lowOrganicVolume, microMarketCap, sellPressure, washTrading } from "./market.ts"
import { fewHolders, newToken } from "./maturity.ts"
import { copycat, impersonation, missingNameOrSymbol, mutableMetadata } from "./metadata.ts"
import {
  bundledLaunch,
  creatorHolding,
  insiderHolding,
  singleHolderConcentration,
  snipedLaunch,
  top10Concentration
} from "./ownership.ts"
import type { Rule } from "./rule.ts"

export type { Rule } from "./rule.ts"

// In the order of docs/scoring-model.md; scoreBreakdown lists findings in this order.
export const RULES: ReadonlyArray<Rule> = [
  honeypot,
  nonTransferable,
  defaultFrozen,
  mintAuthorityActive,
  freezeAuthorityActive,
  permanentDelegate,
  transferHook,
  pausable,
  mintCloseAuthority,
  transferFee,
  buyTax,
  sellTax,
  noMarket,
  lowLiquidity,
  lpUnlocked,
  positionsUnlocked,
  lpPartiallyLocked,
  lpLockExpiring,
  thinLiquidityForCap,
  liquidityDrop,
  rugged,
  top10Concentration,
  singleHolderConcentration,
  creatorHolding,
  bundledLaunch,
  snipedLaunch,
  insiderHolding,
  deployerPriorRugs,
  deployerPriorHoneypots,
  devSold,
  newToken,
  fewHolders,
  washTrading,
  lowOrganicVolume,
  extremeVolatility,
  sellPressure,
  microMarketCap,
  abandoned,
  mutableMetadata,
  missingNameOrSymbol,
  copycat,
  impersonation,
  deployerFlagged,
  flaggedHolders,
  thinEvidence
]
