import { epochMillisOf } from "../../domain/ScanEvidence.ts"
import { verdictOf } from "../../domain/Verdict.ts"
import { assessToken } from "../../engines/TokenScoring/index.ts"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import type { LaunchRecord as LaunchRecordSchema } from "./Schemas.ts"

// A deployer's launch history from cached scans: each launch's latest state and the outcome rule,
// and summary metrics over all launches. Pure: `now` is passed in.

export const RUG_PEAK_LIQUIDITY_USD = 10_000
export const RUG_REMAINING_SHARE = 0.1
export const RUG_REMAINING_USD = 1_000
const ABANDONED_VOLUME_USD = 100
const ABANDONED_MIN_AGE_DAYS = 7
const STALE_AFTER_DAYS = 30

const DAY_MS = 86_400_000

/** A mint a deployer launched: its latest scan, when it was first seen, and its peak liquidity. */
export interface Launch {
  readonly mint: string
  readonly firstSeenAt: string
  readonly latest: ScanEvidence
  readonly peakLiquidityUsd: number | null
  readonly scanCount: number
}

export type LaunchOutcome = "active" | "rugged" | "abandoned" | "unknown"
type DeployerRiskLevel = "none" | "low" | "medium" | "high" | "critical"

/** A launch as the deployer-history route reports it. */
export type LaunchRecord = typeof LaunchRecordSchema.Type

export interface DeployerSummary {
  readonly launchCount: number
  readonly ruggedCount: number
  readonly honeypotCount: number
  readonly abandonedCount: number
  readonly ruggedRate: number
  readonly honeypotRate: number
  readonly medianSafetyScore: number | null
  readonly firstLaunchAt: string | null
  readonly lastLaunchAt: string | null
  readonly launchesLast24h: number
  readonly launchesLast7d: number
  readonly launchesLast30d: number
  readonly riskLevel: DeployerRiskLevel
  readonly riskReason: string
}

const usd = (value: number) => `$${Math.round(value).toLocaleString("en-US")}`

/** The outcome rule, first match wins (documented in the README and /openapi.json). */
export const outcomeOf = (
  launch: Launch,
  now: number
): { readonly outcome: LaunchOutcome; readonly reason: string } => {
  const evidence = launch.latest
  if (evidence.outcome === "rugged" || evidence.outcome === "abandoned") {
    return { outcome: evidence.outcome, reason: `the scanner reported it ${evidence.outcome}` }
  }
  const liquidity = evidence.liquidity.liquidityUsd ?? evidence.market.liquidityUsd
  const peak = launch.peakLiquidityUsd
  if (
    peak !== null &&
    liquidity !== null &&
    peak >= RUG_PEAK_LIQUIDITY_USD &&
    liquidity < peak * RUG_REMAINING_SHARE &&
    liquidity < RUG_REMAINING_USD
  ) {
    return { outcome: "rugged", reason: `liquidity fell from ${usd(peak)} to ${usd(liquidity)}` }
  }
  const scannedAt = epochMillisOf(evidence.scannedAt)
  const ageDays = evidence.createdAt === null ? null : (scannedAt - epochMillisOf(evidence.createdAt)) / DAY_MS
  const volume = evidence.market.volume24h
  if (volume !== null && volume < ABANDONED_VOLUME_USD && ageDays !== null && ageDays > ABANDONED_MIN_AGE_DAYS) {
    return { outcome: "abandoned", reason: `24 h volume ${usd(volume)} after ${Math.floor(ageDays)} days` }
  }
  if (now - scannedAt > STALE_AFTER_DAYS * DAY_MS) {
    return { outcome: "unknown", reason: `no scan in the last ${STALE_AFTER_DAYS} days` }
  }
  return evidence.outcome === "active"
    ? { outcome: "active", reason: "the scanner reported it active" }
    : { outcome: "active", reason: "trading, with liquidity, in a recent scan" }
}

export const launchRecordOf = (launch: Launch, now: number): LaunchRecord => {
  const evidence = launch.latest
  const { safetyScore } = assessToken(evidence)
  const { outcome, reason } = outcomeOf(launch, now)
  return {
    mint: launch.mint,
    name: evidence.name,
    symbol: evidence.symbol,
    firstSeenAt: launch.firstSeenAt,
    lastScannedAt: evidence.scannedAt,
    scanCount: launch.scanCount,
    safetyScore,
    verdict: verdictOf(safetyScore),
    isHoneypot: evidence.trading.isHoneypot,
    lpLocked: evidence.liquidity.lpLocked,
    liquidityUsd: evidence.liquidity.liquidityUsd ?? evidence.market.liquidityUsd,
    peakLiquidityUsd: launch.peakLiquidityUsd,
    outcome,
    outcomeReason: reason
  }
}

