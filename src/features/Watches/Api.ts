import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { keyedAuth } from "../Accounts/Auth.ts"
import { meteredErrors, RateLimited } from "../Accounts/Errors.ts"
import { envelope, InvalidAddress, InvalidRequest, jsonBodyErrors, WebhookNotFound } from "../../domain/Errors.ts"
import { WatchLimitReached, WatchNotFound } from "./Errors.ts"
import { SetWatchRequest, WatchDeletedResponse, WatchIdInput, WatchListResponse, WatchResponse } from "./Schemas.ts"

export const SET_WATCH_COST = 1
export const WATCH_READ_COST = 0
export const MAX_ACTIVE_WATCHES = 100
export const WATCH_CONTRACT_VERSION = "decision-watch-v0"

const WatchId = Schema.Struct({
  id: WatchIdInput("id").annotations({
    description: "The watch_id returned by set-watch; not a uuid: 400 invalid_request."
  })
})

const setWatch = HttpApiEndpoint.post("setWatch", "/api/v1/decision/set-watch")
  .setPayload(SetWatchRequest)
  .addSuccess(WatchResponse, { status: 201 })
  .addError(envelope(InvalidAddress))
  .addError(envelope(WatchLimitReached))
  .addError(envelope(WebhookNotFound))
  .pipe(jsonBodyErrors)
  .pipe(meteredErrors)
  .annotate(OpenApi.Summary, "Store a watch contract")
  .annotate(
    OpenApi.Description,
    `Scope \`watch:write\`. Cost ${SET_WATCH_COST} unit. Stores invalidation rules (metric, comparison, threshold) ` +
      "for a mint with a time to live and poll guidance. It only stores the contract: no scan is triggered and no " +
      `dashboard watchlist is created. At most ${MAX_ACTIVE_WATCHES} unexpired watches per account. With \`notify\` ` +
      "(true, or a webhook endpoint id of the account: else 404 webhook_not_found), each new scan of the mint is " +
      "evaluated against the rules and every rule that starts or stops holding is sent as a signed webhook event."
  )

const listWatches = HttpApiEndpoint.get("listWatches", "/api/v1/decision/watches")
  .addSuccess(WatchListResponse)
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "List the account's watches")
  .annotate(
    OpenApi.Description,
    "Scope `watch:write`. Free (counts toward the minute limit). Unexpired watches, newest first."
  )

const getWatch = HttpApiEndpoint.get("getWatch", "/api/v1/decision/watches/:id")
  .setPath(WatchId)
  .addSuccess(WatchResponse)
  .addError(envelope(InvalidRequest)) // an id that is not a uuid, a path that is not valid percent-encoding
  .addError(envelope(WatchNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Read a watch")
  .annotate(OpenApi.Description, "Scope `watch:write`. Free. Another account's watch is 404 watch_not_found.")

const deleteWatch = HttpApiEndpoint.del("deleteWatch", "/api/v1/decision/watches/:id")
  .setPath(WatchId)
  .addSuccess(WatchDeletedResponse)
  .addError(envelope(InvalidRequest)) // an id that is not a uuid, a path that is not valid percent-encoding
  .addError(envelope(WatchNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Delete a watch")
  .annotate(OpenApi.Description, "Scope `watch:write`. Free. Another account's watch is 404 watch_not_found.")

export class WatchApi extends HttpApiGroup.make("watch")
  .add(setWatch)
  .add(listWatches)
  .add(getWatch)
  .add(deleteWatch)
  .middleware(keyedAuth("watch:write"))
  .annotate(OpenApi.Title, "Watches")
  .annotate(OpenApi.Description, "Stored watch contracts whose rules monitor-position evaluates.") {}
