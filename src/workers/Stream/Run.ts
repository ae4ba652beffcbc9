import { Effect, Option } from "effect"
import { DatabaseConfig } from "../../platform/Sql/Config.ts"
import { endpointsOf, type ScannerConfig } from "../Scanner/Config.ts"
import { makeRpcClient } from "../Scanner/Rpc.ts"
import { grpcUrlOf, hostOf, type StreamConfig, wsUrlOf } from "./Config.ts"
import { makeKitSource } from "./KitSource.ts"
import { whileLeader } from "./Leader.ts"
import { makeWatcher } from "./Watcher.ts"
import { makeYellowstoneSource } from "./YellowstoneSource.ts"

/** The advisory lock's name (hashed to its key): one per database. */
const LEADER_KEY = "risk-api:stream-watcher"

/** Whether the stream can run here: SOLANA_WS_URL or SOLANA_GRPC_URL set, and SOLANA_RPC_URL. */
export const streamConfigured = (stream: StreamConfig, scanner: ScannerConfig): boolean =>
  (wsUrlOf(stream) !== undefined || grpcUrlOf(stream) !== undefined) && endpointsOf(scanner).length > 0

/**
 * The watcher on the Yellowstone gRPC endpoint of SOLANA_GRPC_URL when set, else on the PubSub WebSocket
 * of SOLANA_WS_URL, reading transactions over the scanner's RPC endpoints (same rate limit, retries and
 * batching) where its source does not deliver them; runs until interrupted.
 */
export const runWatcher = (stream: StreamConfig, scanner: ScannerConfig) =>
  Effect.gen(function* () {
    const grpcUrl = grpcUrlOf(stream)
    const url = grpcUrl ?? wsUrlOf(stream)
    if (url === undefined) return yield* Effect.dieMessage("neither SOLANA_GRPC_URL nor SOLANA_WS_URL is set")
    const client = makeRpcClient({
      urls: endpointsOf(scanner),
      timeoutMs: scanner.timeoutMs,
      retries: scanner.retries,
      requestsPerSecond: scanner.requestsPerSecond,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      maxRetryAfterMs: 10_000,
      batch: scanner.batch
    })
    const source =
      grpcUrl === undefined
        ? makeKitSource({
            url,
            pingMs: stream.pingMs,
            reconnectMaxMs: stream.reconnectMaxMs,
            backfillLimit: stream.backfillLimit,
            rpc: () => client.forScan(1_000).rpc
          })
        : makeYellowstoneSource({
            url,
            token: Option.getOrUndefined(stream.grpcToken),
            pingMs: stream.pingMs,
            reconnectMaxMs: stream.reconnectMaxMs,
            replay: stream.backfillLimit > 0
          })
    const watcher = yield* makeWatcher(stream, source, client)
    // Leader election needs PostgreSQL; on the embedded database this process is the only watcher.
    const database = yield* DatabaseConfig
    const elect = stream.leaderElection && Option.isSome(database.url)
    yield* Effect.logInfo("watcher started").pipe(
      Effect.annotateLogs({
        [grpcUrl === undefined ? "websocket" : "grpc"]: hostOf(url),
        rpc: client.endpoints().join(","),
        tracked: stream.trackedLimit,
        leaderElection: elect
      })
    )
    return yield* elect ? whileLeader(watcher.run, LEADER_KEY, stream.leaderRetryMs) : watcher.run
  })
