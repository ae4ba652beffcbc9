import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { RiskApi } from "../../Api.ts"
import { type Address, isSolanaAddress, parseAddress } from "../../domain/Address.ts"
import { LatestScanCache } from "../Scans/LatestScanCache.ts"
import { ScanRequestsRepo } from "../Scans/ScanRequestsRepo.ts"
import { batchAddressesOf, batchAnswer, checkAnswer, checkUrlOf, MAX_BATCH, type WireAnswer } from "./Answer.ts"
import { BatchTooLarge } from "./Errors.ts"

// The public risk-check routes through HttpApi. RiskCheck/FastPath.ts answers the warm ones straight from
// Bun with the same answer functions; these handlers answer everything else.

/** The answer as a response: the bytes the fast path sends too. */
const respond = (answer: WireAnswer) =>
  HttpServerResponse.text(answer.body, {
    contentType: "application/json",
    headers: { "cache-control": answer.cacheControl }
  })

const noStore = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
)

export const RiskCheckHttp = HttpApiBuilder.group(RiskApi, "riskCheck", (handlers) =>
  Effect.gen(function* () {
    const scans = yield* LatestScanCache
    const requests = yield* ScanRequestsRepo

    return handlers
      .handle("check", ({ path }) =>
        Effect.gen(function* () {
          const started = performance.now()
          const address = yield* parseAddress(path.address)
          // As the fast path reads it: a mint not kept yet as its stored verdict alone (FastPath.ts, check).
          const found = yield* scans.latestMany([address])
          return respond(checkAnswer(address, found.get(address) ?? null, started))
        })
      )
      .handle("batch", ({ payload }) =>
        Effect.gen(function* () {
          const started = performance.now()
          if (payload.addresses.length > MAX_BATCH) {
            return yield* new BatchTooLarge({
              message: `At most ${MAX_BATCH} addresses per batch; got ${payload.addresses.length}.`
            })
          }
          const distinct = batchAddressesOf(payload.addresses)
          const found = yield* scans.latestMany(distinct.filter(isSolanaAddress) as Array<Address>)
          return respond(
            batchAnswer(
              distinct,
              (address) => (isSolanaAddress(address) ? (found.get(address) ?? null) : undefined),
              started
            )
          )
        })
      )
      .handle("rescan", ({ path }) =>
        Effect.gen(function* () {
          const address = yield* parseAddress(path.address)
          const pending = yield* requests.request(address)
          yield* noStore
          return {
            id: pending.id,
            address,
            status: "pending" as const,
            requested_at: pending.requestedAt.toISOString(),
            last_requested_at: pending.lastRequestedAt.toISOString(),
            request_count: pending.requestCount,
            check_url: checkUrlOf(address)
          }
        })
      )
  })
)
