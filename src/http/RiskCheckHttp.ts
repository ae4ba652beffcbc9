import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { RiskApi } from "../api/Api.ts"
import { BatchTooLarge, InvalidAddress } from "../api/Errors.ts"
import { isSolanaAddress, type Address } from "../domain/Address.ts"
import type { BatchResponse } from "../domain/RiskCheck.ts"
import { cacheControlOf, checkUrlOf, riskCheckOf } from "../riskcheck/riskCheckOf.ts"
import { ScanCache } from "../services/ScanCache.ts"
import { ScanRequests } from "../services/ScanRequests.ts"
import { scanLookups } from "./Metrics.ts"

export const MAX_BATCH = 50

const invalidAddress = (address: string) =>
  new InvalidAddress({
    message: `${JSON.stringify(address.length > 64 ? `${address.slice(0, 64)}…` : address)} is not a Solana address (base58 of 32 bytes).`
  })

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
          // "__proto__" can never be a mint, and JSON object encoders drop it as a key: it gets no entry.
          const distinct = [...new Set(payload.addresses)].filter((address) => address !== "__proto__")
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
          const latencyMs = Math.round(performance.now() - started)
          const results: BatchResponse["results"] = Object.fromEntries(distinct.map((address) => [
            address,
            isSolanaAddress(address)
              ? riskCheckOf(address, found.get(address), now, latencyMs)
              : { address, error: { code: "invalid_address" as const, message: invalidAddress(address).message } }
          ]))
          yield* setHeader("cache-control", "no-store")
          return { results, count: distinct.length, latency_ms: latencyMs }
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
