import { HttpApiBuilder } from "@effect/platform"
import { Array as Arr, Clock, Effect, Option } from "effect"
import { RiskApi } from "../Api.ts"
import { CurrentCaller } from "../Accounts/Auth.ts"
import {
  MAX_ACTIVE_WATCHES,
  MONITOR_CONTRACT_VERSION,
  MONITOR_COST,
  PRE_TRADE_CONTRACT_VERSION,
  PRE_TRADE_COST,
  SET_WATCH_COST,
  WATCH_CONTRACT_VERSION,
  WATCH_READ_COST
} from "./Api.ts"
import { InvalidRequest, NotScanned, WatchLimitReached, WatchNotFound } from "../Domain/Errors.ts"
import { DECISION_MODEL_VERSION, monitorDecision, preTradeDecision, WATCH_METRICS, type WatchRule } from "../Decision/index.ts"
import { epochMillisOf, type ScanEvidence } from "../Domain/ScanEvidence.ts"
import { rescanUrlOf } from "../RiskCheck/Answer.ts"
import { assessToken, assessTokenOnce } from "../Scoring/index.ts"
import { ScanCache } from "../Scans/ScansRepo.ts"
import { WalletRisk } from "../Wallet/WalletRisk.ts"
import { type Watch, Watches } from "../Watches/WatchesRepo.ts"
import { TOKEN_RISK_SOURCES } from "../TokenRisk/Packet.ts"
import { metaOf } from "../Accounts/MetaOf.ts"
import { charge } from "../Accounts/Metered.ts"
import { parseAddress } from "../RiskCheck/Http.ts"

const HISTORY_LIMIT = 200

const decisionMetaOf = (call: Parameters<typeof metaOf>[0]) =>
  Effect.map(metaOf(call), (meta) => ({
    ...meta,
    agentRequestId: `agent_${crypto.randomUUID()}`,
    modelVersion: DECISION_MODEL_VERSION
  }))

const tokenOf = (evidence: ScanEvidence, safetyScore: number) => ({
  mint: evidence.mint,
  symbol: evidence.symbol,
  name: evidence.name,
  safety_score: safetyScore,
  liquidity_usd: evidence.liquidity.liquidityUsd ?? evidence.market.liquidityUsd,
  volume_24h: evidence.market.volume24h,
  market_cap: evidence.market.marketCap,
  scanned_at: evidence.scannedAt
})

const ageOf = (evidence: ScanEvidence, now: number) => Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))

const notScanned = (mint: string) =>
  new NotScanned({ message: `${mint} has never been scanned; POST ${rescanUrlOf(mint)} to queue a scan.` })

const parseEntryTime = (entryTime: string | undefined, now: number) => {
  if (entryTime === undefined) return Effect.succeed(null)
  const millis = Date.parse(entryTime)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(entryTime) || Number.isNaN(millis)) {
    return Effect.fail(new InvalidRequest({ message: `entryTime: not an ISO 8601 timestamp: ${JSON.stringify(entryTime)}` }))
  }
  if (millis > now + 60_000) return Effect.fail(new InvalidRequest({ message: "entryTime: is in the future" }))
  return Effect.succeed(new Date(millis).toISOString())
}

export const DecisionHttp = HttpApiBuilder.group(RiskApi, "decision", (handlers) =>
  Effect.gen(function*() {
    const scans = yield* ScanCache
    const wallets = yield* WalletRisk
    const watches = yield* Watches
    return handlers
      .handle("preTrade", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const mint = yield* parseAddress(payload.mint)
          const trader = payload.wallet === undefined ? undefined : yield* parseAddress(payload.wallet)
          const standing = yield* charge(caller, PRE_TRADE_COST)
          const scan = yield* scans.latest(mint)
          if (Option.isNone(scan)) return yield* notScanned(mint)
          const now = yield* Clock.currentTimeMillis
          const evidence = scan.value.evidence
          const assessment = assessTokenOnce(evidence)
          const screening = trader === undefined ? undefined : yield* wallets.packet(trader, now)
          const decision = preTradeDecision({
            evidence,
            assessment,
            evidenceAgeSeconds: ageOf(evidence, now),
            side: payload.side,
            sizeUsd: payload.sizeUsd ?? null,
            maxEvidenceAgeSeconds: payload.maxEvidenceAgeSeconds ?? null,
            wallet: screening === undefined ? null : { riskLevel: screening.riskLevel, hasEvidence: screening.sources.length > 0 }
          })
          return {
            data: {
              ...decision,
              evidence_age_seconds: ageOf(evidence, now),
              cache_status: "latest_cached_scan" as const,
              sources: screening === undefined ? [...TOKEN_RISK_SOURCES] : [...TOKEN_RISK_SOURCES, "svc_wallet_screening"],
              token: tokenOf(evidence, assessment.safetyScore)
            },
            meta: yield* decisionMetaOf({ scope: caller.scope, standing, cost: PRE_TRADE_COST, now, contractVersion: PRE_TRADE_CONTRACT_VERSION })
          }
        }))
      .handle("monitorPosition", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const mint = yield* parseAddress(payload.mint)
          const now = yield* Clock.currentTimeMillis
          const entryTime = yield* parseEntryTime(payload.entryTime, now)
          const watch = payload.watchId === undefined ? undefined : yield* ownedWatch(watches, caller.accountId, payload.watchId)
          if (watch !== undefined && watch.mint !== mint) {
            return yield* new InvalidRequest({ message: `watchId: watch ${watch.id} is for mint ${watch.mint}, not ${mint}` })
          }
          const standing = yield* charge(caller, MONITOR_COST)
          const history = (yield* scans.history(mint, { since: entryTime, limit: HISTORY_LIMIT })).map((scan) => scan.evidence)
          if (!Arr.isNonEmptyReadonlyArray(history)) return yield* notScanned(mint)
          const latest = Arr.lastNonEmpty(history)
          const assessment = assessToken(latest)
          const decision = monitorDecision({
            history,
            assessment,
            entryAssessment: entryTime === null ? null : assessToken(Arr.headNonEmpty(history)),
            evidenceAgeSeconds: ageOf(latest, now),
            entryPriceUsd: payload.entryPriceUsd ?? null,
            entryTime,
            sizeUsd: payload.sizeUsd ?? null,
            watchRules: watch === undefined ? null : watch.rules,
            maxEvidenceAgeSeconds: payload.maxEvidenceAgeSeconds ?? null
          })
          return {
            data: {
              ...decision,
              evidence_age_seconds: ageOf(latest, now),
              scans_considered: history.length,
              cache_status: "latest_cached_scan" as const,
              sources: [...TOKEN_RISK_SOURCES],
              token: tokenOf(latest, assessment.safetyScore)
            },
            meta: yield* decisionMetaOf({ scope: caller.scope, standing, cost: MONITOR_COST, now, contractVersion: MONITOR_CONTRACT_VERSION })
          }
        }))
  }))