const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2)
}

const rate = (count: number, total: number) => (total === 0 ? 0 : Math.round((count / total) * 1000) / 1000)

/** The deployer's risk level, first match wins. */
const deployerRiskOf = (
  summary: Omit<DeployerSummary, "riskLevel" | "riskReason">
): { readonly level: DeployerRiskLevel; readonly reason: string } => {
  const bad = summary.ruggedCount + summary.honeypotCount
  if (summary.launchCount === 0) return { level: "none", reason: "no launches observed" }
  if (bad >= 2) return { level: "critical", reason: `${bad} launches rugged or honeypots` }
  if (bad === 1) return { level: "high", reason: "1 launch rugged or a honeypot" }
  if (summary.medianSafetyScore !== null && summary.medianSafetyScore < 30) {
    return { level: "high", reason: `median safety score ${summary.medianSafetyScore} (< 30)` }
  }
  if (summary.medianSafetyScore !== null && summary.medianSafetyScore < 60) {
    return { level: "medium", reason: `median safety score ${summary.medianSafetyScore} (< 60)` }
  }
  if (summary.launchesLast24h >= 5) return { level: "medium", reason: `${summary.launchesLast24h} launches in 24 h` }
  if (summary.abandonedCount > summary.launchCount / 2) return { level: "medium", reason: "most launches abandoned" }
  return { level: "low", reason: "no rugs or honeypots, median safety score >= 60" }
}

export const summaryOf = (records: ReadonlyArray<LaunchRecord>, now: number): DeployerSummary => {
  const firstSeen = records.map((record) => epochMillisOf(record.firstSeenAt))
  const within = (days: number) => firstSeen.filter((at) => now - at <= days * DAY_MS).length
  const ruggedCount = records.filter((record) => record.outcome === "rugged").length
  const honeypotCount = records.filter((record) => record.isHoneypot === true).length
  const base = {
    launchCount: records.length,
    ruggedCount,
    honeypotCount,
    abandonedCount: records.filter((record) => record.outcome === "abandoned").length,
    ruggedRate: rate(ruggedCount, records.length),
    honeypotRate: rate(honeypotCount, records.length),
    medianSafetyScore: median(records.map((record) => record.safetyScore)),
    firstLaunchAt: records.length === 0 ? null : new Date(Math.min(...firstSeen)).toISOString(),
    lastLaunchAt: records.length === 0 ? null : new Date(Math.max(...firstSeen)).toISOString(),
    launchesLast24h: within(1),
    launchesLast7d: within(7),
    launchesLast30d: within(30)
  }
  const risk = deployerRiskOf(base)
  return { ...base, riskLevel: risk.level, riskReason: risk.reason }
}

// Launches are ordered newest first (firstSeenAt desc, then mint); a cursor is the last key of a page.
const cursorOf = (record: LaunchRecord): string =>
  Buffer.from(`${record.firstSeenAt}|${record.mint}`).toString("base64url")

export const parseCursor = (cursor: string): { readonly firstSeenAt: string; readonly mint: string } | undefined => {
  const [firstSeenAt, mint, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|")
  return firstSeenAt !== undefined && mint !== undefined && rest.length === 0 && !Number.isNaN(Date.parse(firstSeenAt))
    ? { firstSeenAt, mint }
    : undefined
}

const isAfter = (record: LaunchRecord, cursor: { readonly firstSeenAt: string; readonly mint: string }) => {
  const at = epochMillisOf(record.firstSeenAt)
  const cursorAt = epochMillisOf(cursor.firstSeenAt)
  return at < cursorAt || (at === cursorAt && record.mint > cursor.mint)
}

export const pageOf = (
  records: ReadonlyArray<LaunchRecord>,
  limit: number,
  cursor: { readonly firstSeenAt: string; readonly mint: string } | undefined
): { readonly launches: ReadonlyArray<LaunchRecord>; readonly nextCursor: string | null } => {
  const rest = cursor === undefined ? records : records.filter((record) => isAfter(record, cursor))
  const launches = rest.slice(0, limit)
  const last = launches.at(-1)
  return { launches, nextCursor: rest.length > limit && last !== undefined ? cursorOf(last) : null }
}
