import { Schema } from "effect"
import { ScanDepth, Outcome } from "../../domain/ScanEvidence.ts"
import { Freshness, Verdict } from "../../domain/Verdict.ts"

const Int = Schema.Number.pipe(Schema.int())

export const RiskCheckResult = Schema.Struct({
  address: Schema.String.annotations({ description: "The mint, as asked." }),
  symbol: Schema.NullOr(Schema.String).annotations({
    description: "Token symbol; null when never scanned or not observed."
  }),
  verdict: Verdict,
  score: Schema.NullOr(Int.pipe(Schema.between(0, 100))).annotations({
    description: "Safety score 0 to 100, higher is safer; null when never scanned."
  }),
  confidence: Int.pipe(Schema.between(0, 100)).annotations({
    description:
      "Confidence in the score, 0 to 100, from evidence completeness, scan depth and age; 0 when never scanned."
  }),
  flags: Schema.Array(Schema.String).annotations({
    description: "Buy-relevant risk flags (see docs/scoring-model.md); empty when none."
  }),
  freshness: Freshness,
  scan_depth: Schema.Union(ScanDepth, Schema.Literal("none")).annotations({
    description: "Depth of the latest scan; `none` when never scanned."
  }),
  scanned_at: Schema.NullOr(Schema.String).annotations({
    description: "ISO 8601 UTC time of the latest scan; null when never scanned."
  }),
  age_seconds: Schema.NullOr(Int.pipe(Schema.nonNegative())).annotations({
    description: "Age of the latest scan at request time; null when never scanned."
  }),
  outcome: Schema.NullOr(Outcome).annotations({
    description: "Observed fate of the token when the evidence records one (active, rugged, abandoned); otherwise null."
  }),
  latency_ms: Int.pipe(Schema.nonNegative()).annotations({ description: "Server-side time spent on the request." }),
  rescan_url: Schema.String.annotations({ description: "Relative path: POST it to queue a scan of this mint." }),
  details_url: Schema.String.annotations({
    description: 'Relative path of the full evidence packet (POST /api/v1/token/risk with {"address"} and an API key).'
  })
}).annotations({
  identifier: "RiskCheckResult",
  description: "Compact verdict for a mint, from the latest cached scan."
})
export type RiskCheckResult = typeof RiskCheckResult.Type

const BatchItemError = Schema.Struct({
  address: Schema.String,
  error: Schema.Struct({
    code: Schema.Literal("invalid_address"),
    message: Schema.String
  })
}).annotations({ identifier: "BatchItemError", description: "An address of the batch that could not be checked." })

export const BatchRequest = Schema.Struct({
  addresses: Schema.Array(
    Schema.String.pipe(Schema.maxLength(128, { message: () => "an address is at most 128 characters" })).annotations({
      description:
        "A mint address, at most 128 characters (longer: 400 invalid_request for the whole batch). Any " +
        "string that is not base58 of 32 bytes gets its own invalid_address entry while the others answer.",
      // Any string: the pattern only says so, for the linters that want every request string restricted.
      jsonSchema: { maxLength: 128, pattern: "^[\\s\\S]*$" }
    })
  )
    .pipe(Schema.minItems(1, { message: () => "at least one address is required" }))
    .annotations({
      description: "1 to 50 mint addresses. Duplicates are answered once.",
      jsonSchema: { minItems: 1, maxItems: 50 }
    })
}).annotations({ identifier: "RiskCheckBatchRequest", parseOptions: { onExcessProperty: "error" } })

export const BatchResponse = Schema.Struct({
  results: Schema.Record({ key: Schema.String, value: Schema.Union(RiskCheckResult, BatchItemError) }).annotations({
    description: "One entry per distinct address asked, keyed by the address as sent."
  }),
  count: Int.annotations({
    description: "Number of distinct addresses answered.",
    jsonSchema: { type: "integer", minimum: 1, maximum: 50 }
  }),
  latency_ms: Int.pipe(Schema.nonNegative())
}).annotations({ identifier: "RiskCheckBatchResponse" })
export type BatchResponse = typeof BatchResponse.Type

export const ScanRequest = Schema.Struct({
  id: Schema.String.annotations({ description: "Identifier of the pending scan request." }),
  address: Schema.String,
  status: Schema.Literal("pending").annotations({
    description: "A request stays pending until a newer scan is imported."
  }),
  requested_at: Schema.String.annotations({ description: "When the request was first made (ISO 8601 UTC)." }),
  last_requested_at: Schema.String,
  request_count: Int.annotations({ jsonSchema: { type: "integer", minimum: 1 } }).annotations({
    description: "How many times the scan was asked for while pending."
  }),
  check_url: Schema.String.annotations({ description: "Relative path to poll for the verdict." })
}).annotations({ identifier: "ScanRequest", description: "A queued request for a scanner; nothing is scanned inline." })
export type ScanRequest = typeof ScanRequest.Type
