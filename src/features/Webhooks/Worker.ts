import { Duration, Effect, Option } from "effect"
import { retryDelayMs, type WebhookConfig } from "./Config.ts"
import { deliver, USER_AGENT } from "./Delivery.ts"
import { WebhookOutbox } from "./OutboxRepo.ts"
import { openSecret, signatureHeader } from "./Secret.ts"

// The delivery worker: `workers` lanes per process, each claiming one event at a time. Any number of
// processes may run it on one database (claims skip each other's rows; a crashed worker's event returns
// when its lease ends, so delivery is at least once and receivers dedupe on webhook-id).

export const makeDeliveryWorker = (
  config: WebhookConfig,
  worker = `${process.pid}-${crypto.randomUUID().slice(0, 8)}`
) =>
  Effect.gen(function* () {
    const outbox = yield* WebhookOutbox
    const leaseMs = config.timeoutMs + 10_000

    /** Claims and delivers one event; false when there was none to claim. */
    const deliverOne = Effect.gen(function* () {
      const claimed = yield* outbox.claim(worker, leaseMs)
      if (Option.isNone(claimed)) return false
      const event = claimed.value
      const timestamp = Math.floor(Date.now() / 1000)
      const secrets = event.secrets.map((sealed) => openSecret(config.secretKey, sealed))
      const outcome = yield* deliver({
        url: event.url,
        body: event.body,
        timeoutMs: config.timeoutMs,
        allowLoopback: config.allowLoopback,
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "webhook-id": event.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(secrets, event.id, timestamp, event.body)
        }
      })
      if (outcome.error === null) {
        yield* outbox.delivered(event, outcome)
        yield* Effect.logDebug("webhook delivered").pipe(
          Effect.annotateLogs({ eventId: event.id, latencyMs: Math.round(outcome.latencyMs) })
        )
        return true
      }
      const retryInMs = retryDelayMs(config, event.attempt)
      const disabled = yield* outbox.failed(event, worker, outcome, retryInMs, config.maxAttempts)
      yield* Effect.logInfo(disabled ? "webhook endpoint disabled" : "webhook attempt failed").pipe(
        Effect.annotateLogs({
          eventId: event.id,
          endpointId: event.endpointId,
          attempt: event.attempt,
          error: outcome.error,
          retryInMs
        })
      )
      return true
    })

    // Idle lanes look every pollMs × workers, staggered, so a process polls once per pollMs in all (on the
    // embedded database every query shares its one connection with the API).
    const lane = (index: number) =>
      Effect.gen(function* () {
        yield* Effect.sleep(Duration.millis(config.pollMs * index))
        while (true) {
          const worked = yield* deliverOne.pipe(
            Effect.catchAllCause((cause) =>
              Effect.as(Effect.logWarning("webhook delivery step failed; retrying", cause), false)
            )
          )
          if (!worked) yield* Effect.sleep(Duration.millis(config.pollMs * config.workers))
        }
      })

    return {
      deliverOne,
      /** Every lane until interrupted. */
      run: Effect.forEach(
        Array.from({ length: config.workers }, (_, i) => i),
        lane,
        { concurrency: "unbounded", discard: true }
      )
    }
  })
