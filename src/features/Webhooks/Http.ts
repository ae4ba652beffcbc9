import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { meteredAnswer } from "../Accounts/Metered.ts"
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
    const free = meteredAnswer({ cost: WEBHOOK_COST, contractVersion: WEBHOOK_CONTRACT_VERSION })
    // A write runs in one transaction, answered by its own outcome once it commits (a rotated secret is never
    // lost with its answer); its minute count is taken before it, as a read's (Accounts/Metered.ts).
    const freeWrite = meteredAnswer({ cost: WEBHOOK_COST, contractVersion: WEBHOOK_CONTRACT_VERSION, write: true })
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
          // The cap and the insert commit together.
          return yield* freeWrite(({ caller }) =>
            Effect.gen(function* () {
              const created = yield* endpoints.create(
                caller.accountId,
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
              return { ...recordOf(created.value), secret }
            })
          )
        })
      )
      .handle("listWebhooks", () =>
        free(({ caller }) =>
          Effect.gen(function* () {
            return (yield* endpoints.list(caller.accountId)).map(recordOf)
          })
        )
      )
      .handle("getWebhook", ({ path }) =>
        free(({ caller }) =>
          Effect.gen(function* () {
            return recordOf(yield* owned(caller.accountId, path.id))
          })
        )
      )
      .handle("deleteWebhook", ({ path }) =>
        free(({ caller }) =>
          Effect.gen(function* () {
            if (!(yield* endpoints.remove(caller.accountId, path.id))) return yield* notFound(path.id)
            return { id: path.id, deleted: true as const }
          })
        )
      )
      .handle("rotateWebhookSecret", ({ path }) =>
        freeWrite(({ caller }) =>
          Effect.gen(function* () {
            const secret = newSecret()
            const rotated = yield* endpoints.rotate(caller.accountId, path.id, sealSecret(config.secretKey, secret))
            if (Option.isNone(rotated)) return yield* notFound(path.id)
            return { ...recordOf(rotated.value), secret }
          })
        )
      )
      .handle("listWebhookDeliveries", ({ path, urlParams }) =>
        free(({ caller }) =>
          Effect.gen(function* () {
            const endpoint = yield* owned(caller.accountId, path.id)
            const events = yield* endpoints.events(endpoint.id, urlParams.limit)
            return events.map(deliveryOf)
          })
        )
      )
      .handle("redeliverWebhookEvent", ({ path }) =>
        freeWrite(({ caller }) =>
          Effect.gen(function* () {
            const endpoint = yield* owned(caller.accountId, path.id)
            const event = yield* endpoints.redeliver(endpoint.id, path.eventId)
            if (Option.isNone(event)) {
              return yield* new WebhookEventNotFound({
                message: `No event ${path.eventId} for webhook endpoint ${endpoint.id}.`
              })
            }
            return deliveryOf(event.value)
          })
        )
      )
  })
)
