import type { WalletExposure } from "../../domain/WalletEvidence.ts"
import { FULL_WEIGHT_PCT, FULL_WEIGHT_USD, HOP_DECAY } from "./model.ts"

type Sized = Pick<WalletExposure, "exposureAmountUsd" | "exposurePct">

// A log scale, so that $1k is half of $1M; a large share of a small wallet's volume weighs as much.
export const amountWeightOf = ({ exposureAmountUsd, exposurePct }: Sized): number =>
  Math.min(
    1,
    Math.max(Math.log10(1 + exposureAmountUsd) / Math.log10(1 + FULL_WEIGHT_USD), exposurePct / FULL_WEIGHT_PCT)
  )

export const hopDecayOf = (hopDistance: number): number => HOP_DECAY ** (hopDistance - 1)

export const exposurePointsOf = (basePoints: number, exposure: WalletExposure): number =>
  basePoints * amountWeightOf(exposure) * hopDecayOf(exposure.hopDistance)
