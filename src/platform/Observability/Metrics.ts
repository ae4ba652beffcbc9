import { Counter, collectDefaultMetrics, Gauge, Histogram, type LabelValues, Registry } from "prom-client"

// Prometheus metrics of this process, served at GET /metrics.
export const registry = new Registry()
collectDefaultMetrics({ register: registry, prefix: "risk_api_process_" })

// Counters bound to one label set for the hot path (bound below): an increment adds to a plain number,
// and the sum reaches prom-client when the counter is read (its collect hook, which /metrics and get()
// call), so the exposition is the same and no label set is hashed per request.
const pendingFlushes = new WeakMap<object, Array<() => void>>()
const flushesOf = (counter: object): Array<() => void> => {
  let flushes = pendingFlushes.get(counter)
  if (flushes === undefined) {
    flushes = []
    pendingFlushes.set(counter, flushes)
  }
  return flushes
}
function flushBound(this: object): void {
  for (const flush of pendingFlushes.get(this) ?? []) flush()
}

export const requests = new Counter({
  collect: flushBound,
  name: "risk_api_http_requests_total",
  help: "HTTP requests by method, route template and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry]
})

export const latency = new Histogram({
  collect: flushBound,
  name: "risk_api_http_request_duration_seconds",
  help: "Time from receiving a request to its response, by route template.",
  labelNames: ["method", "route"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry]
})

export const refusals = new Counter({
  collect: flushBound,
  name: "risk_api_refusals_total",
  help: "Calls refused by a limit: rate_limited (minute limits) or quota_exceeded (monthly quota).",
  labelNames: ["reason"] as const,
  registers: [registry]
})

export const scanLookups = new Counter({
  collect: flushBound,
  name: "risk_api_scan_lookups_total",
  help: "Latest-scan lookups: hit when the mint has a cached scan, miss when it was never scanned.",
  labelNames: ["result"] as const,
  registers: [registry]
})

export const scanCacheEvents = new Counter({
  collect: flushBound,
  name: "risk_api_scan_cache_total",
  help: "In-process latest-scan cache: hit (answered from memory) or miss (read from the database).",
  labelNames: ["result"] as const,
  registers: [registry]
})

// The read replica (DATABASE_READ_URL): reads it failed that the primary answered instead, and whether
// reads go to it now (0 while a failure keeps them on the primary: Scans/LatestScanReplica.ts).
export const readReplicaFallbacks = new Counter({
  name: "risk_api_read_replica_fallbacks_total",
  help: "Reads the read replica failed (unreachable, timed out, cancelled) that the primary answered instead.",
  registers: [registry]
})

export const readReplicaUp = new Gauge({
  name: "risk_api_read_replica_up",
  help: "1 while reads may go to the read replica, 0 while a failure sends them to the primary.",
  registers: [registry]
})

export const inFlight = new Gauge({
  name: "risk_api_http_requests_in_flight",
  help: "Requests being handled now.",
  registers: [registry]
})

export interface BoundCounter {
  readonly inc: (by?: number) => void
}

/** `counter` with `labels` bound once: what `counter.inc(labels, by)` counts, without a label lookup per call. */
export const bound = <T extends string>(counter: Counter<T>, labels: LabelValues<T>): BoundCounter => {
  let pending = 0
  flushesOf(counter).push(() => {
    if (pending === 0) return
    const by = pending
    pending = 0
    counter.inc(labels, by)
  })
  return {
    inc: (by = 1) => {
      pending += by
    }
  }
}

// What prom-client 15.1.3 keeps per label set of a histogram (lib/histogram.js: `hashMap`, `upperBounds`);
// a bound histogram adds its pending observations there when the histogram is read. The version is pinned
// and test/platform/Observability/boundMetrics.test.ts holds the result to what observe() gives.
interface HistogramEntry {
  readonly labels: Record<string, string>
  readonly bucketValues: Record<number, number>
  sum: number
  count: number
}
interface HistogramInternals {
  readonly hashMap: Record<string, HistogramEntry>
  readonly upperBounds: ReadonlyArray<number>
}

const entryOf = <T extends string>(histogram: Histogram<T>, labels: LabelValues<T>): HistogramEntry => {
  const find = () =>
    Object.values((histogram as unknown as HistogramInternals).hashMap).find(
      (entry) =>
        Object.keys(labels).length === Object.keys(entry.labels).length &&
        Object.entries(labels).every(([name, value]) => entry.labels[name] === String(value))
    )
  const found = find()
  if (found !== undefined) return found
  histogram.zero(labels)
  return find()!
}

export interface BoundHistogram {
  readonly observe: (value: number) => void
}

/**
 * `histogram` with `labels` bound once: what `histogram.observe(labels, value)` counts, kept in plain
 * numbers and added to the histogram when it is read (as `bound` does for counters).
 */
export const boundHistogram = <T extends string>(histogram: Histogram<T>, labels: LabelValues<T>): BoundHistogram => {
  const bounds = (histogram as unknown as HistogramInternals).upperBounds
  const counts = new Float64Array(bounds.length)
  let sum = 0
  let count = 0
  flushesOf(histogram).push(() => {
    if (count === 0) return
    const entry = entryOf(histogram, labels)
    entry.sum += sum
    entry.count += count
    for (let i = 0; i < bounds.length; i++) {
      if (counts[i] !== 0) entry.bucketValues[bounds[i]!] = (entry.bucketValues[bounds[i]!] ?? 0) + counts[i]!
    }
    counts.fill(0)
    sum = 0
    count = 0
  })
  return {
    observe: (value) => {
      sum += value
      count++
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          counts[i]!++
          return
        }
      }
    }
  }
}

/**
 * For one method and route: `(status, seconds)` counts what requests.inc({ method, route, status }) and
 * latency.observe({ method, route }, seconds) count, with the label sets bound once (per status).
 */
export const boundRequests = (method: string, route: string): ((status: number, seconds: number) => void) => {
  const byStatus = new Map<number, BoundCounter>()
  const observed = boundHistogram(latency, { method, route })
  return (status, seconds) => {
    let counter = byStatus.get(status)
    if (counter === undefined) {
      counter = bound(requests, { method, route, status: String(status) })
      byStatus.set(status, counter)
    }
    counter.inc()
    observed.observe(seconds)
  }
}
