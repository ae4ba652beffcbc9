import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors } from "../Accounts/Errors.ts"
import { envelope, InvalidAddress, jsonBodyErrors } from "../../domain/Errors.ts"
import { NotScanned } from "../Scans/Errors.ts"
import { WatchNotFound } from "../Watches/Errors.ts"
import { MonitorRequest, MonitorResponse, PreTradeRequest, PreTradeResponse } from "./Schemas.ts"

export const PRE_TRADE_COST = 3
export const MONITOR_COST = 2
export const PRE_TRADE_CONTRACT_VERSION = "decision-pre-trade-v0-cache"
export const MONITOR_CONTRACT_VERSION = "decision-monitor-position-v0-cache"

const preTrade = HttpApiEndpoint.post("preTrade", "/api/v1/decision/pre-trade")
  .setPayload(PreTradeRequest)
  .addSuccess(PreTradeResponse)
  .addError(envelope(InvalidAddress))
  .addError(envelope(NotScanned))
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
  .addError(envelope(InvalidAddress))
  .addError(envelope(NotScanned))
  .addError(envelope(WatchNotFound))
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
  .middleware(keyedAuth("token:risk:read"))
  .annotate(OpenApi.Title, "Decisions")
  .annotate(OpenApi.Description, "Cache-only trading decisions: they never scan live and never execute a trade.") {}
