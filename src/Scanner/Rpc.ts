import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  isJsonRpcPayload,
  isSolanaError,
  type RpcTransport,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR
} from "@solana/kit"
import { rpcCalls } from "./Metrics.ts"

// The scanner's JSON-RPC client: kit's HTTP transport per endpoint, wrapped with what a provider needs
// from a polite, robust caller. Every call waits for a token of the process-wide rate limit, runs under a
// timeout, and is retried with jittered backoff on timeouts, 5xx, malformed answers and 429 (honouring
// Retry-After), moving to the next endpoint. An endpoint that keeps failing is skipped for a cool-down
// (circuit breaker). Each scan gets its own transport with a call budget, so one odd token cannot burn
// through the provider's quota. Nothing here is provider-specific: any standard Solana JSON-RPC works.

export interface RpcSettings {
  readonly urls: ReadonlyArray<string>
  readonly timeoutMs: number
  /** Attempts per call after the first. */
  readonly retries: number
  /** Requests per second to the provider, across the process. */
  readonly requestsPerSecond: number
  /** Consecutive failures that open an endpoint's breaker, and how long it stays open. */
  readonly breakerFailures: number
  readonly breakerCooldownMs: number
  /** The longest Retry-After honoured; a longer one fails the call (the scan is retried later). */
  readonly maxRetryAfterMs: number
}

/** The scan spent its call budget: what it has not read yet is recorded as not observed. */
export class CallBudgetExhausted extends Error {
  readonly _tag = "CallBudgetExhausted"
  constructor(readonly budget: number) {
    super(`RPC call budget of ${budget} calls per scan spent`)
  }
}

/** A call that failed after its retries (or with every endpoint's breaker open). */
export class RpcUnavailable extends Error {
  readonly _tag = "RpcUnavailable"
  constructor(readonly method: string, readonly reason: string) {
    super(`${method}: ${reason}`)
  }
}

interface Endpoint {
  readonly transport: RpcTransport
  readonly label: string
  failures: number
  openUntil: number
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve()
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener("abort", () => {
      clearTimeout(timer)
      reject(signal.reason)
    }, { once: true })
  })

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export const retryAfterMs = (header: string | null | undefined, now = Date.now()): number | undefined => {
  if (header === null || header === undefined || header.trim() === "") return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const statusOf = (error: unknown): { readonly status: number; readonly retryAfter: string | null } | undefined => {
  if (!isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) return undefined
  const headers = error.context.headers as Headers | undefined
  return { status: error.context.statusCode, retryAfter: headers?.get("retry-after") ?? null }
}

/** A process-wide token bucket: `requestsPerSecond` on average, bursts of up to one second's worth. */
const tokenBucket = (perSecond: number) => {
  let tokens = perSecond
  let last = performance.now()
  let queue: Promise<void> = Promise.resolve()
  const take = async () => {
    for (;;) {
      const now = performance.now()
      tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond)
      last = now
      if (tokens >= 1) {
        tokens -= 1
        return
      }
      await sleep(Math.ceil(((1 - tokens) / perSecond) * 1000))
    }
  }
  // Waiters are served in order, so a burst cannot starve an earlier caller.
  return (): Promise<void> => (queue = queue.then(take, take))
}

const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return "rpc"
  }
}

export interface ScanRpcCounter {
  /** Calls sent for this scan, including retries. */
  readonly calls: () => number
}

/** The shared client; `forScan(budget)` gives one scan its kit Rpc and its call counter. */
export const makeRpcClient = (settings: RpcSettings) => {
  if (settings.urls.length === 0) throw new Error("no RPC endpoint configured")
  const endpoints: Array<Endpoint> = settings.urls.map((url) => ({
    transport: createDefaultRpcTransport({ url: url as `https://${string}` }),
    // Provider URLs carry keys in paths and queries: only scheme and host are ever shown.
    label: redactUrl(url),
    failures: 0,
    openUntil: 0
  }))
  const acquire = tokenBucket(settings.requestsPerSecond)

  const pick = (attempt: number): Endpoint | undefined => {
    const now = Date.now()
    const open = endpoints.filter((endpoint) => endpoint.openUntil <= now)
    return open.length === 0 ? undefined : open[attempt % open.length]
  }

  const transportFor = (budget: number, spent: { count: number }): RpcTransport =>
    async <T>(config: Parameters<RpcTransport>[0]): Promise<T> => {
      const method = isJsonRpcPayload(config.payload) ? config.payload.method : "batch"
      let lastReason = "no attempt"
      for (let attempt = 0; attempt <= settings.retries; attempt++) {
        const endpoint = pick(attempt)
        if (endpoint === undefined) {
          rpcCalls.inc({ method, status: "circuit_open" })
          throw new RpcUnavailable(method, "every RPC endpoint is cooling down after repeated failures")
        }
        if (spent.count >= budget) throw new CallBudgetExhausted(budget)
        spent.count++
        await acquire()
        const timeout = AbortSignal.timeout(settings.timeoutMs)
        const signal = config.signal === undefined ? timeout : AbortSignal.any([config.signal, timeout])
        let waitMs = Math.min(2_000, 100 * 2 ** attempt) * (0.5 + Math.random())
        try {
          const response = await endpoint.transport<T>({ payload: config.payload, signal })
          endpoint.failures = 0
          rpcCalls.inc({ method, status: "ok" })
          return response as T
        } catch (error) {
          if (config.signal?.aborted) throw error
          const http = statusOf(error)
          if (http?.status === 429) {
            rpcCalls.inc({ method, status: "429" })
            const asked = retryAfterMs(http.retryAfter)
            if (asked !== undefined && asked > settings.maxRetryAfterMs) {
              throw new RpcUnavailable(method, `rate limited by ${endpoint.label}; Retry-After ${Math.round(asked / 1000)} s`)
            }
            waitMs = asked ?? waitMs
            lastReason = `rate limited by ${endpoint.label}`
          } else {
            const reason = http !== undefined
              ? `HTTP ${http.status}`
              : timeout.aborted
              ? `no answer within ${settings.timeoutMs} ms`
              : error instanceof SyntaxError
              ? "malformed JSON"
              : error instanceof Error
              ? error.message.slice(0, 200)
              : "failed"
            rpcCalls.inc({ method, status: http !== undefined ? String(http.status) : timeout.aborted ? "timeout" : "error" })
            lastReason = `${reason} from ${endpoint.label}`
            // A 4xx other than 429 is the request's fault: retrying it elsewhere would only spend budget.
            if (http !== undefined && http.status >= 400 && http.status < 500) throw new RpcUnavailable(method, lastReason)
            if (++endpoint.failures >= settings.breakerFailures) {
              endpoint.openUntil = Date.now() + settings.breakerCooldownMs
              endpoint.failures = 0
            }
          }
        }
        if (attempt < settings.retries) await sleep(waitMs, config.signal)
      }
      throw new RpcUnavailable(method, lastReason)
    }

  return {
    forScan: (budget: number) => {
      const spent = { count: 0 }
      const rpc = createSolanaRpcFromTransport(transportFor(budget, spent))
      return { rpc, calls: () => spent.count }
    },
    endpoints: () => endpoints.map((endpoint) => endpoint.label)
  }
}

export type RpcClient = ReturnType<typeof makeRpcClient>
export type ScanRpc = ReturnType<RpcClient["forScan"]>["rpc"]
