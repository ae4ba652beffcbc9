import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { RiskApi } from "../Api.ts"
import { BatchTooLarge, InvalidAddress } from "../Domain/Errors.ts"
import { isSolanaAddress, type Address } from "../Domain/Address.ts"
import {
  batchAddressesOf,
  batchOf,
  cacheControlOf,
  checkUrlOf,
  invalidAddressMessage,
  MAX_BATCH,
  riskCheckOf
} from "./Answer.ts"
import { ScanCache } from "../Scans/ScansRepo.ts"
import { ScanRequests } from "../Scans/ScanRequestsRepo.ts"
import { scanLookups } from "../Observability/Metrics.ts"

const invalidAddress = (address: string) => new InvalidAddress({ message: invalidAddressMessage(address) })

export const parseAddress = (address: string): Effect.Effect<Address, InvalidAddress> =>
  isSolanaAddress(address) ? Effect.succeed(address as Address) : Effect.fail(invalidAddress(address))

const setHeader = (name: string, value: string) =>
  HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, name, value)))

export const RiskCheckHttp = HttpApiBuilder.group(RiskApi, "riskCheck", (handlers) =>
  Effect.gen(function*() {
    const scans = yield* ScanCache
    const requests = yield* ScanRequests

    return handlers
      .handle("check", ({ path }) =>
        Effect.gen(function*() {
          const started = performance.now()
          const address = yield* parseAddress(path.address)
          const scan = yield* scans.latest(address)
          scanLookups.inc({ result: Option.isSome(scan) ? "hit" : "miss" })
          const now = yield* Clock.currentTimeMillis
          const result = riskCheckOf(address, Option.getOrUndefined(scan), now, Math.round(performance.now() - started))
          yield* setHeader("cache-control", cacheControlOf(result))
          return result
        }))
      .handle("batch", ({ payload }) =>
        Effect.gen(function*() {
          const started = performance.now()
          const distinct = batchAddressesOf(payload.addresses)
          if (payload.addresses.length > MAX_BATCH) {
            return yield* new BatchTooLarge({
              message: `At most ${MAX_BATCH} addresses per batch; got ${payload.addresses.length}.`
            })
          }
          const valid = distinct.filter(isSolanaAddress) as Array<Address>
          const found = yield* scans.latestMany(valid)
          scanLookups.inc({ result: "hit" }, found.size)
          scanLookups.inc({ result: "miss" }, valid.length - found.size)
          const now = yield* Clock.currentTimeMillis
          const answer = batchOf(
            distinct,
            (address) => isSolanaAddress(address) ? found.get(address) ?? null : undefined,
            now, Math.round(performance.now() - started))
          yield* setHeader("cache-control", "no-store")
          return answer
        }))
      .handle("rescan", ({ path }) =>
        Effect.gen(function*() {
          const address = yield* parseAddress(path.address)
          const pending = yield* requests.request(address)
          yield* setHeader("cache-control", "no-store")
          return {
            id: pending.id,
            address,
            status: "pending" as const,
            requested_at: pending.requestedAt.toISOString(),
            last_requested_at: pending.lastRequestedAt.toISOString(),
            request_count: pending.requestCount,
            check_url: checkUrlOf(address)
          }
        }))
  }))
