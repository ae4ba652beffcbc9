import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  MonitorRequest,
  MonitorResponse,
  PreTradeRequest,
  PreTradeResponse,
  SetWatchRequest,
  WatchDeletedResponse,
  WatchListResponse,
  WatchResponse
} from "./Schemas.ts"
import { TokenRiskAuth, WatchAuth } from "../Accounts/Auth.ts"
import {
  InvalidAddressError,
  jsonBodyErrors,
  meteredErrors,
  NotScannedError,
  RateLimitedError,
  WatchLimitReachedError,
  WatchNotFoundError
} from "../Domain/Errors.ts"

export const PRE_TRADE_COST = 3
export const MONITOR_COST = 2
export const SET_WATCH_COST = 1
export const WATCH_READ_COST = 0
export const MAX_ACTIVE_WATCHES = 100
export const PRE_TRADE_CONTRACT_VERSION = "decision-pre-trade-v0-cache"
export const MONITOR_CONTRACT_VERSION = "decision-monitor-position-v0-cache"
export const WATCH_CONTRACT_VERSION = "decision-watch-v0"

const preTrade = HttpApiEndpoint.post("preTrade", "/api/v1/decision/pre-trade")
  .setPayload(PreTradeRequest)
  .addSuccess(PreTradeResponse)
  .addError(InvalidAddressError)
  .addError(NotScannedError)
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Pre-trade decision")
  .annotate(
    OpenApi.Description,
    `Scope \`token:risk:read\`. Cost ${PRE_TRADE_COST} units. A cache-only decision (proceed, proceed_with_caution, ` +
      "review_required, reject) from the mint's latest cached scan, the trade side and size against pool liquidity, " +
      "the caller's maximum evidence age, and the trader wallet's screening when given. No live scan and no " +
      "execution. A mint never scanned is 404 not_scanned (not charged). Rules: docs/decision-engine.md."
  )

const monitor = HttpApiEndpoint.post("monitorPosition", "/api/v1/decision/monitor-position")
  .setPayload(MonitorRequest)
  .addSuccess(MonitorResponse)
  .addError(InvalidAddressError)
  .addError(NotScannedError)
  .addError(WatchNotFoundError)
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Position monitoring decision")
  .annotate(
    OpenApi.Description,
    `Scope \`token:risk:read\`. Cost ${MONITOR_COST} units. A cache-only decision for an open position (hold, ` +
      "tighten, reduce, exit, review_required) with explicit pressure signals from the scan history since entry " +
      "(liquidity drain, sell pressure, drawdown, holder concentration change, new hard caps, deployer activity), " +
      "the watch's rules when `watchId` is given, and next-check guidance that shortens as pressure rises."
  )

export class DecisionApi extends HttpApiGroup.make("decision")
  .add(preTrade)
  .add(monitor)
  .middleware(TokenRiskAuth)
  .annotate(OpenApi.Title, "Decisions")
  .annotate(OpenApi.Description, "Cache-only trading decisions: they never scan live and never execute a trade.") {}

const WatchId = Schema.Struct({ id: Schema.String.annotations({ description: "The watch_id returned by set-watch." }) })

const setWatch = HttpApiEndpoint.post("setWatch", "/api/v1/decision/set-watch")
  .setPayload(SetWatchRequest)
  .addSuccess(WatchResponse, { status: 201 })
  .addError(InvalidAddressError)
  .addError(WatchLimitReachedError)
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Store a watch contract")
  .annotate(
    OpenApi.Description,
    `Scope \`watch:write\`. Cost ${SET_WATCH_COST} unit. Stores invalidation rules (metric, comparison, threshold) ` +
      "for a mint with a time to live and poll guidance. It only stores the contract: no scan is triggered and no " +
      `dashboard watchlist is created. At most ${MAX_ACTIVE_WATCHES} unexpired watches per account.`
  )

const listWatches = HttpApiEndpoint.get("listWatches", "/api/v1/decision/watches")
  .addSuccess(WatchListResponse)
  .addError(RateLimitedError)
  .annotate(OpenApi.Summary, "List the account's watches")
  .annotate(OpenApi.Description, "Scope `watch:write`. Free (counts toward the minute limit). Unexpired watches, newest first.")

const getWatch = HttpApiEndpoint.get("getWatch", "/api/v1/decision/watches/:id")
  .setPath(WatchId)
  .addSuccess(WatchResponse)
  .addError(WatchNotFoundError)
  .addError(RateLimitedError)
  .annotate(OpenApi.Summary, "Read a watch")
  .annotate(OpenApi.Description, "Scope `watch:write`. Free. Another account's watch is 404 watch_not_found.")

const deleteWatch = HttpApiEndpoint.del("deleteWatch", "/api/v1/decision/watches/:id")
  .setPath(WatchId)
  .addSuccess(WatchDeletedResponse)
  .addError(WatchNotFoundError)
  .addError(RateLimitedError)
  .annotate(OpenApi.Summary, "Delete a watch")
  .annotate(OpenApi.Description, "Scope `watch:write`. Free. Another account's watch is 404 watch_not_found.")

export class WatchApi extends HttpApiGroup.make("watch")
  .add(setWatch)
  .add(listWatches)
  .add(getWatch)
  .add(deleteWatch)
  .middleware(WatchAuth)
  .annotate(OpenApi.Title, "Watches")
  .annotate(OpenApi.Description, "Stored watch contracts whose rules monitor-position evaluates.") {}
