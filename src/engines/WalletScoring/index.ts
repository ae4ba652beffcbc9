export { assessWallet } from "./assess.ts"
export { amountWeightOf, hopDecayOf } from "./exposureWeight.ts"
export { ACTION_BY_LEVEL, riskLevelOf } from "./levels.ts"
export { WALLET_MODEL_VERSION } from "./model.ts"
export { SCREENING_NOTICE } from "./summary.ts"
export type {
  DeployedToken,
  DeployerRecord,
  WalletAssessment,
  WalletEvidence
} from "./types.ts"
