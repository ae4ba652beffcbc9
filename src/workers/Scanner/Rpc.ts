import { parseJsonWithBigInts, stringifyJsonWithBigInts } from "@solana/rpc-spec-types"
import { createHttpTransport } from "@solana/rpc-transport-http"
import {
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
  /** Send the calls of one scan stage as one JSON-RPC batch (one round trip); off for providers without batches. */
  readonly batch: boolean
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
  constructor(
    readonly method: string,
    readonly reason: string
  ) {
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
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true }
    )
  })

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
const retryAfterMs = (header: string | null | undefined, now = Date.now()): number | undefined => {
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

/**
 * A process-wide token bucket: `requestsPerSecond` calls on average, bursts of up to one second's worth.
 * A batch takes one token per call in it, as providers count them; a batch larger than a second's worth
 * waits for a full bucket and takes it all.
 */
const tokenBucket = (perSecond: number) => {
  let tokens = perSecond
  let last = performance.now()
  let queue: Promise<void> = Promise.resolve()
  const take = async (wanted: number) => {
    const cost = Math.min(wanted, perSecond)
    for (;;) {
      const now = performance.now()
      tokens = Math.min(perSecond, tokens + ((now - last) / 1000) * perSecond)
      last = now
      if (tokens >= cost) {
        tokens -= cost
        return
      }
      await sleep(Math.ceil(((cost - tokens) / perSecond) * 1000))
    }
  }
  // Waiters are served in order, so a burst cannot starve an earlier caller.
  return (calls: number): Promise<void> =>
    (queue = queue.then(
      () => take(calls),
      () => take(calls)
    ))
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
  /** JSON-RPC calls sent for this scan, including retries (what a provider bills). */
  readonly calls: () => number
  /** HTTP requests sent for this scan, including retries (a batch of calls is one). */
  readonly roundTrips: () => number
}

interface Pending {
  readonly payload: { readonly id: unknown; readonly method: string }
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

type Post = <T>(
  payload: unknown,
  methods: ReadonlyArray<string>,
  spent: { requests: number },
  signal?: AbortSignal
) => Promise<T>

/** One HTTP request (a call or a batch) with retries, breaker and rate limit; `methods` label the metrics. */
const poster = (settings: RpcSettings, endpoints: Array<Endpoint>, acquire: (calls: number) => Promise<void>): Post => {
  const pick = (attempt: number): Endpoint | undefined => {
    const now = Date.now()
    const open = endpoints.filter((endpoint) => endpoint.openUntil <= now)
    return open.length === 0 ? undefined : open[attempt % open.length]
  }
  return async <T>(
    payload: unknown,
    methods: ReadonlyArray<string>,
    spent: { requests: number },
    signal?: AbortSignal
  ): Promise<T> => {
    const label = methods.length === 1 ? methods[0]! : "batch"
    const count = (status: string) => {
      for (const method of methods) rpcCalls.inc({ method, status })
    }
    let lastReason = "no attempt"
    for (let attempt = 0; attempt <= settings.retries; attempt++) {
      const endpoint = pick(attempt)
      if (endpoint === undefined) {
        count("circuit_open")
        throw new RpcUnavailable(label, "every RPC endpoint is cooling down after repeated failures")
      }
      spent.requests++
      await acquire(methods.length)
      const timeout = AbortSignal.timeout(settings.timeoutMs)
      const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout])
      let waitMs = Math.min(2_000, 100 * 2 ** attempt) * (0.5 + Math.random())
      try {
        const response = await endpoint.transport<T>({ payload, signal: combined })
        if (Array.isArray(payload) && !Array.isArray(response))
          throw new SyntaxError("a batch answered with a single object")
        endpoint.failures = 0
        count("ok")
        return response
      } catch (error) {
        if (signal?.aborted) throw error
        const http = statusOf(error)
        if (http?.status === 429) {
          count("429")
          const asked = retryAfterMs(http.retryAfter)
          if (asked !== undefined && asked > settings.maxRetryAfterMs) {
            throw new RpcUnavailable(
              label,
              `rate limited by ${endpoint.label}; Retry-After ${Math.round(asked / 1000)} s`
            )
          }
          waitMs = asked ?? waitMs
          lastReason = `rate limited by ${endpoint.label}`
        } else {
          const reason =
            http !== undefined
              ? `HTTP ${http.status}`
              : timeout.aborted
                ? `no answer within ${settings.timeoutMs} ms`
                : error instanceof SyntaxError
                  ? "malformed JSON"
                  : error instanceof Error
                    ? error.message.slice(0, 200)
                    : "failed"
          count(http !== undefined ? String(http.status) : timeout.aborted ? "timeout" : "error")
          lastReason = `${reason} from ${endpoint.label}`
          // A 4xx other than 429 is the request's fault: retrying it elsewhere would only spend budget.
          if (http !== undefined && http.status >= 400 && http.status < 500) throw new RpcUnavailable(label, lastReason)
          if (++endpoint.failures >= settings.breakerFailures) {
            endpoint.openUntil = Date.now() + settings.breakerCooldownMs
            endpoint.failures = 0
          }
        }
      }
      if (attempt < settings.retries) await sleep(waitMs, signal)
    }
    throw new RpcUnavailable(label, lastReason)
  }
}

