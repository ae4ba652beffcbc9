import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { PublicAccess } from "../Accounts/Auth.ts"
import {
  envelope,
  InvalidAddress,
  InvalidRequest,
  MalformedJson,
  PayloadTooLarge,
  UnsupportedMediaType
} from "../../domain/Errors.ts"
import { ADDRESS_JSON_SCHEMA } from "../../domain/Address.ts"
import { BatchTooLarge } from "./Errors.ts"
import { BatchRequest, BatchResponse, RiskCheckResult, ScanRequest } from "./Schemas.ts"

const AddressParam = Schema.Struct({
  address: Schema.String.annotations({
    description: "Mint address (base58, 32 bytes). Anything else is 400 invalid_address.",
    jsonSchema: ADDRESS_JSON_SCHEMA
  })
})

const check = HttpApiEndpoint.get("check", "/api/risk-check/:address")
  .setPath(AddressParam)
  .addSuccess(RiskCheckResult)
  .addError(envelope(InvalidAddress))
  .annotate(OpenApi.Summary, "Verdict for one mint")
  .annotate(
    OpenApi.Description,
    "Reads the latest cached scan of the mint (never scans inline) and answers block / warn / ok / unknown " +
      "with freshness and buy-relevant flags. A mint never scanned is a normal 200 with verdict `unknown` and a " +
      "`rescan_url`. Cache-Control: `public, max-age=60, stale-while-revalidate=300` for fresh results, " +
      "`public, max-age=15` for stale ones, `no-cache` for cold and unknown."
  )

const batch = HttpApiEndpoint.post("batch", "/api/risk-check/batch")
  .setPayload(BatchRequest)
  .addSuccess(BatchResponse)
  .addError(envelope(BatchTooLarge))
  .addError(envelope(InvalidRequest))
  .addError(envelope(MalformedJson))
  .addError(envelope(PayloadTooLarge))
  .addError(envelope(UnsupportedMediaType))
  .annotate(OpenApi.Summary, "Verdicts for up to 50 mints")
  .annotate(
    OpenApi.Description,
    "Same result as the single check for each distinct address, keyed by address. An invalid address is " +
      "reported in its own entry while the others answer (except `__proto__`, which JSON encoders drop as a key " +
      "and which gets no entry). More than 50 addresses is 400 batch_too_large. " +
      "Never cached (Cache-Control: no-store)."
  )

const rescan = HttpApiEndpoint.post("rescan", "/api/risk-check/:address/rescan")
  .setPath(AddressParam)
  .addSuccess(ScanRequest, { status: 202 })
  .addError(envelope(InvalidAddress))
  .addError(envelope(PayloadTooLarge))
  .addError(envelope(UnsupportedMediaType))
  .annotate(OpenApi.Summary, "Queue a scan of a mint")
  .annotate(
    OpenApi.Description,
    "Records a scan request for an external scanner and answers 202. There is at most one pending request " +
      "per mint: repeated calls return the same request with its count raised. Nothing is scanned inline; " +
      "the request is completed when a newer scan of the mint is imported."
  )

export class RiskCheckApi extends HttpApiGroup.make("riskCheck")
  .add(check)
  .add(batch)
  .add(rescan)
  .middleware(PublicAccess)
  .annotate(OpenApi.Title, "Risk check")
  .annotate(
    OpenApi.Description,
    "Open, latency-oriented verdicts for trading routers and bots. No authentication. An API key may be sent " +
      "in `X-Api-Key` to attribute traffic to an account (counted, never charged; a missing or bad key never " +
      "fails the call). Each client (its account when the key is valid, else its IP address) may make " +
      "PUBLIC_RATE_LIMIT_PER_MINUTE requests a minute (default 1200) per server process; over it: 429 " +
      "`rate_limited` with Retry-After. Suggested use: refuse to route on block; on unknown or cold, queue a " +
      "scan and warn or block by policy; on warn, show the flags."
  ) {}
