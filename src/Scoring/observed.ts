import { epochMillisOf, type Holder, type ScanEvidence } from "../Domain/ScanEvidence.ts"
import { CONCENTRATION_EXCLUDED_KINDS, type Tier } from "./model.ts"

// Values the rules derive from the evidence; null when the evidence needed for them was not observed.
export interface Observed {
  readonly evidence: ScanEvidence
  readonly liquidityUsd: number | null
  readonly top10Pct: number | null
  readonly largestHolderPct: number | null
  readonly insiderPct: number | null
  readonly tokenAgeHours: number | null
  readonly lpLockHoursLeft: number | null
}

const HOUR_MS = 60 * 60 * 1000

const hoursBetween = (from: string, to: string): number => (epochMillisOf(to) - epochMillisOf(from)) / HOUR_MS

const countsTowardConcentration = (holder: Holder): boolean =>
  !(CONCENTRATION_EXCLUDED_KINDS as ReadonlyArray<string>).includes(holder.kind)

const sumPct = (holders: ReadonlyArray<Holder>): number =>
  Math.min(100, holders.reduce((total, holder) => total + holder.pct, 0))

const top10PctOf = (holders: ReadonlyArray<Holder>): number => {
  const largestFirst = [...holders].sort((a, b) => b.pct - a.pct)
  return sumPct(largestFirst.slice(0, 10))
}

export const observe = (evidence: ScanEvidence): Observed => {
  const top = evidence.holders.top
  const concentrated = top.filter(countsTowardConcentration)
  const holdersObserved = top.length > 0
  const lockExpiresAt = evidence.liquidity.lpLockExpiresAt
  return {
    evidence,
    liquidityUsd: evidence.liquidity.liquidityUsd ?? evidence.market.liquidityUsd,
    top10Pct: holdersObserved ? top10PctOf(concentrated) : null,
    largestHolderPct: holdersObserved ? Math.max(0, ...concentrated.map((holder) => holder.pct)) : null,
    insiderPct: holdersObserved ? sumPct(top.filter((holder) => holder.kind === "insider")) : null,
    tokenAgeHours: evidence.createdAt === null ? null : hoursBetween(evidence.createdAt, evidence.scannedAt),
    lpLockHoursLeft: lockExpiresAt === null ? null : hoursBetween(evidence.scannedAt, lockExpiresAt)
  }
}

export const tierAtLeast = (value: number, tiers: ReadonlyArray<Tier>): Tier | undefined =>
  tiers.find((tier) => value >= tier.threshold)

export const tierBelow = (value: number, tiers: ReadonlyArray<Tier>): Tier | undefined =>
  tiers.find((tier) => value < tier.threshold)

// Formatting by hand keeps reasons identical whatever locale data the runtime carries.
const withThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")

export const formatUsd = (value: number): string =>
  value < 100 ? `$${Number(value.toFixed(2))}` : `$${withThousands(Math.round(value).toString())}`

export const formatPct = (value: number): string => `${Number(value.toFixed(2))}%`