// Calls a scan makes in the same turn of the event loop (one stage of the scan: Promise.all of its
// reads) leave as one JSON-RPC batch, one round trip; each answer goes back to its call by id. The
// budget counts calls, since providers bill calls, not requests.
const transportFor = (
  settings: RpcSettings,
  post: Post,
  budget: number,
  spent: { calls: number; requests: number }
): RpcTransport => {
  let queue: Array<Pending> = []
  const flush = async () => {
    const batch = queue
    queue = []
    const allowed = batch.filter((pending) => {
      if (spent.calls >= budget) {
        pending.reject(new CallBudgetExhausted(budget))
        return false
      }
      spent.calls++
      return true
    })
    if (allowed.length === 0) return
    const methods = allowed.map((pending) => pending.payload.method)
    if (allowed.length === 1 || !settings.batch) {
      await Promise.all(
        allowed.map((pending, i) => post(pending.payload, [methods[i]!], spent).then(pending.resolve, pending.reject))
      )
      return
    }
    try {
      const answers = await post<ReadonlyArray<{ readonly id?: unknown }>>(
        allowed.map((pending) => pending.payload),
        methods,
        spent
      )
      const byId = new Map(answers.map((answer) => [String(answer.id), answer]))
      for (const pending of allowed) {
        const answer = byId.get(String(pending.payload.id))
        if (answer === undefined)
          pending.reject(new RpcUnavailable(pending.payload.method, "the batch answer has no entry for this call"))
        else pending.resolve(answer)
      }
    } catch (error) {
      for (const pending of allowed) pending.reject(error)
    }
  }
  return <T>(config: Parameters<RpcTransport>[0]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!isJsonRpcPayload(config.payload)) return reject(new Error("the scanner sends only JSON-RPC calls"))
      if (queue.length === 0) setImmediate(() => void flush())
      queue.push({
        payload: config.payload as unknown as Pending["payload"],
        resolve: resolve as (value: unknown) => void,
        reject
      })
    })
}

/** The shared client; `forScan(budget)` gives one scan its kit Rpc and its counters. */
export const makeRpcClient = (settings: RpcSettings) => {
  if (settings.urls.length === 0) throw new Error("no RPC endpoint configured")
  const endpoints: Array<Endpoint> = settings.urls.map((url) => ({
    // kit's HTTP transport with its bigint-preserving JSON, for single calls and JSON-RPC batches alike.
    transport: createHttpTransport({
      url,
      toJson: stringifyJsonWithBigInts,
      fromJson: (text: string) => parseJsonWithBigInts(text)
    }) as RpcTransport,
    // Provider URLs carry keys in paths and queries: only scheme and host are ever shown.
    label: redactUrl(url),
    failures: 0,
    openUntil: 0
  }))
  const post = poster(settings, endpoints, tokenBucket(settings.requestsPerSecond))
  return {
    forScan: (budget: number) => {
      const spent = { calls: 0, requests: 0 }
      const rpc = createSolanaRpcFromTransport(transportFor(settings, post, budget, spent))
      const counter: ScanRpcCounter = { calls: () => spent.calls, roundTrips: () => spent.requests }
      return { rpc, counter }
    },
    endpoints: () => endpoints.map((endpoint) => endpoint.label)
  }
}

export type RpcClient = ReturnType<typeof makeRpcClient>
export type ScanRpc = ReturnType<RpcClient["forScan"]>["rpc"]
