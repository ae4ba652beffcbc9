import { Effect, Layer, Option, Redacted } from "effect"
import { ListingsRepo } from "../../../src/features/Scans/ListingsRepo.ts"
import type { ScannerConfig } from "../../../src/workers/Scanner/Config.ts"
import { makeScanner } from "../../../src/workers/Scanner/Worker.ts"
import { makeRpcClient } from "../../../src/workers/Scanner/Rpc.ts"
import type { StreamConfig } from "../../../src/workers/Stream/Config.ts"
import { StreamEventsRepo } from "../../../src/workers/Stream/EventsRepo.ts"
import { makeKitSource } from "../../../src/workers/Stream/KitSource.ts"
import { makeWatcher } from "../../../src/workers/Stream/Watcher.ts"
import { makeYellowstoneSource } from "../../../src/workers/Stream/YellowstoneSource.ts"
import { whileLeader } from "../../../src/workers/Stream/Leader.ts"
import { LAUNCH_PROGRAMS } from "../../../src/workers/Stream/Programs.ts"
import { read } from "../../support/http.ts"
import type { GeyserServer } from "../../support/solana/Geyser.ts"
import type { RpcServer } from "../../support/solana/RpcServer.ts"
import { testRpcSettings, testScannerConfig } from "../../support/solana/Settings.ts"

// The stream as the tests run it: the watcher on the world's WebSocket, the scanner on its JSON-RPC,
// both on the test database, with quick reconnects and refreshes.

const testStreamConfig = (overrides: Partial<StreamConfig> = {}): StreamConfig => ({
  wsUrl: Option.none(),
  grpcUrl: Option.none(),
  grpcToken: Option.none(),
  backfillLimit: 500,
  trackedLimit: 100,
  trackedWindowSeconds: 3_600,
  trackRefreshMs: 100,
  reconnectMaxMs: 200,
  pingMs: 5_000,
  concurrency: 8,
  reserveDropPct: 30,
  eventsRetentionDays: 30,
  venues: Option.none(),
  leaderElection: false,
  leaderRetryMs: 100,
  ...overrides
})

export const StreamLayer = Layer.mergeAll(ListingsRepo.Default, StreamEventsRepo.Default)

/** A watcher process on the server's WebSocket: the fiber running it. */
export const startWatcher = (server: RpcServer, overrides: Partial<StreamConfig> = {}, leaderKey = "stream-test") =>
  Effect.gen(function* () {
    const client = makeRpcClient(testRpcSettings(server.url))
    const config = testStreamConfig(overrides)
    const source = makeKitSource({
      url: server.wsUrl,
      pingMs: config.pingMs,
      reconnectMaxMs: config.reconnectMaxMs,
      backfillLimit: config.backfillLimit,
      rpc: () => client.forScan(1_000).rpc
    })
    const watcher = yield* makeWatcher(config, source, client)
    return yield* Effect.forkDaemon(
      config.leaderElection ? whileLeader(watcher.run, leaderKey, config.leaderRetryMs) : watcher.run
    )
  })

/**
 * A watcher process on a Geyser gRPC endpoint; its getTransaction calls (it should make none) go to
 * `server`'s JSON-RPC.
 */
export const startGrpcWatcher = (
  server: RpcServer,
  geyser: GeyserServer,
  overrides: Partial<StreamConfig> = {},
  token = "test-token"
) =>
  Effect.gen(function* () {
    const client = makeRpcClient(testRpcSettings(server.url))
    const config = testStreamConfig(overrides)
    const source = makeYellowstoneSource({
      url: geyser.url,
      token: Redacted.make(token),
      pingMs: config.pingMs,
      reconnectMaxMs: config.reconnectMaxMs,
      replay: config.backfillLimit > 0
    })
    const watcher = yield* makeWatcher(config, source, client)
    return yield* Effect.forkDaemon(watcher.run)
  })

/** Waits (up to 20 s) until `streams` Geyser streams each filter on every launch program. */
export const untilGrpcSubscribed = async (geyser: GeyserServer, streams = 1) => {
  const ready = () =>
    geyser.controls
      .transactionAddresses()
      .filter((addresses) => LAUNCH_PROGRAMS.every((program) => addresses.includes(program))).length >= streams
  for (let i = 0; i < 2_000 && !ready(); i++) await Bun.sleep(10)
}

export const startScanner = (server: RpcServer, overrides: Partial<ScannerConfig> = {}) =>
  Effect.gen(function* () {
    const scanner = yield* makeScanner(testScannerConfig(server.url, { pollMs: 10, ...overrides }))
    return yield* Effect.forkDaemon(scanner.run)
  })

/**
 * Waits (up to 20 s) until every launch program has a logs subscription on the server: a transaction sent
 * before them is nobody's to see (there is no signature to backfill from yet).
 */
export const untilSubscribed = async (server: RpcServer, watchers = 1) => {
  for (let i = 0; i < 2_000 && server.pubsub.subscriptions("logsSubscribe") < watchers * LAUNCH_PROGRAMS.length; i++)
    await Bun.sleep(10)
}

/** The risk-check answer once its verdict is no longer `unknown` (or the last answer after `ms`). */
export const verdictOf = async (app: (path: string) => Promise<Response>, mint: string, ms = 20_000) => {
  const deadline = Date.now() + ms
  let answer = await read(await app(`/api/risk-check/${mint}`))
  while (answer.body?.verdict === "unknown" && Date.now() < deadline) {
    await Bun.sleep(25)
    answer = await read(await app(`/api/risk-check/${mint}`))
  }
  return answer
}
