import { Schema } from "effect"
import { WatchRuleSchema } from "../../engines/DecisionRules/index.ts"
import { Meta } from "../Accounts/Meta.ts"
import { AddressInput } from "../../domain/Address.ts"

const Int = Schema.Number.pipe(Schema.int())
const Count = Int.annotations({ jsonSchema: { type: "integer", minimum: 0 } })
const strict = { parseOptions: { onExcessProperty: "error" } } as const

// Text PostgreSQL can store: no NUL character, no unpaired UTF-16 surrogate (it would be stored as U+FFFD).
const storable = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern finds NUL precisely to refuse it
  !/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text) ||
  "must not contain a NUL character or an unpaired surrogate"

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/** A watch id as sent: a uuid, else 400 invalid_request (the contract declares the format the server checks). */
export const WatchIdInput = (field: string) =>
  Schema.String.pipe(
    Schema.pattern(UUID, { message: () => `${field}: a watch id is a uuid, as set-watch returned it` })
  ).annotations({
    jsonSchema: { type: "string", format: "uuid", pattern: UUID.source, maxLength: 36 }
  })

/** Alerts of a watch: every endpoint of the account (true), one endpoint (its id) or none (false). */
const Notify = Schema.Union(
  Schema.Boolean,
  Schema.String.pipe(
    Schema.pattern(UUID, { message: () => "notify: true, false or a webhook endpoint id (uuid)" })
  ).annotations({
    jsonSchema: { type: "string", format: "uuid", pattern: UUID.source, maxLength: 36 }
  })
)

export const SetWatchRequest = Schema.Struct({
  mint: AddressInput("Mint address to watch."),
  rules: Schema.Array(WatchRuleSchema).pipe(
    Schema.minItems(1, { message: () => "at least one rule is required" }),
    Schema.maxItems(20, { message: () => "at most 20 rules" })
  ),
  ttlSeconds: Schema.optionalWith(Int.pipe(Schema.between(60, 30 * 86_400)), { default: () => 86_400 }).annotations({
    description: "Lifetime, 60 s to 30 days (default 1 day)."
  }),
  pollSeconds: Schema.optionalWith(Int.pipe(Schema.between(30, 86_400)), { default: () => 300 }).annotations({
    description: "How often the caller intends to call monitor-position (default 300 s)."
  }),
  label: Schema.optional(
    Schema.String.pipe(Schema.maxLength(100), Schema.filter(storable)).annotations({
      jsonSchema: { pattern: "^[^\\u0000]*$" }
    })
  ).annotations({ description: "Your name for the watch, up to 100 characters." }),
  notify: Schema.optional(Notify).annotations({
    description:
      "Webhook alerts when a new scan makes a rule hold (watch.triggered) or stop holding (watch.cleared): " +
      "true for every webhook endpoint of the account, an endpoint id for that one, false (default) for none."
  })
}).annotations({ identifier: "SetWatchRequest", ...strict })

const WatchRecord = Schema.Struct({
  watch_id: Schema.String,
  mint: Schema.String,
  label: Schema.NullOr(Schema.String),
  rules: Schema.Array(WatchRuleSchema).annotations({ description: "Normalised: duplicates removed, in metric order." }),
  poll_seconds: Count,
  created_at: Schema.String,
  expires_at: Schema.String,
  next_check_at: Schema.String.annotations({
    description: "created_at + poll_seconds: when to call monitor-position."
  }),
  notify: Notify.annotations({
    description: "Webhook alerts: true (every endpoint of the account), an endpoint id, or false."
  }),
  stored_only: Schema.Literal(true).annotations({
    description: "A watch is a stored contract: it triggers no scan and creates no dashboard list."
  })
}).annotations({ identifier: "Watch" })

export const WatchResponse = Schema.Struct({ data: WatchRecord, meta: Meta }).annotations({
  identifier: "WatchResponse"
})
export const WatchListResponse = Schema.Struct({ data: Schema.Array(WatchRecord), meta: Meta }).annotations({
  identifier: "WatchListResponse"
})
export const WatchDeletedResponse = Schema.Struct({
  data: Schema.Struct({ watch_id: Schema.String, deleted: Schema.Literal(true) }),
  meta: Meta
}).annotations({ identifier: "WatchDeletedResponse" })
