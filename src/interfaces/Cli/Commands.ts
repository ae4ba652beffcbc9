import { Args, Command, Options } from "@effect/cli"
import { Console, Context, Effect, Layer, Option } from "effect"
import { Accounts } from "../../features/Accounts/Accounts.ts"
import { Quota } from "../../features/Accounts/Quota.ts"
import { MIN_DEMO_TOKENS } from "../../features/Demo/generate.ts"
import { SeedDemoOnStart, seedDemo } from "../../features/Demo/seed.ts"
import { ServicesLive } from "../../platform/Http/App.ts"
import { serveApi } from "../../platform/Http/Server.ts"
import { ServerLoggingLive } from "../../platform/Observability/Logging.ts"
import { endpointsOf, ScannerConfig } from "../../workers/Scanner/Config.ts"
import { makeScanner } from "../../workers/Scanner/Worker.ts"
import { fileLines, type ImportReport } from "../../platform/Import/Ndjson.ts"
import { importListings, importScans } from "../../features/Scans/Import.ts"
import { importWalletEvidence } from "../../features/WalletRisk/Import.ts"
import { ListingsRepo } from "../../features/Scans/ListingsRepo.ts"
import { ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../features/Scans/ScansRepo.ts"
import { databaseLayer, DatabaseLive } from "../../platform/Sql/Database.ts"
import { VERSION } from "../../features/System/Version.ts"
import { WalletRepo } from "../../features/WalletRisk/WalletRepo.ts"
import { runWebhookBackground } from "../../features/Webhooks/Background.ts"
import { WebhookSettings } from "../../features/Webhooks/Config.ts"
import { accountsCommand, keysCommand } from "./AccountCommands.ts"
import { ImportFailed } from "./ImportFailed.ts"
import { importMarketCommand } from "./MarketCommands.ts"
import { scanCommand, scannerCommand } from "./ScannerCommands.ts"
import { watcherCommand } from "./WatcherCommand.ts"
import { StreamConfig } from "../../workers/Stream/Config.ts"
import { StreamEventsRepo } from "../../workers/Stream/EventsRepo.ts"
import { runWatcher, streamConfigured } from "../../workers/Stream/Run.ts"
import { mcpCommand } from "./McpCommand.ts"
import { pruneScansCommand } from "./ScansCommands.ts"

export { ImportFailed } from "./ImportFailed.ts"

// One-shot commands use the repositories directly, on a database they wait for briefly.
const WithDatabase = Layer.mergeAll(
  ScansRepo.Default,
  WalletRepo.Default,
  ScanRequestsRepo.Default,
  ListingsRepo.Default,
  Accounts.Default,
  Quota.Default
).pipe(Layer.provideMerge(DatabaseLive))

// The server waits for its database as long as it takes, then seeds a new embedded one, and only then
// builds the services: their background reads (the scan cache's poll) would otherwise wait behind the seed
// for the embedded database's one connection and time out.
const ServeDatabase = databaseLayer("forever")
const SeededDatabase = SeedDemoOnStart.pipe(
  Layer.provide([ScansRepo.Default, WalletRepo.Default]),
  Layer.provideMerge(ServeDatabase)
)
const ServeServices = ServicesLive.pipe(Layer.provideMerge(SeededDatabase))

const serve = Command.make("serve", {}, () =>
  Effect.gen(function* () {
    const services = yield* Layer.build(ServeServices)
    yield* serveApi(services, ServerLoggingLive)
    // Watch alerts: every server evaluates new scans and delivers webhooks (any number of processes share the work).
    yield* runWebhookBackground(Context.get(services, WebhookSettings)).pipe(
      Effect.provide(Layer.succeedContext(services))
    )
    // One process serves a laptop: with SOLANA_RPC_URL set, the scanner runs beside the server.
    const scanner = yield* ScannerConfig
    if (endpointsOf(scanner).length > 0) {
      yield* makeScanner(scanner).pipe(
        Effect.flatMap((worker) => worker.run),
        Effect.provide(ListingsRepo.Default.pipe(Layer.provideMerge(Layer.succeedContext(services)))),
        Effect.forkScoped
      )
    }
    // With SOLANA_WS_URL or SOLANA_GRPC_URL set too, the launch and event stream queues scans for that scanner.
    const stream = yield* StreamConfig
    if (streamConfigured(stream, scanner)) {
      yield* runWatcher(stream, scanner).pipe(
        Effect.provide(StreamEventsRepo.Default.pipe(Layer.provideMerge(Layer.succeedContext(services)))),
        Effect.forkScoped
      )
    }
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.provide(ServerLoggingLive))
).pipe(
  Command.withDescription(
    "Start the HTTP server (applies migrations first; seeds demo data on a new embedded database); with SOLANA_RPC_URL set, the scanner too, and with SOLANA_WS_URL or SOLANA_GRPC_URL as well, the launch and event stream."
  )
)

const migrate = Command.make("migrate", {}, () =>
  Effect.zipRight(Layer.build(DatabaseLive).pipe(Effect.scoped), Console.log("migrations applied"))
).pipe(Command.withDescription("Apply the SQL migrations to the configured database and exit."))

const files = Args.file({ name: "file", exists: "yes" }).pipe(
  Args.atLeast(1),
  Args.withDescription("NDJSON files, one scan per line (see docs/scan-evidence.md).")
)

const reportImport = (file: string, report: ImportReport) =>
  Effect.gen(function* () {
    for (const error of report.errors) yield* Console.error(`${file}:${error.line}: ${error.reason}`)
    if (report.invalid > report.errors.length) {
      yield* Console.error(`${file}: ${report.invalid - report.errors.length} more invalid lines not listed`)
    }
    yield* Console.log(
      `${file}: ${report.lines} lines, ${report.inserted} imported, ${report.duplicates} already present, ${report.invalid} invalid`
    )
    const claims =
      "unverifiedIssuerClaims" in report && typeof report.unverifiedIssuerClaims === "number"
        ? report.unverifiedIssuerClaims
        : 0
    if (claims > 0)
      yield* Console.log(
        `${file}: ${claims} lines claimed issuer verification for a mint not on the curated list: stored as not verified`
      )
    return report.invalid === 0
  })

const importFiles = <E, R>(files: ReadonlyArray<string>, run: (file: string) => Effect.Effect<ImportReport, E, R>) =>
  Effect.gen(function* () {
    let allValid = true
    for (const file of files)
      allValid = (yield* Effect.flatMap(run(file), (report) => reportImport(file, report))) && allValid
    if (!allValid) return yield* Effect.fail(new ImportFailed())
  })

const importCommand = Command.make("import", { files }, ({ files }) =>
  importFiles(files, (file) => importScans(fileLines(file))).pipe(Effect.provide(WithDatabase))
).pipe(
  Command.withDescription("Import scans from NDJSON files. Exits 1 if any line was invalid; re-importing is a no-op.")
)

const walletFiles = Args.file({ name: "file", exists: "yes" }).pipe(
  Args.atLeast(1),
  Args.withDescription("NDJSON files of wallet labels and exposures (see docs/wallet-evidence.md).")
)

const importWallets = Command.make("import-wallets", { files: walletFiles }, ({ files }) =>
  importFiles(files, (file) => importWalletEvidence(fileLines(file))).pipe(Effect.provide(WithDatabase))
).pipe(Command.withDescription("Import wallet labels and exposures from NDJSON. Exits 1 if any line was invalid."))

const listingFiles = Args.file({ name: "file", exists: "yes" }).pipe(
  Args.atLeast(1),
  Args.withDescription("NDJSON files of {mint, list, source} lines (see docs/scan-evidence.md, Listings).")
)

const importListingsCommand = Command.make("import-listings", { files: listingFiles }, ({ files }) =>
  importFiles(files, (file) => importListings(fileLines(file))).pipe(Effect.provide(WithDatabase))
).pipe(
  Command.withDescription(
    "Import community token lists (which lists include which mints); the scanner writes them into `listed`."
  )
)

const limit = Options.integer("limit").pipe(
  Options.withDefault(100),
  Options.filterMap(
    (n) => (n >= 1 && n <= 100_000 ? Option.some(n) : Option.none()),
    "--limit must be between 1 and 100000"
  ),
  Options.withDescription("How many to list, oldest first.")
)
const json = Options.boolean("json").pipe(Options.withDescription("One JSON object per line instead of a table."))

const scanRequests = Command.make("scan-requests", { limit, json }, ({ json, limit }) =>
  Effect.gen(function* () {
    const pending = yield* Effect.flatMap(ScanRequestsRepo, (repo) => repo.pending(limit))
    if (json) {
      for (const request of pending) yield* Console.log(JSON.stringify(request))
      return
    }
    yield* Console.log(["mint", "requested_at", "last_requested_at", "count", "id"].join("\t"))
    for (const r of pending) {
      yield* Console.log(
        [r.mint, r.requestedAt.toISOString(), r.lastRequestedAt.toISOString(), r.requestCount, r.id].join("\t")
      )
    }
  }).pipe(Effect.provide(WithDatabase))
).pipe(
  Command.withDescription("List pending scan requests for an external scanner (completed by importing a newer scan).")
)

const tokens = Options.integer("tokens").pipe(
  Options.withDefault(300),
  Options.filterMap(
    (n) => (n >= MIN_DEMO_TOKENS && n <= 1_000_000 ? Option.some(n) : Option.none()),
    `--tokens must be between ${MIN_DEMO_TOKENS} and 1000000`
  ),
  Options.withDescription(`How many demo tokens (at least ${MIN_DEMO_TOKENS}).`)
)
const seed = Options.integer("seed").pipe(Options.withDefault(42), Options.withDescription("PRNG seed."))
const print = Options.boolean("print").pipe(
  Options.withDescription("Print the scans as NDJSON on stdout instead of storing them.")
)
const walletsOnly = Options.boolean("wallets").pipe(
  Options.withDescription("With --print: print the demo wallet labels and exposures instead of the scans.")
)

const demo = Command.make("seed-demo", { tokens, seed, print, wallets: walletsOnly }, (options) =>
  options.print
    ? seedDemo.print(options)
    : Effect.flatMap(seedDemo.store(options), (stored) =>
        Console.log(`stored ${stored.scans} demo scans and ${stored.walletRecords} wallet records`)
      ).pipe(Effect.provide(WithDatabase))
).pipe(
  Command.withDescription(
    "Generate the deterministic demo dataset (scans timed relative to now) and store or print it."
  )
)

const version = Command.make("version", {}, () => Console.log(VERSION)).pipe(
  Command.withDescription("Print the version.")
)

const accounts = accountsCommand.pipe(Command.provide(WithDatabase))
const keys = keysCommand.pipe(Command.provide(WithDatabase))

const cli = Command.make("risk-api").pipe(
  Command.withDescription("Solana token and wallet risk evidence API."),
  Command.withSubcommands([
    serve,
    migrate,
    importCommand,
    importWallets,
    scanRequests,
    importListingsCommand,
    importMarketCommand,
    demo,
    accounts,
    keys,
    scannerCommand,
    scanCommand,
    watcherCommand,
    mcpCommand,
    pruneScansCommand,
    version
  ])
)

export const runCli = Command.run(cli, { name: "risk-api", version: VERSION })
