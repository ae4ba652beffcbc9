import { Counter, Gauge, Histogram } from "prom-client"
import { registry } from "../../platform/Observability/Metrics.ts"

// The watcher's figures, on the same registry as the API and the scanner.

export const streamEvents = new Counter({
  name: "risk_api_stream_events_total",
  help: "Launches and state events queued by this watcher, by program and kind (each event once over every watcher).",
  labelNames: ["program", "kind"] as const,
  registers: [registry]
})

export const streamNotifications = new Counter({
  name: "risk_api_stream_notifications_total",
  help: "Notifications received, by subscription kind (logs, account, slot; update: a gRPC update of no kind asked for) and outcome (handled, skipped, malformed).",
  labelNames: ["subscription", "outcome"] as const,
  registers: [registry]
})

export const streamMalformed = new Counter({
  name: "risk_api_stream_malformed_total",
  help: "Messages from the WebSocket that could not be parsed (not JSON, or not a notification's shape), or gRPC updates that are not a whole transaction or account: logged and skipped.",
  registers: [registry]
})

export const streamMalformedInstructions = new Counter({
  name: "risk_api_stream_malformed_instructions_total",
  help: "Watched instructions (by program and IDL name) skipped because their data is shorter than their arguments or they lack the accounts the IDL names.",
  labelNames: ["program", "instruction"] as const,
  registers: [registry]
})

export const streamLeader = new Gauge({
  name: "risk_api_stream_leader",
  help: "1 while this watcher holds the stream's leader lock (STREAM_LEADER_ELECTION), else 0.",
  registers: [registry]
})

export const streamSubscriptions = new Gauge({
  name: "risk_api_stream_subscriptions",
  help: "Subscriptions by kind (logs, account, slot; grpc: the one Yellowstone stream) and state (up: subscribed; down: reconnecting).",
  labelNames: ["subscription", "state"] as const,
  registers: [registry]
})

export const streamReconnects = new Counter({
  name: "risk_api_stream_reconnects_total",
  help: "Times a subscription (or the Yellowstone stream: grpc) was lost and made again.",
  labelNames: ["subscription"] as const,
  registers: [registry]
})

export const streamBackfilled = new Counter({
  name: "risk_api_stream_backfilled_total",
  help: "Transactions found by the gap fill after a reconnect (getSignaturesForAddress; on gRPC, replayed from from_slot).",
  registers: [registry]
})

export const streamLagSlots = new Gauge({
  name: "risk_api_stream_lag_slots",
  help: "Slots between the node's tip and the last live notification handled.",
  registers: [registry]
})

export const launchToVerdict = new Histogram({
  name: "risk_api_launch_to_verdict_seconds",
  help: "From a launch notification received to its scan stored (what the API then answers).",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3.5, 5, 10, 30],
  registers: [registry]
})
