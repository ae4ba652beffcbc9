import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Effect, Runtime } from "effect"
import { HTTP_KEY_HINT, makeMcpServer, type Upstream } from "./Server.ts"

const MCP_PATH = "/mcp"

// The caller's credentials travel with each tool call; nothing else of the MCP request does.
const FORWARDED = ["authorization", "x-api-key"] as const

// A tool call re-enters the whole app as its own request (its own id, envelope, log line and metrics),
// in the runtime of the MCP request, so it keeps the client's address for the public rate limit.
const upstreamOf = (api: HttpApp.Default) =>
  Effect.map(
    Effect.runtime<never>(),
    (runtime): Upstream =>
      (call) =>
        Runtime.runPromise(runtime)(
          api.pipe(
            Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(call)),
            Effect.map((response) => HttpServerResponse.toWeb(response, { runtime }))
          )
        )
  )

const serve = (request: HttpServerRequest.HttpServerRequest, api: HttpApp.Default) =>
  Effect.gen(function* () {
    const headers: Record<string, string> = {}
    for (const name of FORWARDED) {
      const value = request.headers[name]
      if (value !== undefined) headers[name] = value
    }
    const server = makeMcpServer({ upstream: yield* upstreamOf(api), headers, keyHint: HTTP_KEY_HINT })
    // Stateless: one server and transport per request, answers as JSON (no session, no SSE stream).
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
    const body = yield* Effect.orElseSucceed(request.text, () => "")
    const web = new Request(`http://localhost${MCP_PATH}`, { method: "POST", headers: request.headers, body })
    return yield* Effect.acquireUseRelease(
      Effect.promise(() => server.connect(transport)),
      () =>
        Effect.map(
          Effect.promise(() => transport.handleRequest(web)),
          HttpServerResponse.fromWeb
        ),
      () => Effect.promise(() => server.close())
    )
  })

/**
 * MCP over Streamable HTTP at POST /mcp, in front of `app`; each tool call is answered by `api()`, the app
 * with its envelope (the caller of this function passes it lazily, as it wraps the result).
 */
export const withMcp = (app: HttpApp.Default, api: () => HttpApp.Default): HttpApp.Default =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.method === "POST" && request.url.split("?")[0] === MCP_PATH ? serve(request, api()) : app
  )
