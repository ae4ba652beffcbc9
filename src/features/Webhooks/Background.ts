import { Effect, Layer } from "effect"
import type { WebhookConfig } from "./Config.ts"
import { runWatchAlerts, WatchAlerts } from "./Evaluator.ts"
import { WebhookOutbox } from "./OutboxRepo.ts"
import { makeDeliveryWorker } from "./Worker.ts"

/**
 * What every server process runs beside the API: the evaluator of new scans against notifying watches and,
 * unless WEBHOOK_WORKERS=0, the delivery worker. Both stop with the scope.
 */
export const runWebhookBackground = (config: WebhookConfig) =>
  Effect.gen(function* () {
    yield* Effect.forkScoped(runWatchAlerts(config.evaluateMs))
    if (config.workers > 0) yield* Effect.forkScoped(Effect.flatMap(makeDeliveryWorker(config), (worker) => worker.run))
  }).pipe(Effect.provide(Layer.merge(WatchAlerts.Default, WebhookOutbox.Default)))
