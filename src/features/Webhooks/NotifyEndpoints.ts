import { Effect, Layer, Option } from "effect"
import { NotifyEndpoints } from "../Watches/NotifyEndpoints.ts"
import { WebhookEndpointsRepo } from "./EndpointsRepo.ts"

/** The account's webhook endpoints, as a watch's `notify` checks them (Watches/NotifyEndpoints.ts). */
export const WebhookNotifyEndpoints = Layer.effect(
  NotifyEndpoints,
  Effect.map(WebhookEndpointsRepo, (endpoints) => ({
    exists: (accountId: string, endpointId: string) => Effect.map(endpoints.find(accountId, endpointId), Option.isSome)
  }))
)
