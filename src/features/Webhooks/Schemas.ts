import { Schema } from "effect"
import { Meta } from "../Accounts/Meta.ts"
import { WatchRuleSchema } from "../../engines/DecisionRules/index.ts"

/** The longest webhook URL accepted (UrlGuard.ts checks it again before every delivery). */
export const MAX_URL_LENGTH = 2048

const Int = Schema.Number.pipe(Schema.int())
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
const strict = { parseOptions: { onExcessProperty: "error" } } as const

// Text PostgreSQL can store: no NUL character, no unpaired UTF-16 surrogate.
const storable = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern finds NUL precisely to refuse it
  !/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text) ||
  "must not contain a NUL character or an unpaired surrogate"

export const UUID_JSON_SCHEMA = {
  type: "string",
  format: "uuid",
  pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
  maxLength: 36
} as const

export const CreateWebhookRequest = Schema.Struct({
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(MAX_URL_LENGTH), Schema.filter(storable)).annotations({
    description:
      "Where events are POSTed: https (http only to loopback when the operator enables it). " +
      "Private, link-local, multicast and reserved addresses are refused.",
    jsonSchema: { format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$" }
  }),
  description: Schema.optional(
    Schema.String.pipe(Schema.maxLength(200), Schema.filter(storable)).annotations({
      jsonSchema: { pattern: "^[^\\u0000]*$" }
    })
  ).annotations({ description: "Your note about the endpoint, up to 200 characters." })
}).annotations({ identifier: "CreateWebhookRequest", ...strict })

const endpointFields = {
  id: Schema.String.annotations({ jsonSchema: UUID_JSON_SCHEMA }),
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  status: Schema.Literal("enabled", "disabled").annotations({
    description:
      "disabled: an event failed every attempt (about 24 hours); see disabled_reason. Redelivering an event enables it again."
  }),
  disabled_reason: Schema.NullOr(Schema.String),
  disabled_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
}

const WebhookEndpoint = Schema.Struct(endpointFields).annotations({ identifier: "WebhookEndpoint" })

const WebhookEndpointWithSecret = Schema.Struct({
  ...endpointFields,
  secret: Schema.String.annotations({
    description:
      "The signing secret (`whsec_` + base64), shown only in this answer: store it now. It signs " +
      "`webhook-signature` (Standard Webhooks). After a rotation the old secret signs too, for 24 hours.",
    jsonSchema: { pattern: "^whsec_[A-Za-z0-9+/=]{32}$", maxLength: 38 }
  })
}).annotations({ identifier: "WebhookEndpointWithSecret" })

const WebhookAttempt = Schema.Struct({
  attempt: Count,
  attempted_at: Schema.String,
  status_code: Schema.NullOr(
    Int.annotations({ jsonSchema: { type: "integer", minimum: 100, maximum: 599 } })
  ).annotations({ description: "The receiver's HTTP status; null when it did not answer." }),
  latency_ms: Count,
  error: Schema.NullOr(Schema.String)
}).annotations({ identifier: "WebhookAttempt" })

const WebhookDelivery = Schema.Struct({
  event_id: Schema.String.annotations({
    description: "The event id, sent as webhook-id: dedupe on it.",
    jsonSchema: UUID_JSON_SCHEMA
  }),
  type: Schema.Literal("watch.triggered", "watch.cleared"),
  watch_id: Schema.String,
  scan_id: Schema.String,
  status: Schema.Literal("pending", "delivered", "failed"),
  attempts: Count,
  next_attempt_at: Schema.NullOr(Schema.String).annotations({ description: "When a pending event is tried next." }),
  created_at: Schema.String,
  delivered_at: Schema.NullOr(Schema.String),
  last_error: Schema.NullOr(Schema.String),
  recent_attempts: Schema.Array(WebhookAttempt).annotations({ description: "The last 10 attempts, newest first." })
}).annotations({ identifier: "WebhookDelivery" })

export const DeliveriesQuery = Schema.Struct({
  limit: Schema.optionalWith(
    Schema.String.pipe(
      Schema.pattern(/^[0-9]{1,3}$/),
      Schema.compose(Schema.NumberFromString),
      Schema.int(),
      Schema.between(1, 100)
    ).annotations({ jsonSchema: { type: "integer", format: "int32", minimum: 1, maximum: 100, default: 20 } }),
    { default: () => 20 }
  ).annotations({ description: "Events, newest first, 1 to 100 (default 20)." })
}).annotations({ parseOptions: { onExcessProperty: "error" } })

export const WebhookResponse = Schema.Struct({ data: WebhookEndpoint, meta: Meta }).annotations({
  identifier: "WebhookResponse"
})
export const WebhookCreatedResponse = Schema.Struct({ data: WebhookEndpointWithSecret, meta: Meta }).annotations({
  identifier: "WebhookCreatedResponse"
})
export const WebhookListResponse = Schema.Struct({ data: Schema.Array(WebhookEndpoint), meta: Meta }).annotations({
  identifier: "WebhookListResponse"
})
export const WebhookDeletedResponse = Schema.Struct({
  data: Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }),
  meta: Meta
}).annotations({ identifier: "WebhookDeletedResponse" })
export const WebhookDeliveriesResponse = Schema.Struct({ data: Schema.Array(WebhookDelivery), meta: Meta }).annotations(
  {
    identifier: "WebhookDeliveriesResponse"
  }
)
export const WebhookRedeliveryResponse = Schema.Struct({ data: WebhookDelivery, meta: Meta }).annotations({
  identifier: "WebhookRedeliveryResponse"
})

/** The body of every event, for receivers (README, "Watch alerts"). */
export const WatchAlertEvent = Schema.Struct({
  type: Schema.Literal("watch.triggered", "watch.cleared"),
  timestamp: Schema.String,
  data: Schema.Struct({
    event_id: Schema.String,
    watch_id: Schema.String,
    watch_label: Schema.NullOr(Schema.String),
    mint: Schema.String,
    rule: WatchRuleSchema,
    observed_value: Schema.NullOr(Schema.Number),
    detail: Schema.String,
    scan: Schema.Struct({ id: Schema.String, scanned_at: Schema.String }),
    previous_scan: Schema.NullOr(Schema.Struct({ id: Schema.String, scanned_at: Schema.String })),
    verdict: Schema.Struct({ before: Schema.String, after: Schema.String }),
    safety_score: Schema.Struct({ before: Schema.NullOr(Schema.Number), after: Schema.NullOr(Schema.Number) })
  })
}).annotations({ identifier: "WatchAlertEvent" })
