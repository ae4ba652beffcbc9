import { Context, type Effect } from "effect"
import type { ServiceUnavailable } from "../../domain/Errors.ts"

/**
 * What a watch's `notify` needs of the webhook endpoints: whether the account has the endpoint it names. Watches
 * owns the need, Webhooks the endpoints: Webhooks/NotifyEndpoints.ts provides it, composed in
 * platform/Http/App.ts, so Watches never imports Webhooks (which reads watches through Watches/WatchesRepo.ts).
 */
export class NotifyEndpoints extends Context.Tag("NotifyEndpoints")<
  NotifyEndpoints,
  { readonly exists: (accountId: string, endpointId: string) => Effect.Effect<boolean, ServiceUnavailable> }
>() {}
