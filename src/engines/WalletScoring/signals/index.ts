import type { SignalRule } from "../types.ts"
import { adverseLabel } from "./adverseLabel.ts"
import { deployedHoneypots, deployedLowScoreTokens, deployedRugs } from "./deployed.ts"
import { flaggedCounterpartyExposure } from "./flaggedCounterparty.ts"
import { repeatDeployerExposure } from "./repeatDeployer.ts"

// In the order of docs/wallet-model.md; signals of equal points keep this order.
export const SIGNAL_RULES: ReadonlyArray<SignalRule> = [
  adverseLabel,
  flaggedCounterpartyExposure,
  repeatDeployerExposure,
  deployedRugs,
  deployedHoneypots,
  deployedLowScoreTokens
]

// Signals that speak about the wallet itself rather than about whom it dealt with.
export const DIRECT_SIGNALS: ReadonlyArray<string> = [
  "adverse_label",
  "deployed_rugs",
  "deployed_honeypots",
  "deployed_low_score_tokens"
]
