import { Counter, Gauge, Histogram } from "prom-client"
import { registry } from "../../platform/Observability/Metrics.ts"

// The scanner's figures on the same /metrics as the API (a scanner inside `npm start` shares the
// registry; a separate `risk-api scanner` process serves its own on SCANNER_METRICS_PORT).

export const scansTotal = new Counter({
  name: "risk_api_scanner_scans_total",
  help: "Scans by result: full, partial, failed (nothing stored), not_a_token.",
  labelNames: ["result"] as const,
  registers: [registry]
})

export const rpcCalls = new Counter({
  name: "risk_api_scanner_rpc_calls_total",
  help: "JSON-RPC calls by method and status (ok, 429, timeout, error, an HTTP status, circuit_open).",
  labelNames: ["method", "status"] as const,
  registers: [registry]
})

export const scanDuration = new Histogram({
  name: "risk_api_scanner_scan_duration_seconds",
  help: "Wall time of one scan, RPC reads to stored evidence.",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry]
})

export const queueDepth = new Gauge({
  name: "risk_api_scanner_queue_depth",
  help: "Pending scan requests (rescans, due watches, stale popular mints).",
  registers: [registry]
})

export const oldestPending = new Gauge({
  name: "risk_api_scanner_oldest_pending_seconds",
  help: "Age of the oldest pending scan request.",
  registers: [registry]
})
