import { HttpApiBuilder } from "@effect/platform"
import { Array as Arr, Clock, Effect, Option } from "effect"
import { CurrentCaller } from "../Accounts/Auth.ts"
import type { Meta } from "../Accounts/Meta.ts"
import { meteredAnswer } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { DECISION_MODEL_VERSION, monitorDecision, preTradeDecision } from "../../engines/DecisionRules/index.ts"
import { parseAddress } from "../../domain/Address.ts"
import { InvalidRequest } from "../../domain/Errors.ts"
import { epochMillisOf, type ScanEvidence } from "../../domain/ScanEvidence.ts"
import { notScanned } from "../Scans/Errors.ts"
import { LatestScanCache } from "../Scans/LatestScanCache.ts"
import { ScansRepo } from "../Scans/ScansRepo.ts"
import { assessToken, assessTokenOnce } from "../../engines/TokenScoring/index.ts"
import { TOKEN_RISK_SOURCES } from "../TokenRisk/Packet.ts"
import { WalletRisk } from "../WalletRisk/WalletRisk.ts"
import { ownedWatch, WatchesRepo } from "../Watches/WatchesRepo.ts"
import { MONITOR_CONTRACT_VERSION, MONITOR_COST, PRE_TRADE_CONTRACT_VERSION, PRE_TRADE_COST } from "./Api.ts"

const HISTORY_LIMIT = 200

// A decision's meta also names the agent request and the decision model.
const withDecisionMeta = <A>({ data, meta }: { readonly data: A; readonly meta: Meta }) => ({
  data,
  meta: { ...meta, agentRequestId: `agent_${crypto.randomUUID()}`, modelVersion: DECISION_MODEL_VERSION }
})

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

const ageOf = (evidence: ScanEvidence, now: number) =>
  Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))

const parseEntryTime = (entryTime: string | undefined, now: number) => {
  if (entryTime === undefined) return Effect.succeed(null)
  const millis = Date.parse(entryTime)
  // RFC 3339 (the document's format: date-time): a zone is required, so the instant is never ambiguous.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(entryTime) || Number.isNaN(millis)) {
    return Effect.fail(
      new InvalidRequest({
        message: `entryTime: not an RFC 3339 date-time with a zone (e.g. 2026-11-23T12:00:00Z): ${JSON.stringify(entryTime)}`
      })
    )
  }
  if (millis > now + 60_000) return Effect.fail(new InvalidRequest({ message: "entryTime: is in the future" }))
  return Effect.succeed(new Date(millis).toISOString())
}

export const DecisionHttp = HttpApiBuilder.group(RiskApi, "decision", (handlers) =>
  Effect.gen(function* () {
    const scans = yield* LatestScanCache
    const history = yield* ScansRepo
    const wallets = yield* WalletRisk
    const watches = yield* WatchesRepo
    return handlers
      .handle("preTrade", ({ payload }) =>
        Effect.gen(function* () {
          const mint = yield* parseAddress(payload.mint)
          const trader = payload.wallet === undefined ? undefined : yield* parseAddress(payload.wallet)
          return yield* meteredAnswer({ cost: PRE_TRADE_COST, contractVersion: PRE_TRADE_CONTRACT_VERSION })(
            ({ now }) =>
              Effect.gen(function* () {
                const scan = yield* scans.latest(mint)
                if (Option.isNone(scan)) return yield* notScanned(mint)
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
                  wallet:
                    screening === undefined
                      ? null
                      : { riskLevel: screening.riskLevel, hasEvidence: screening.sources.length > 0 }
                })
                return {
                  ...decision,
                  evidence_age_seconds: ageOf(evidence, now),
                  cache_status: "latest_cached_scan" as const,
                  sources:
                    screening === undefined ? [...TOKEN_RISK_SOURCES] : [...TOKEN_RISK_SOURCES, "svc_wallet_screening"],
                  token: tokenOf(evidence, assessment.safetyScore)
                }
              }),
            withDecisionMeta
          )
        })
      )
      .handle("monitorPosition", ({ payload }) =>
        Effect.gen(function* () {
          const caller = yield* CurrentCaller
          const mint = yield* parseAddress(payload.mint)
          const now = yield* Clock.currentTimeMillis
          const entryTime = yield* parseEntryTime(payload.entryTime, now)
          const watch =
            payload.watchId === undefined ? undefined : yield* ownedWatch(watches, caller.accountId, payload.watchId)
          if (watch !== undefined && watch.mint !== mint) {
            return yield* new InvalidRequest({
              message: `watchId: watch ${watch.id} is for mint ${watch.mint}, not ${mint}`
            })
          }
          return yield* meteredAnswer({ cost: MONITOR_COST, contractVersion: MONITOR_CONTRACT_VERSION })(
            () =>
              Effect.gen(function* () {
                const scans = (yield* history.history(mint, { since: entryTime, limit: HISTORY_LIMIT })).map(
                  (scan) => scan.evidence
                )
                if (!Arr.isNonEmptyReadonlyArray(scans)) return yield* notScanned(mint)
                const latest = Arr.lastNonEmpty(scans)
                const assessment = assessToken(latest)
                const decision = monitorDecision({
                  history: scans,
                  assessment,
                  entryAssessment: entryTime === null ? null : assessToken(Arr.headNonEmpty(scans)),
                  evidenceAgeSeconds: ageOf(latest, now),
                  entryPriceUsd: payload.entryPriceUsd ?? null,
                  entryTime,
                  sizeUsd: payload.sizeUsd ?? null,
                  watchRules: watch === undefined ? null : watch.rules,
                  maxEvidenceAgeSeconds: payload.maxEvidenceAgeSeconds ?? null
                })
                return {
                  ...decision,
                  evidence_age_seconds: ageOf(latest, now),
                  scans_considered: scans.length,
                  cache_status: "latest_cached_scan" as const,
                  sources: [...TOKEN_RISK_SOURCES],
                  token: tokenOf(latest, assessment.safetyScore)
                }
              }),
            withDecisionMeta
          )
        })
      )
  })
)
