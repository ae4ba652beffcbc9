import { afterAll, beforeAll, describe, expect } from "bun:test"
import { SqlClient } from "@effect/sql"
import { generateKeyPairSigner } from "@solana/kit"
import { Duration, Effect, Fiber, Layer, Option } from "effect"
import type { Address } from "../../../src/domain/Address.ts"
import { ListingsRepo } from "../../../src/features/Scans/ListingsRepo.ts"
import { ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import type { ScannerConfig } from "../../../src/workers/Scanner/Config.ts"
import { makeScanner } from "../../../src/workers/Scanner/Worker.ts"
import { TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { testScannerConfig } from "../../support/solana/Settings.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// The worker on a real database: two workers share one queue with no duplicate scans, failures are
// recorded on the request, and due work (stale popular mints) is queued by the scheduler.

const { it, run } = runtimeFor(
  Layer.mergeAll(ScansRepo.Default, ScanRequestsRepo.Default, ListingsRepo.Default).pipe(
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

const configFor = (url: string, overrides: Partial<ScannerConfig> = {}): ScannerConfig =>
  testScannerConfig(url, overrides)

const pendingCount = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ n: string }>`select count(*) as n from scan_requests where status = 'pending'`.pipe(
    Effect.map((rows) => Number(rows[0]?.n ?? 0))
  )
)

/** Runs the workers until the queue is empty (or 60 s), then stops them. */
const drain = (workers: number, config: ScannerConfig) =>
  Effect.gen(function* () {
    const fibers = []
    for (let i = 0; i < workers; i++)
      fibers.push(yield* Effect.fork(Effect.flatMap(makeScanner(config), (scanner) => scanner.run)))
    const deadline = Date.now() + 60_000
    while ((yield* pendingCount) > 0 && Date.now() < deadline) yield* Effect.sleep(Duration.millis(50))
    for (const fiber of fibers) yield* Fiber.interrupt(fiber)
  })

describe("scanner worker", () => {
  it(
    "two workers drain one queue and scan every requested mint exactly once",
    () =>
      Effect.gen(function* () {
        const mints: Array<string> = []
        for (let i = 0; i < 12; i++) {
          const mint = yield* Effect.promise(() =>
            world.mint({ program: i % 2 === 0 ? "token" : "token-2022", decimals: 6 })
          )
          yield* Effect.promise(() => world.holders(mint, [{ amount: 1_000n + BigInt(i) }]))
          mints.push(mint.address)
        }
        const requests = yield* ScanRequestsRepo
        for (const mint of mints) yield* requests.request(mint as Address)
        const listings = yield* ListingsRepo
        yield* listings.record([
          {
            mint: mints[1] as Address,
            list: "community-strict",
            source: "https://lists.example/strict.json (2026-11-01)"
          }
        ])
        yield* drain(2, configFor(server.url))
        const sql = yield* SqlClient.SqlClient
        const counts = yield* sql<{ mint: string; n: string }>`
        select mint, count(*) as n from scans where mint = any(${mints}::text[]) group by mint`
        expect(counts.length).toBe(12)
        for (const row of counts) expect(Number(row.n)).toBe(1)
        const statuses = yield* sql<{ status: string; leased_by: string | null; attempts: number }>`
        select status, leased_by, attempts from scan_requests where mint = any(${mints}::text[])`
        expect(statuses.map((row) => row.status)).toEqual(Array(12).fill("completed"))
        expect(new Set(statuses.map((row) => Number(row.attempts)))).toEqual(new Set([1]))
        // The stored document is v2; the view the routes read comes from it.
        const scans = yield* ScansRepo
        const document = yield* scans.latestDocument(mints[1] as Address)
        expect(Option.getOrThrow(document).provenance.scanner).toBe("risk-api-scanner/0.1.0")
        expect(Option.getOrThrow(document).listed).toEqual([
          { list: "community-strict", source: "https://lists.example/strict.json (2026-11-01)" }
        ])
        expect(Option.getOrThrow(document).issuerVerified).toBeNull()
        const view = yield* scans.latest(mints[1] as Address)
        expect(Option.getOrThrow(view).evidence.tokenProgram).toBe("token-2022")
      }),
    90_000
  )

  it(
    "an address with no account, or one that is a wallet, fails its request at once, with the reason",
    () =>
      Effect.gen(function* () {
        const ghost = (yield* Effect.promise(() => generateKeyPairSigner())).address
        const wallet = (yield* Effect.promise(() => world.signer())).address
        const requests = yield* ScanRequestsRepo
        yield* requests.request(ghost as string as Address)
        yield* requests.request(wallet as string as Address)
        yield* drain(1, configFor(server.url))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ mint: string; status: string; last_error: string }>`
        select mint, status, last_error from scan_requests where mint in (${ghost}, ${wallet})`
        const byMint = new Map(rows.map((row) => [row.mint, row]))
        expect(byMint.get(ghost)?.status).toBe("failed")
        expect(byMint.get(ghost)?.last_error).toContain("no account")
        expect(byMint.get(wallet)?.status).toBe("failed")
        expect(byMint.get(wallet)?.last_error).toContain("not a token mint")
        const scans = yield* sql<{ n: string }>`select count(*) as n from scans where mint in (${ghost}, ${wallet})`
        expect(Number(scans[0]?.n)).toBe(0)
      }),
    60_000
  )

  it(
    "an RPC that keeps failing leaves the request pending with its error and a later retry time",
    () =>
      Effect.gen(function* () {
        const mint = yield* Effect.promise(() => world.mint({ program: "token", decimals: 6 }))
        const requests = yield* ScanRequestsRepo
        yield* requests.request(mint.address as string as Address)
        server.fault({ kind: "malformed", count: 100 })
        const scanner = yield* makeScanner(configFor(server.url, { retries: 0 }))
        const fiber = yield* Effect.fork(scanner.run)
        const sql = yield* SqlClient.SqlClient
        let row: { status: string; last_error: string | null; attempts: number; later: boolean } | undefined
        for (let i = 0; i < 200 && (row?.attempts ?? 0) < 1; i++) {
          yield* Effect.sleep(Duration.millis(25))
          row = (yield* sql<{ status: string; last_error: string | null; attempts: number; later: boolean }>`
          select status, last_error, attempts, not_before > now() as later from scan_requests where mint = ${mint.address}`)[0]
          if (row?.last_error === null) row = { ...row, attempts: 0 }
        }
        yield* Fiber.interrupt(fiber)
        server.reset()
        expect(row?.status).toBe("pending")
        expect(row?.last_error).toContain("malformed JSON")
        expect(row?.later).toBe(true)
      }),
    60_000
  )

  it(
    "a lease that runs out returns the job to the queue; a live lease is skipped",
    () =>
      Effect.gen(function* () {
        const requests = yield* ScanRequestsRepo
        const mint = (yield* Effect.promise(() => world.signer())).address as string as Address
        yield* requests.request(mint)
        const first = yield* requests.claim("worker-a", 50, 200)
        expect(first.map((claim) => claim.mint)).toContain(mint)
        expect((yield* requests.claim("worker-b", 50, 200)).map((claim) => claim.mint)).not.toContain(mint)
        yield* Effect.sleep(Duration.millis(300))
        const second = yield* requests.claim("worker-b", 50, 60_000)
        const taken = second.find((claim) => claim.mint === mint)
        expect(taken?.attempts).toBe(2)
        // The first worker's late answer no longer counts: its lease is gone.
        yield* requests.complete(taken!.id, "worker-a")
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ status: string }>`select status from scan_requests where id = ${taken!.id}`
        expect(row?.status).toBe("pending")
        yield* requests.complete(taken!.id, "worker-b")
      }),
    30_000
  )

  it(
    "watched mints are queued when their latest scan is older than the watch's poll interval",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scans = yield* ScansRepo
        const { Schema } = yield* Effect.promise(() => import("effect"))
        const { ScanEvidence } = yield* Effect.promise(() => import("../../../src/domain/ScanEvidence.ts"))
        const fresh = () => Effect.promise(async () => (await world.signer()).address as string)
        const [due, recent, expired, never] = [yield* fresh(), yield* fresh(), yield* fresh(), yield* fresh()]
        yield* scans.record([
          Schema.decodeUnknownSync(ScanEvidence)({
            mint: due,
            scannedAt: new Date(Date.now() - 120_000).toISOString()
          }),
          Schema.decodeUnknownSync(ScanEvidence)({
            mint: recent,
            scannedAt: new Date(Date.now() - 5_000).toISOString()
          }),
          Schema.decodeUnknownSync(ScanEvidence)({
            mint: expired,
            scannedAt: new Date(Date.now() - 120_000).toISOString()
          })
        ])
        const account = crypto.randomUUID()
        yield* sql`insert into accounts (id, name, plan) values (${account}, 'watcher', 'pro')`
        const watch = (mint: string, expiresIn: string) =>
          sql`insert into watches (id, account_id, mint, rules, poll_seconds, expires_at)
            values (${crypto.randomUUID()}, ${account}, ${mint}, '[]'::jsonb, 60, now() + ${expiresIn}::interval)`
        yield* watch(due, "1 hour")
        yield* watch(recent, "1 hour")
        yield* watch(expired, "-1 minute")
        yield* watch(never, "1 hour")
        const requests = yield* ScanRequestsRepo
        yield* requests.enqueueDue({ staleMs: 600_000, readWindowMs: 3_600_000, limit: 100 })
        const queued = yield* sql<{ mint: string; reason: string; priority: number }>`
        select mint, reason, priority from scan_requests
        where mint in (${due}, ${recent}, ${expired}, ${never}) and status = 'pending' order by mint`
        expect(queued).toEqual([due, never].sort().map((mint) => ({ mint, reason: "watch", priority: 1 })))
      }),
    30_000
  )

  it(
    "mints read recently whose latest scan is stale are queued, most read first; fresh ones are not",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scans = yield* ScansRepo
        const [stale, fresh] = [
          (yield* Effect.promise(() => world.signer())).address,
          (yield* Effect.promise(() => world.signer())).address
        ]
        const scanAt = (mint: string, at: Date) => ({ mint: mint as Address, scannedAt: at.toISOString() })
        const { Schema } = yield* Effect.promise(() => import("effect"))
        const { ScanEvidence } = yield* Effect.promise(() => import("../../../src/domain/ScanEvidence.ts"))
        yield* scans.record([
          Schema.decodeUnknownSync(ScanEvidence)(scanAt(stale, new Date(Date.now() - 3_600_000))),
          Schema.decodeUnknownSync(ScanEvidence)(scanAt(fresh, new Date(Date.now() - 1_000)))
        ])
        yield* sql`insert into mint_reads (mint, reads) values (${stale}, 5), (${fresh}, 50)`
        const requests = yield* ScanRequestsRepo
        yield* requests.enqueueDue({ staleMs: 600_000, readWindowMs: 3_600_000, limit: 100 })
        const queued = yield* sql<{ mint: string; reason: string; priority: number }>`
        select mint, reason, priority from scan_requests where mint in (${stale}, ${fresh}) and status = 'pending'`
        expect(queued).toEqual([{ mint: stale, reason: "read", priority: 2 }])
        // A rescan request for a mint already queued by the scheduler takes the rescan priority.
        yield* requests.request(stale as string as Address)
        const [bumped] = yield* sql<{
          reason: string
          priority: number
        }>`select reason, priority from scan_requests where mint = ${stale} and status = 'pending'`
        expect(bumped).toEqual({ reason: "rescan", priority: 0 })
      }),
    30_000
  )

  it(
    "an idle worker takes a request queued in its process at once, not at its next poll",
    () =>
      Effect.gen(function* () {
        const mint = yield* Effect.promise(() => world.mint({ decimals: 6 }))
        yield* Effect.promise(() => world.holders(mint, [{ amount: 1_000n }]))
        // A poll interval longer than the test: only the wake-up can start the scan.
        const scanner = yield* makeScanner(configFor(server.url, { pollMs: 600_000, concurrency: 1 }))
        const fiber = yield* Effect.fork(scanner.run)
        // The lane's first claim finds nothing and waits for work.
        yield* Effect.sleep(Duration.millis(500))
        const requests = yield* ScanRequestsRepo
        yield* requests.requestPriority(mint.address as string as Address, "launch")
        const scans = yield* ScansRepo
        let latest = yield* scans.latest(mint.address as string as Address)
        for (let i = 0; i < 400 && Option.isNone(latest); i++) {
          yield* Effect.sleep(Duration.millis(50))
          latest = yield* scans.latest(mint.address as string as Address)
        }
        yield* Fiber.interrupt(fiber)
        expect(Option.isSome(latest)).toBe(true)
      }),
    30_000
  )
})

void run
