import { Schema } from "effect"
import { apiError } from "../../domain/Errors.ts"

const fields = { message: Schema.String }

export class WebhookEventNotFound extends Schema.TaggedError<WebhookEventNotFound>()(
  "WebhookEventNotFound",
  fields,
  apiError("webhook_event_not_found", 404, "No event with this id was sent to this endpoint.")
) {}

export class WebhookUrlRefused extends Schema.TaggedError<WebhookUrlRefused>()(
  "WebhookUrlRefused",
  fields,
  apiError(
    "webhook_url_refused",
    400,
    "The URL may not receive webhooks: not https, carries credentials, does not resolve, or resolves to a " +
      "loopback (unless the operator allows it), private, link-local, multicast or reserved address. The message says which."
  )
) {}

export class WebhookLimitReached extends Schema.TaggedError<WebhookLimitReached>()(
  "WebhookLimitReached",
  fields,
  apiError("webhook_limit_reached", 409, "The account has the maximum number of webhook endpoints; delete one first.")
) {}
