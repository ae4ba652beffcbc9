import { Args, Command, Options } from "@effect/cli"
import { Console, Data, Effect, Layer, Option, Schema } from "effect"
import { parseAddress } from "../../domain/Address.ts"
import { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { registry } from "../../platform/Observability/Metrics.ts"
import { ServerLoggingLive } from "../../platform/Observability/Logging.ts"
import { ListingsRepo } from "../../features/Scans/ListingsRepo.ts"
import { ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../features/Scans/ScansRepo.ts"
import { endpointsOf, ScannerConfig } from "../../workers/Scanner/Config.ts"
import { makeScanner } from "../../workers/Scanner/Worker.ts"
import { databaseLayer, DatabaseLive } from "../../platform/Sql/Database.ts"
import { insidersSummaryOf } from "./InsidersSummary.ts"

// `risk-api scanner` (the long-running worker) and `risk-api scan <mint>` (one scan, now).

/** SOLANA_RPC_URL is required for these commands. */
export class ScannerNotConfigured extends Data.TaggedError("ScannerNotConfigured")<{ readonly message: string }> {}

const configured = Effect.flatMap(ScannerConfig, (config) =>
  endpointsOf(config).length === 0
    ? Effect.fail(
        new ScannerNotConfigured({
          message: "SOLANA_RPC_URL is not set (a Solana JSON-RPC endpoint, e.g. your provider's URL)"
        })
      )
    : Effect.succeed(config)
)

const Repositories = Layer.mergeAll(ScansRepo.Default, ScanRequestsRepo.Default, ListingsRepo.Default)

const metricsPort = Options.integer("metrics-port").pipe(
  Options.optional,
  Options.withDescription("Serve the scanner's Prometheus metrics on this port (GET /metrics).")
)

export const scannerCommand = Command.make("scanner", { metricsPort }, ({ metricsPort }) =>
  Effect.gen(function* () {
    const config = yield* configured
    if (Option.isSome(metricsPort)) {
      const server = Bun.serve({
        port: metricsPort.value,
        hostname: "127.0.0.1",
        fetch: async (request) =>
          new URL(request.url).pathname === "/metrics"
            ? new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } })
            : new Response("not found", { status: 404 })
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => server.stop()))
    }
    const scanner = yield* makeScanner(config)
    return yield* scanner.run
  }).pipe(
    Effect.scoped,
    // The worker waits for its database as long as it takes, like the server.
    Effect.provide(Repositories.pipe(Layer.provideMerge(databaseLayer("forever")))),
    Effect.provide(ServerLoggingLive)
  )
).pipe(
  Command.withDescription(
    "Run the scanner: drain rescan requests, due watches and stale popular mints, reading Solana over SOLANA_RPC_URL."
  )
)

const mint = Args.text({ name: "mint" }).pipe(Args.withDescription("The mint address to scan."))
const print = Options.boolean("print").pipe(
  Options.withDescription(
    "Print the evidence (format v2, one NDJSON line) instead of storing it; the insiders block also as text on stderr."
  )
)

const encodeV2 = Schema.encodeSync(ScanEvidenceV2)

export const scanCommand = Command.make("scan", { mint, print }, ({ mint, print }) =>
  Effect.gen(function* () {
    const address = yield* parseAddress(mint)
    const config = yield* configured
    const scanner = yield* makeScanner(config)
    const evidence = yield* print ? scanner.scan(address) : scanner.scanAndStore(address)
    if (print) {
      // The evidence on stdout (one JSON line); the insiders block as text on stderr, for a person.
      if (evidence.insiders !== undefined) yield* Console.error(insidersSummaryOf(evidence.insiders).join("\n"))
      return yield* Console.log(JSON.stringify(encodeV2(evidence)))
    }
    yield* Console.log(
      `stored a ${evidence.scanDepth} scan of ${address} at slot ${evidence.provenance.slot} ` +
        `(${evidence.provenance.rpcCalls} RPC calls, ${evidence.provenance.durationMs} ms)` +
        (evidence.provenance.partial.length === 0 ? "" : `; not observed: ${evidence.provenance.partial.join("; ")}`)
    )
  }).pipe(Effect.provide(Repositories.pipe(Layer.provideMerge(DatabaseLive))))
).pipe(
  Command.withDescription("Scan one mint now over SOLANA_RPC_URL and store the evidence (or print it with --print).")
)