const ownedWatch = (watches: Watches["Type"], accountId: string, id: string) =>
  Effect.flatMap(watches.find(accountId, id), (found) =>
    Option.isSome(found)
      ? Effect.succeed(found.value)
      : Effect.fail(new WatchNotFound({ message: `No watch ${id} for this account.` })))

// Normalised: one copy of each rule, in the order of the documented metric list, then comparison.
const normalise = (rules: ReadonlyArray<WatchRule>): ReadonlyArray<WatchRule> => {
  const unique = new Map(rules.map((rule) => [`${rule.metric}/${rule.comparison}/${rule.threshold}`, rule]))
  return [...unique.values()].sort((a, b) =>
    WATCH_METRICS.indexOf(a.metric) - WATCH_METRICS.indexOf(b.metric) || a.comparison.localeCompare(b.comparison) ||
    a.threshold - b.threshold)
}

const recordOf = (watch: Watch) => ({
  watch_id: watch.id,
  mint: watch.mint,
  label: watch.label,
  rules: watch.rules,
  poll_seconds: watch.pollSeconds,
  created_at: watch.createdAt,
  expires_at: watch.expiresAt,
  next_check_at: new Date(Date.parse(watch.createdAt) + watch.pollSeconds * 1000).toISOString(),
  stored_only: true as const
})

export const WatchHttp = HttpApiBuilder.group(RiskApi, "watch", (handlers) =>
  Effect.gen(function*() {
    const watches = yield* Watches
    const freeCall = Effect.gen(function*() {
      const caller = yield* CurrentCaller
      // Free calls still count toward the minute limit; with nothing to charge, a quota cannot refuse them.
      const standing = yield* charge(caller, WATCH_READ_COST).pipe(Effect.catchTag("QuotaExceeded", Effect.die))
      const now = yield* Clock.currentTimeMillis
      return { caller, meta: yield* metaOf({ scope: caller.scope, standing, cost: WATCH_READ_COST, now, contractVersion: WATCH_CONTRACT_VERSION }) }
    })
    return handlers
      .handle("setWatch", ({ payload }) =>
        Effect.gen(function*() {
          const caller = yield* CurrentCaller
          const mint = yield* parseAddress(payload.mint)
          if ((yield* watches.activeCount(caller.accountId)) >= MAX_ACTIVE_WATCHES) {
            return yield* new WatchLimitReached({ message: `At most ${MAX_ACTIVE_WATCHES} unexpired watches per account.` })
          }
          const standing = yield* charge(caller, SET_WATCH_COST)
          const watch = yield* watches.create(caller.accountId, {
            mint,
            label: payload.label ?? null,
            rules: normalise(payload.rules),
            pollSeconds: payload.pollSeconds,
            ttlSeconds: payload.ttlSeconds
          })
          const now = yield* Clock.currentTimeMillis
          return { data: recordOf(watch), meta: yield* metaOf({ scope: caller.scope, standing, cost: SET_WATCH_COST, now, contractVersion: WATCH_CONTRACT_VERSION }) }
        }))
      .handle("listWatches", () =>
        Effect.gen(function*() {
          const { caller, meta } = yield* freeCall
          return { data: (yield* watches.list(caller.accountId)).map(recordOf), meta }
        }))
      .handle("getWatch", ({ path }) =>
        Effect.gen(function*() {
          const { caller, meta } = yield* freeCall
          return { data: recordOf(yield* ownedWatch(watches, caller.accountId, path.id)), meta }
        }))
      .handle("deleteWatch", ({ path }) =>
        Effect.gen(function*() {
          const { caller, meta } = yield* freeCall
          if (!(yield* watches.remove(caller.accountId, path.id))) {
            return yield* new WatchNotFound({ message: `No watch ${path.id} for this account.` })
          }
          return { data: { watch_id: path.id, deleted: true as const }, meta }
        }))
  }))
