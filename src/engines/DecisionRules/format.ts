import { formatUsd } from "../TokenScoring/observed.ts"

export const roundTo2 = (value: number): number => Math.round(value * 100) / 100

export const minutesText = (seconds: number): string => {
  const minutes = Math.max(1, Math.round(seconds / 60))
  return minutes === 1 ? "1 minute" : `${minutes} minutes`
}

// Token prices run to many decimals: four significant digits below a dollar.
export const formatPrice = (priceUsd: number): string =>
  priceUsd >= 1 ? formatUsd(priceUsd) : `$${Number(priceUsd.toPrecision(4))}`
