import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"

// Prometheus metrics of this process, served at GET /metrics.
export const registry = new Registry()
collectDefaultMetrics({ register: registry, prefix: "risk_api_process_" })

export const requests = new Counter({
  name: "risk_api_http_requests_total",
  help: "HTTP requests by method, route template and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry]
})

export const latency = new Histogram({
  name: "risk_api_http_request_duration_seconds",
  help: "Time from receiving a request to its response, by route template.",
  labelNames: ["method", "route"] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry]
})

export const refusals = new Counter({
  name: "risk_api_refusals_total",
  help: "Calls refused by a limit: rate_limited (minute limits) or quota_exceeded (monthly quota).",
  labelNames: ["reason"] as const,
  registers: [registry]
})

export const scanLookups = new Counter({
  name: "risk_api_scan_lookups_total",
  help: "Latest-scan lookups: hit when the mint has a cached scan, miss when it was never scanned.",
  labelNames: ["result"] as const,
  registers: [registry]
})

export const scanCacheEvents = new Counter({
  name: "risk_api_scan_cache_total",
  help: "In-process latest-scan cache: hit (answered from memory) or miss (read from the database).",
  labelNames: ["result"] as const,
  registers: [registry]
})

export const inFlight = new Gauge({
  name: "risk_api_http_requests_in_flight",
  help: "Requests being handled now.",
  registers: [registry]
})
