import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { keyedAuth } from "../Accounts/Auth.ts"
import { RateLimited } from "../Accounts/Errors.ts"
import { envelope, InvalidRequest, jsonBodyErrors, WebhookNotFound } from "../../domain/Errors.ts"
import { WebhookEventNotFound, WebhookLimitReached, WebhookUrlRefused } from "./Errors.ts"
import {
  CreateWebhookRequest,
  DeliveriesQuery,
  UUID_JSON_SCHEMA,
  WebhookCreatedResponse,
  WebhookDeletedResponse,
  WebhookDeliveriesResponse,
  WebhookListResponse,
  WebhookRedeliveryResponse,
  WebhookResponse
} from "./Schemas.ts"

export const WEBHOOK_CONTRACT_VERSION = "webhooks-v1"
export const WEBHOOK_COST = 0

const EndpointId = Schema.Struct({
  id: Schema.String.annotations({ description: "The endpoint id returned at creation.", jsonSchema: UUID_JSON_SCHEMA })
})

const EventPath = Schema.Struct({
  id: Schema.String.annotations({ description: "The endpoint id.", jsonSchema: UUID_JSON_SCHEMA }),
  eventId: Schema.String.annotations({ description: "The event id (webhook-id).", jsonSchema: UUID_JSON_SCHEMA })
})

const FREE = "Scope `webhook:write`. Free (counts toward the minute limit)."

const create = HttpApiEndpoint.post("createWebhook", "/api/v1/webhooks")
  .setPayload(CreateWebhookRequest)
  .addSuccess(WebhookCreatedResponse, { status: 201 })
  .addError(envelope(WebhookUrlRefused))
  .addError(envelope(WebhookLimitReached))
  .pipe(jsonBodyErrors)
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Register a webhook endpoint")
  .annotate(
    OpenApi.Description,
    `${FREE} Registers a URL that receives signed watch alerts (watch.triggered, watch.cleared) of the ` +
      "account's watches that opt in with `notify`. The answer carries the signing secret, shown once. The URL must " +
      "be https and must not resolve to a loopback (unless the operator allows it), private, link-local, multicast " +
      "or reserved address (400 webhook_url_refused says why). The number of endpoints per account is capped " +
      "(WEBHOOK_ENDPOINTS_PER_ACCOUNT, default 10; 409 webhook_limit_reached)."
  )

const list = HttpApiEndpoint.get("listWebhooks", "/api/v1/webhooks")
  .addSuccess(WebhookListResponse)
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "List the account's webhook endpoints")
  .annotate(OpenApi.Description, `${FREE} Newest first; a disabled endpoint says why. Secrets are never listed.`)

const read = HttpApiEndpoint.get("getWebhook", "/api/v1/webhooks/:id")
  .setPath(EndpointId)
  .addSuccess(WebhookResponse)
  .addError(envelope(InvalidRequest))
  .addError(envelope(WebhookNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Read a webhook endpoint")
  .annotate(OpenApi.Description, `${FREE} Another account's endpoint is 404 webhook_not_found.`)

const remove = HttpApiEndpoint.del("deleteWebhook", "/api/v1/webhooks/:id")
  .setPath(EndpointId)
  .addSuccess(WebhookDeletedResponse)
  .addError(envelope(InvalidRequest))
  .addError(envelope(WebhookNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Delete a webhook endpoint")
  .annotate(OpenApi.Description, `${FREE} Its undelivered events are dropped with it.`)

const rotate = HttpApiEndpoint.post("rotateWebhookSecret", "/api/v1/webhooks/:id/rotate-secret")
  .setPath(EndpointId)
  .addSuccess(WebhookCreatedResponse)
  .addError(envelope(InvalidRequest))
  .addError(envelope(WebhookNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Rotate a webhook endpoint's signing secret")
  .annotate(
    OpenApi.Description,
    `${FREE} A new secret, shown once in this answer. For 24 hours deliveries carry two signatures (new and old secret) ` +
      "so a receiver can switch over without missing one. No body."
  )

const deliveries = HttpApiEndpoint.get("listWebhookDeliveries", "/api/v1/webhooks/:id/deliveries")
  .setPath(EndpointId)
  .setUrlParams(DeliveriesQuery)
  .addSuccess(WebhookDeliveriesResponse)
  .addError(envelope(InvalidRequest))
  .addError(envelope(WebhookNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Recent deliveries of a webhook endpoint")
  .annotate(
    OpenApi.Description,
    `${FREE} The endpoint's events, newest first, each with its status, its next attempt and its last attempts ` +
      "(status code, latency, error)."
  )

const redeliver = HttpApiEndpoint.post("redeliverWebhookEvent", "/api/v1/webhooks/:id/deliveries/:eventId/redeliver")
  .setPath(EventPath)
  .addSuccess(WebhookRedeliveryResponse, { status: 202 })
  .addError(envelope(InvalidRequest))
  .addError(envelope(WebhookNotFound))
  .addError(envelope(WebhookEventNotFound))
  .addError(envelope(RateLimited))
  .annotate(OpenApi.Summary, "Send an event again")
  .annotate(
    OpenApi.Description,
    `${FREE} Queues the event again from its first attempt (same event id and body, a new timestamp and signature) ` +
      "and enables the endpoint if it was disabled. It keeps its place in the endpoint's order. No body."
  )

export class WebhookApi extends HttpApiGroup.make("webhook")
  .add(create)
  .add(list)
  .add(read)
  .add(remove)
  .add(rotate)
  .add(deliveries)
  .add(redeliver)
  .middleware(keyedAuth("webhook:write"))
  .annotate(OpenApi.Title, "Webhooks")
  .annotate(
    OpenApi.Description,
    "Endpoints that receive signed watch alerts (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) " +
      "when a new scan makes a watch's rule hold or stop holding."
  ) {}
