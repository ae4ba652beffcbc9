import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { type Charge, meteredFree, meteredFreeWrite, metaOfCharge, type ReadCharge } from "../Accounts/Metered.ts"
import { RiskApi } from "../../Api.ts"
import { WEBHOOK_CONTRACT_VERSION, WEBHOOK_COST } from "./Api.ts"
import { WebhookSettings } from "./Config.ts"
import { type Endpoint, type SentEvent, WebhookEndpointsRepo } from "./EndpointsRepo.ts"
import { WebhookNotFound } from "../../domain/Errors.ts"
import { WebhookEventNotFound, WebhookLimitReached, WebhookUrlRefused } from "./Errors.ts"
import { newSecret, sealSecret } from "./Secret.ts"
import { resolveTarget, targetOf } from "./UrlGuard.ts"

const recordOf = (endpoint: Endpoint) => ({
  id: endpoint.id,
  url: endpoint.url,
  description: endpoint.description,
  status: endpoint.status,
  disabled_reason: endpoint.disabledReason,
  disabled_at: endpoint.disabledAt,
  created_at: endpoint.createdAt
})

const deliveryOf = (event: SentEvent) => ({
  event_id: event.id,
  type: event.type as "watch.triggered" | "watch.cleared",
  watch_id: event.watchId,
  scan_id: event.scanId,
  status: event.status,
  attempts: event.attempts,
  next_attempt_at: event.nextAttemptAt,
  created_at: event.createdAt,
  delivered_at: event.deliveredAt,
  last_error: event.lastError,
  recent_attempts: event.recentAttempts.map((attempt) => ({
    attempt: attempt.attempt,
    attempted_at: attempt.attemptedAt,
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error
  }))
})

const notFound = (id: string) => new WebhookNotFound({ message: `No webhook endpoint ${id} for this account.` })

export const WebhookHttp = HttpApiBuilder.group(RiskApi, "webhook", (handlers) =>
  Effect.gen(function* () {
    const endpoints = yield* WebhookEndpointsRepo
    const config = yield* WebhookSettings
    const meta = (charge: Charge | ReadCharge) => metaOfCharge(charge, WEBHOOK_CONTRACT_VERSION)
    const free = meteredFree(WEBHOOK_COST)
    // A write commits with its minute count, or not at all (a rotated secret is never lost with its answer).
    const freeWrite = meteredFreeWrite(WEBHOOK_COST)
    const owned = (accountId: string, id: string) =>
      Effect.flatMap(
        endpoints.find(accountId, id),
        Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed })
      )

    return handlers
      .handle("createWebhook", ({ payload }) =>
        Effect.gen(function* () {
          const checked = targetOf(payload.url, config.allowLoopback)
          if ("refused" in checked) return yield* new WebhookUrlRefused({ message: `url: ${checked.refused}.` })
          const resolved = yield* resolveTarget(checked.target, config.allowLoopback)
          if ("refused" in resolved) return yield* new WebhookUrlRefused({ message: `url: ${resolved.refused}.` })
          const secret = newSecret()
          // The cap, the insert and the minute count commit together.
          return yield* freeWrite((charge) =>
            Effect.gen(function* () {
              const created = yield* endpoints.create(
                charge.caller.accountId,
                {
                  url: checked.target.url.toString(),
                  description: payload.description ?? null,
                  sealedSecret: sealSecret(config.secretKey, secret)
                },
                config.endpointsPerAccount
              )
              if (Option.isNone(created)) {
                return yield* new WebhookLimitReached({
                  message: `At most ${config.endpointsPerAccount} webhook endpoints per account.`
                })
              }
              return { data: { ...recordOf(created.value), secret }, meta: yield* meta(charge) }
            })
          )
        })
      )
      .handle("listWebhooks", () =>
        free((charge) =>
          Effect.gen(function* () {
            return { data: (yield* endpoints.list(charge.caller.accountId)).map(recordOf), meta: yield* meta(charge) }
          })
        )
      )
      .handle("getWebhook", ({ path }) =>
        free((charge) =>
          Effect.gen(function* () {
            return { data: recordOf(yield* owned(charge.caller.accountId, path.id)), meta: yield* meta(charge) }
          })
        )
      )
      .handle("deleteWebhook", ({ path }) =>
        free((charge) =>
          Effect.gen(function* () {
            if (!(yield* endpoints.remove(charge.caller.accountId, path.id))) return yield* notFound(path.id)
            return { data: { id: path.id, deleted: true as const }, meta: yield* meta(charge) }
          })
        )
      )
      .handle("rotateWebhookSecret", ({ path }) =>
        freeWrite((charge) =>
          Effect.gen(function* () {
            const secret = newSecret()
            const rotated = yield* endpoints.rotate(
              charge.caller.accountId,
              path.id,
              sealSecret(config.secretKey, secret)
            )
            if (Option.isNone(rotated)) return yield* notFound(path.id)
            return { data: { ...recordOf(rotated.value), secret }, meta: yield* meta(charge) }
          })
        )
      )
      .handle("listWebhookDeliveries", ({ path, urlParams }) =>
        free((charge) =>
          Effect.gen(function* () {
            const endpoint = yield* owned(charge.caller.accountId, path.id)
            const events = yield* endpoints.events(endpoint.id, urlParams.limit)
            return { data: events.map(deliveryOf), meta: yield* meta(charge) }
          })
        )
      )
      .handle("redeliverWebhookEvent", ({ path }) =>
        freeWrite((charge) =>
          Effect.gen(function* () {
            const endpoint = yield* owned(charge.caller.accountId, path.id)
            const event = yield* endpoints.redeliver(endpoint.id, path.eventId)
            if (Option.isNone(event)) {
              return yield* new WebhookEventNotFound({
                message: `No event ${path.eventId} for webhook endpoint ${endpoint.id}.`
              })
            }
            return { data: deliveryOf(event.value), meta: yield* meta(charge) }
          })
        )
      )
  })
)
