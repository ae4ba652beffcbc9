import type { Address } from "@solana/kit"
import { Config, Option, Redacted } from "effect"
import { PROGRAM_LABELS } from "./Programs.ts"

// The watcher's settings (README, "The launch and event stream"). SOLANA_WS_URL is a provider URL with
// its key in it, SOLANA_GRPC_URL may be one and SOLANA_GRPC_TOKEN is a key: all Redacted, and only a URL's
// scheme and host reach a log line.

const bounded = (name: string, min: number, max: number, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be between ${min} and ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

export const StreamConfig = Config.all({
  wsUrl: Config.option(Config.redacted("SOLANA_WS_URL")),
  /** A Yellowstone (Geyser) gRPC endpoint: when set, the watcher's source instead of the WebSocket. */
  grpcUrl: Config.option(Config.redacted("SOLANA_GRPC_URL")),
  /** The endpoint's x-token, when it wants one. */
  grpcToken: Config.option(Config.redacted("SOLANA_GRPC_TOKEN")),
  /** Transactions read back per subscription after a reconnect, at most. */
  backfillLimit: bounded("STREAM_BACKFILL_LIMIT", 0, 10_000, 500),
  /** Mints watched for state events: watched ones first, then the most read in the last hour, then launches. */
  trackedLimit: bounded("STREAM_TRACKED_LIMIT", 0, 10_000, 500),
  trackedWindowSeconds: bounded("STREAM_TRACKED_WINDOW_SECONDS", 60, 7 * 86_400, 3_600),
  trackRefreshMs: bounded("STREAM_TRACK_REFRESH_MS", 100, 600_000, 5_000),
  reconnectMaxMs: bounded("STREAM_RECONNECT_MAX_MS", 100, 300_000, 30_000),
  pingMs: bounded("STREAM_PING_MS", 1_000, 300_000, 10_000),
  /** A pool reserve that loses at least this share (percent) in one LP removal or deployer sale, or a pump.fun curve's real reserve this far below its high, is a `reserves_dropped` event. */
  reserveDropPct: bounded("STREAM_RESERVE_DROP_PCT", 1, 100, 30),
  /** Days a stream event is kept (a launch row is the evidence's `launch` block for scans made within it). */
  eventsRetentionDays: bounded("STREAM_EVENTS_RETENTION_DAYS", 1, 3_650, 30),
  /** Only the watcher holding a PostgreSQL advisory lock runs (the others stand by); off: every watcher runs, deduped. */
  leaderElection: Config.boolean("STREAM_LEADER_ELECTION").pipe(Config.withDefault(false)),
  /** How often a standby watcher tries the lock, and the leader checks its lock's connection. */
  leaderRetryMs: bounded("STREAM_LEADER_RETRY_MS", 100, 600_000, 5_000),
  /** The programs whose logs are read for launches and pool creations, by venue label; all when unset. */
  venues: Config.array(Config.string(), "STREAM_VENUES").pipe(
    Config.validate({
      message: `STREAM_VENUES must list venue labels among: ${[...PROGRAM_LABELS.keys()].join(", ")}`,
      validation: (labels) => labels.length > 0 && labels.every((label) => PROGRAM_LABELS.has(label.trim()))
    }),
    Config.option
  ),
  /** Transactions read at once (getTransaction calls, batched by the RPC client). */
  concurrency: bounded("STREAM_CONCURRENCY", 1, 256, 16)
})
export type StreamConfig = Config.Config.Success<typeof StreamConfig>

/** The WebSocket URL, or none when SOLANA_WS_URL is unset or empty. */
export const wsUrlOf = (config: StreamConfig): string | undefined =>
  Option.match(config.wsUrl, { onNone: () => undefined, onSome: (url) => Redacted.value(url).trim() || undefined })

/** The Yellowstone gRPC endpoint, or none when SOLANA_GRPC_URL is unset or empty. */
export const grpcUrlOf = (config: StreamConfig): string | undefined =>
  Option.match(config.grpcUrl, { onNone: () => undefined, onSome: (url) => Redacted.value(url).trim() || undefined })

/** scheme://host of a provider URL: what a log line may show. */
export const hostOf = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.protocol}//${parsed.host}`
  } catch {
    return "websocket"
  }
}

/** The programs the watcher subscribes to for launches: STREAM_VENUES's, or every one. */
export const watchedPrograms = (config: StreamConfig): ReadonlyArray<Address> =>
  Option.match(config.venues, {
    onNone: () => [...PROGRAM_LABELS.values()],
    onSome: (labels) => labels.flatMap((label) => PROGRAM_LABELS.get(label.trim()) ?? [])
  })
