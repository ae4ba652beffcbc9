import { FetchHttpClient, HttpApiBuilder, HttpApiClient, HttpServer } from "@effect/platform"
import { afterAll } from "bun:test"
import { type Context, Effect, Layer, Logger, LogLevel } from "effect"
import { RiskApi } from "../../src/Api.ts"
import { AppLive, type AppServices } from "../../src/platform/Http/App.ts"

export type { AppServices }

/** The real HttpApi app (routing, middleware, envelope, OpenAPI) in process, over the given services. */
export const testApp = (services: Context.Context<AppServices>) => {
  const { dispose, handler } = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(
      AppLive.pipe(Layer.provide(Layer.succeedContext(services))),
      HttpServer.layerContext,
      Logger.minimumLogLevel(LogLevel.Warning) // request lines would drown the test output
    )
  )
  afterAll(() => dispose())
  return (path: string, init?: RequestInit): Promise<Response> => handler(new Request(`http://localhost${path}`, init))
}

type App = ReturnType<typeof testApp>

/**
 * The typed client of the same HttpApi definition, calling the in-process app: a success is the decoded
 * body, a failure the decoded error class (from its envelope), so a route test reads like a caller's code.
 */
export const testClient = (app: App, headers: Record<string, string> = {}) =>
  Effect.runSync(
    HttpApiClient.make(RiskApi, { baseUrl: "http://localhost" }).pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(FetchHttpClient.Fetch, ((input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : String(input))
        const merged = new Headers(init?.headers)
        for (const [name, value] of Object.entries(headers)) merged.set(name, value)
        return app(`${url.pathname}${url.search}`, { ...init, headers: merged })
      }) as typeof fetch)
    )
  )

/** A POST as an HTTP client sends it, Content-Length included. */
export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers },
    body: text
  }
}

/** Status, headers we assert on, and the parsed body, for readable failure output. */
// Bodies are whatever the server sent: tests index into them freely and assert on the values.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any

export const read = async (
  response: Response
): Promise<{ status: number; headers: Record<string, string>; body: Body }> => ({
  status: response.status,
  headers: Object.fromEntries(response.headers),
  body: response.headers.get("content-type")?.includes("json") ? await response.json() : await response.text()
})
