import type { Meta } from "../../features/Accounts/Meta.ts"
import type { PreTradeResponse, MonitorResponse } from "../../features/Decisions/Schemas.ts"
import type { DeployerHistoryResponse } from "../../features/Deployer/Schemas.ts"
import type { InsidersResponse } from "../../features/Insiders/Schemas.ts"
import type { BatchResponse, RiskCheckResult } from "../../features/RiskCheck/Schemas.ts"
import type { TokenRiskResponse } from "../../features/TokenRisk/Schemas.ts"
import type { WalletRiskResponse } from "../../features/WalletRisk/Schemas.ts"
import type { WatchResponse } from "../../features/Watches/Schemas.ts"

// One paragraph per answer, for the model to read; the structured content carries every field.

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : noun.endsWith("h") ? "es" : "s"}`

const charged = (meta: Meta): string =>
  `Charged ${count(meta.costUnits ?? 0, "unit")} under ${meta.scope}; ${meta.quota.remaining} of ${meta.quota.limit} left this month.`

const verdictLine = (result: RiskCheckResult): string =>
  result.verdict === "unknown"
    ? `${result.address} has never been scanned (verdict unknown); POST ${result.rescan_url} to queue a scan.`
    : `${result.address}${result.symbol === null ? "" : ` (${result.symbol})`}: verdict ${result.verdict}, safety score ` +
      `${result.score}/100, confidence ${result.confidence}, ${result.freshness} evidence (scanned ${result.age_seconds} s ago)` +
      `${result.flags.length === 0 ? ", no flags" : `, flags: ${result.flags.join(", ")}`}` +
      `${result.outcome === null ? "" : `, outcome ${result.outcome}`}.`

export const riskCheck = (result: RiskCheckResult): string =>
  `${verdictLine(result)} Policy: refuse on block; on unknown or cold evidence, rescan first; on warn, show the flags.`

export const riskCheckBatch = (batch: typeof BatchResponse.Type): string => {
  const entries = Object.values(batch.results)
  const counts = new Map<string, number>()
  for (const entry of entries) {
    const key = "verdict" in entry ? entry.verdict : "invalid"
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const blocked = entries.flatMap((entry) => ("verdict" in entry && entry.verdict === "block" ? [entry.address] : []))
  const tally = [...counts].map(([verdict, count]) => `${count} ${verdict}`).join(", ")
  return (
    `${batch.count} addresses checked: ${tally}.` +
    (blocked.length === 0 ? " None is blocked." : ` Blocked: ${blocked.join(", ")}.`)
  )
}

export const tokenRisk = ({ data, meta }: typeof TokenRiskResponse.Type): string =>
  `${data.summary}${data.hardCaps.length === 0 ? "" : ` Hard caps: ${data.hardCaps.join(", ")}.`} ${charged(meta)}`

// Each fact as observed or why not: a not_observed fact is said so, never read as "none".
export const tokenInsiders = ({ data, meta }: typeof InsidersResponse.Type): string => {
  const { clusters, launchBuyers, deployerHolding } = data
  const clustersLine =
    clusters.status !== "observed"
      ? `Clusters ${clusters.status}: ${clusters.reason}.`
      : clusters.value.length === 0
        ? "No insider cluster among the top holders."
        : `${count(clusters.value.length, "cluster")}: ${clusters.value.map((cluster) => cluster.risk).join("; ")}.`
  const launchLine =
    launchBuyers.status !== "observed"
      ? `Launch buyers ${launchBuyers.status}: ${launchBuyers.reason}.`
      : `Launch (slot ${launchBuyers.value.creationSlot}): ${count(launchBuyers.value.sameSlotCount, "wallet")} ` +
        `bought ${launchBuyers.value.sameSlotPct}% in the creation slot, ${count(launchBuyers.value.sniperCount, "sniper")} ` +
        `${launchBuyers.value.sniperPct}% in the next ${launchBuyers.value.windowSlots} slots.`
  const devLine =
    deployerHolding.status !== "observed"
      ? `Deployer holding ${deployerHolding.status}: ${deployerHolding.reason}.`
      : `Deployer held ${deployerHolding.value.initialPct}% at launch, ${deployerHolding.value.currentPct}% now` +
        `${deployerHolding.value.soldPct === null ? "." : ` (sold ${deployerHolding.value.soldPct}%).`}`
  return (
    `Insiders of ${data.mint}: ${clustersLine} ${launchLine} ${devLine} The graph has ` +
    `${count(data.graph.nodes.length, "node")} and ${count(data.graph.edges.length, "edge")}. ${charged(meta)}`
  )
}

// The disclaimer goes with every screening, unless the summary already says it.
export const walletRisk = ({ data, meta }: typeof WalletRiskResponse.Type): string =>
  `${data.summary}${data.summary.includes("legal compliance") ? "" : ` ${data.disclaimer}`} ${charged(meta)}`

export const deployerHistory = ({ data, meta }: typeof DeployerHistoryResponse.Type): string => {
  const { summary } = data
  return (
    `Deployer ${data.deployer}: ${count(summary.launchCount, "launch")} (${summary.ruggedCount} rugged, ` +
    `${count(summary.honeypotCount, "honeypot")}, ${summary.abandonedCount} abandoned), risk level ${summary.riskLevel}: ${summary.riskReason}. ` +
    `This page lists ${data.launches.length}` +
    `${data.page.nextCursor === null ? "; it is the last page." : `; pass cursor "${data.page.nextCursor}" for the next.`} ` +
    charged(meta)
  )
}

export const preTrade = ({ data, meta }: typeof PreTradeResponse.Type): string =>
  `Decision ${data.decision} (${data.recommended_action}, risk ${data.risk}, confidence ${data.confidence}) for a ` +
  `trade of ${data.token.symbol ?? data.token.mint}: ${data.edge_summary} Check again after ${data.next_check_after_seconds} s. ` +
  charged(meta)

export const monitorPosition = ({ data, meta }: typeof MonitorResponse.Type): string =>
  `Decision ${data.decision} (risk ${data.risk}): ${data.summary} ${charged(meta)}`

export const setWatch = ({ data, meta }: typeof WatchResponse.Type): string =>
  `Stored watch ${data.watch_id} on ${data.mint} with ${count(data.rules.length, "rule")} ` +
  `(${data.rules.map((rule) => `${rule.metric} ${rule.comparison} ${rule.threshold}`).join(", ")}), until ${data.expires_at}. ` +
  `It only stores the contract: call monitor_position with watchId ${data.watch_id} every ${data.poll_seconds} s ` +
  `(next at ${data.next_check_at}). ${charged(meta)}`
