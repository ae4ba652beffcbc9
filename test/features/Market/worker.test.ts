import { afterAll, beforeAll, describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Duration, Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { MarketFiguresRepo } from "../../../src/features/Market/MarketFiguresRepo.ts"
import { ListingsRepo } from "../../../src/features/Scans/ListingsRepo.ts"
import { ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import type { ScannerConfig } from "../../../src/workers/Scanner/Config.ts"
import { makeScanner } from "../../../src/workers/Scanner/Worker.ts"
import { databaseKind, TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testScannerConfig } from "../../support/solana/Settings.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// The scanner worker merges the imported market feed into the scans it stores: figures observed within
// SCANNER_MARKET_MAX_AGE_SECONDS of the scan make `market` observed; older ones leave it not_observed.

const { it } = runtimeFor(
  Layer.mergeAll(ScansRepo.Default, ScanRequestsRepo.Default, ListingsRepo.Default, MarketFiguresRepo.Default).pipe(
    Layer.provideMerge(TestDatabase)
  )
)

let world: World
let server: RpcServer
beforeAll(() => {
  world = makeWorld()
  server = startRpcServer(world)
})
afterAll(() => server.stop())

const configFor = (url: string): ScannerConfig => testScannerConfig(url, { concurrency: 2 })

const pendingCount = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: string }>`select count(*) as n from scan_requests where status = 'pending'`.pipe(
    Effect.map((rows) => Number(rows[0]?.n ?? 0))
  )
)

const newMint = () =>
  Effect.promise(async () => {
    const mint = await world.mint({ program: "token", decimals: 6 })
    await world.holders(mint, [{ amount: 1_000n }])
    return mint.address as string as Address
  })

const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString()

const figures = (mint: Address, observedAt: string, source: string) => ({
  mint,
  observedAt,
  volume24hUsd: 73_250.25,
  trades24h: 1_204,
  priceChange24hPct: -41.5,
  source
})

describe(`market feed merge in the scanner worker on ${databaseKind}`, () => {
  it(
    "a fresh row makes the stored market observed with its figures and source; a stale one leaves it not_observed",
    () =>
      Effect.gen(function* () {
        const [fresh, stale, none] = [yield* newMint(), yield* newMint(), yield* newMint()]
        const freshAt = secondsAgo(600)
        yield* MarketFiguresRepo.record([
          figures(fresh, freshAt, "feed-a"),
          figures(stale, secondsAgo(3_700), "feed-b")
        ])
        const requests = yield* ScanRequestsRepo
        for (const mint of [fresh, stale, none]) yield* requests.request(mint)
        const worker = yield* Effect.fork(Effect.flatMap(makeScanner(configFor(server.url)), (scanner) => scanner.run))
        const deadline = Date.now() + 60_000
        while ((yield* pendingCount) > 0 && Date.now() < deadline) yield* Effect.sleep(Duration.millis(50))
        yield* Fiber.interrupt(worker)

        const scans = yield* ScansRepo
        const documentOf = (mint: Address) => Effect.map(scans.latestDocument(mint), Option.getOrThrow)
        const merged = yield* documentOf(fresh)
        expect(merged.market).toEqual({
          status: "observed",
          value: {
            priceUsd: null,
            liquidityUsd: null,
            marketCap: null,
            volume24h: 73_250.25,
            priceChange5m: null,
            priceChange1h: null,
            priceChange6h: null,
            priceChange24h: -41.5,
            buyCount24h: null,
            sellCount24h: null,
            tradeCount24h: 1_204,
            uniqueTraders24h: null,
            source: "feed-a",
            observedAt: freshAt
          }
        })
        const view = Option.getOrThrow(yield* scans.latest(fresh))
        expect(view.evidence.market).toMatchObject({
          volume24h: 73_250.25,
          tradeCount24h: 1_204,
          priceChange24h: -41.5
        })
        for (const mint of [stale, none]) {
          const document = yield* documentOf(mint)
          expect(document.market).toEqual({
            status: "not_observed",
            reason:
              "24 h volume, trades and price changes are not readable from plain RPC; an operator can merge a market feed"
          })
          expect(Option.getOrThrow(yield* scans.latest(mint)).evidence.market.volume24h).toBeNull()
        }
      }),
    90_000
  )

  it(
    "SCANNER_MARKET_MAX_AGE_SECONDS widens the window (risk-api scan stores through the same merge)",
    () =>
      Effect.gen(function* () {
        const mint = yield* newMint()
        yield* MarketFiguresRepo.record([figures(mint, secondsAgo(3_700), "feed-b")])
        const scanner = yield* makeScanner(configFor(server.url)).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SCANNER_MARKET_MAX_AGE_SECONDS", "7200"]])))
        )
        const stored = yield* scanner.scanAndStore(mint)
        expect(stored.market).toMatchObject({ status: "observed", value: { source: "feed-b", tradeCount24h: 1_204 } })
        const document = Option.getOrThrow(yield* (yield* ScansRepo).latestDocument(mint))
        expect(document.market.status).toBe("observed")
      }),
    60_000
  )

  it(
    "a bad SCANNER_MARKET_MAX_AGE_SECONDS is refused with its range",
    () =>
      Effect.gen(function* () {
        const error = yield* makeScanner(configFor(server.url)).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SCANNER_MARKET_MAX_AGE_SECONDS", "0"]]))),
          Effect.flip
        )
        expect(String(error)).toContain("SCANNER_MARKET_MAX_AGE_SECONDS must be between 1 and 604800")
      }),
    30_000
  )
})
