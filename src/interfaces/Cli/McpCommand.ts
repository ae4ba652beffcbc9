import { Command } from "@effect/cli"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Config, Context, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { SeedDemoOnStart } from "../../features/Demo/seed.ts"
import { ClientAddress } from "../../platform/Request/Request.ts"
import { AppLive, ServicesLive } from "../../platform/Http/App.ts"
import { makeMcpServer, STDIO_KEY_HINT, type Upstream } from "../Mcp/Server.ts"
import { cliLogger } from "../../platform/Observability/Logging.ts"
import { ScansRepo } from "../../features/Scans/ScansRepo.ts"
import { DatabaseLive } from "../../platform/Sql/Database.ts"
import { WalletRepo } from "../../features/WalletRisk/WalletRepo.ts"

const McpConfig = Config.all({
  apiKey: Config.option(Config.redacted("RISK_API_KEY")),
  apiUrl: Config.option(Config.url("RISK_API_URL"))
})

// stdout carries the protocol: logs go to stderr, warnings and worse only.
const StderrLogging = Layer.merge(
  Logger.replace(Logger.defaultLogger, cliLogger),
  Logger.minimumLogLevel(LogLevel.Warning)
)

// The app in process, as the server runs it (migrations applied, a new embedded database seeded).
const inProcess = Effect.gen(function* () {
  const services = yield* Layer.build(
    // The seed first, as `serve` does: the services' background reads would wait behind it for the one connection.
    ServicesLive.pipe(
      Layer.provideMerge(
        SeedDemoOnStart.pipe(Layer.provide([ScansRepo.Default, WalletRepo.Default]), Layer.provideMerge(DatabaseLive))
      )
    )
  )
  const { dispose, handler } = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(AppLive.pipe(Layer.provide(Layer.succeedContext(services))), HttpServer.layerContext, StderrLogging)
  )
  yield* Effect.addFinalizer(() => Effect.promise(dispose))
  return (request: Request) => handler(request, Context.make(ClientAddress, "stdio"))
})

// A running server: each tool call is its HTTP request to RISK_API_URL.
const remote =
  (base: URL): Upstream =>
  (request) => {
    const { pathname, search } = new URL(request.url)
    return fetch(new Request(new URL(`${pathname}${search}`, base).href, request))
  }

export const mcpCommand = Command.make("mcp", {}, () =>
  Effect.gen(function* () {
    const { apiKey, apiUrl } = yield* McpConfig
    const upstream = Option.isSome(apiUrl) ? remote(apiUrl.value) : yield* inProcess
    const headers: Record<string, string> = Option.match(apiKey, {
      onNone: () => ({}),
      onSome: (key) => ({ authorization: `Bearer ${Redacted.value(key)}` })
    })
    const server = makeMcpServer({ upstream, headers, keyHint: STDIO_KEY_HINT })
    yield* Effect.promise(() => server.connect(new StdioServerTransport()))
    // Until the client closes stdin (or the process is stopped).
    yield* Effect.async<void>((resume) => {
      server.onclose = () => resume(Effect.void)
      process.stdin.once("end", () => void server.close())
    })
  }).pipe(Effect.scoped, Effect.provide(StderrLogging))
).pipe(
  Command.withDescription(
    "Serve the MCP tools over stdio. RISK_API_KEY: the API key sent with every keyed tool call. RISK_API_URL: call a " +
      "running server (e.g. http://localhost:3000) instead of opening the database in this process."
  )
)
