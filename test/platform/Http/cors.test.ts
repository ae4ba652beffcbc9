import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { afterAll, describe, expect, test } from "bun:test"
import { ConfigProvider, Layer, Logger, LogLevel } from "effect"
import { AppLive } from "../../../src/platform/Http/App.ts"
import { runtimeFor } from "../../support/effect.ts"
import { postJson, read } from "../../support/http.ts"
import { memoryServices } from "../../support/layers.ts"

// CORS: the public risk-check routes answer any origin, the keyed routes only the configured ones (none by
// default), a preflight on a path that exists is a 204, and OPTIONS anywhere else is still the 404 envelope.
const { runtime } = runtimeFor(memoryServices())
const services = (await runtime.runtime()).context

const appWith = (env: Record<string, string>) => {
  const { dispose, handler } = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(
      AppLive.pipe(Layer.provide(Layer.succeedContext(services))),
      HttpServer.layerContext,
      Logger.minimumLogLevel(LogLevel.Warning)
    ).pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  )
  afterAll(() => dispose())
  return (path: string, init?: RequestInit) => handler(new Request(`http://localhost${path}`, init))
}

const byDefault = appWith({})
const configured = appWith({ CORS_ALLOWED_ORIGINS: "https://dashboard.example.org,http://localhost:5173" })

const MINT = "3RPwfg3zWDUQQTX1ybf6rUiyHZDizbSJGRyMLtd5bUDN"
const EXPOSED =
  "RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, " +
  "X-Quota-Limit, X-Quota-Remaining, Retry-After, X-Request-Id"
const cors = (headers: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => name.startsWith("access-control-") || name === "vary" || name === "allow"
    )
  )
const preflight = (_path: string, origin: string, method: string, requested = "content-type") => ({
  method: "OPTIONS",
  headers: { origin, "access-control-request-method": method, "access-control-request-headers": requested }
})

describe("public risk-check routes", () => {
  test("a preflight from any origin is a 204 that allows the route's methods and headers", async () => {
    const { status, headers, body } = await read(
      await byDefault(`/api/risk-check/${MINT}`, preflight(`/api/risk-check/${MINT}`, "https://any.example", "GET"))
    )
    expect({ status, body, cors: cors(headers) }).toEqual({
      status: 204,
      body: "",
      cors: {
        allow: "GET, HEAD, OPTIONS",
        "access-control-allow-origin": "*",
        "access-control-expose-headers": EXPOSED,
        "access-control-allow-methods": "GET, HEAD, OPTIONS",
        "access-control-allow-headers": "Content-Type, X-Api-Key, X-Request-Id",
        "access-control-max-age": "600"
      }
    })
    expect(headers["x-request-id"]).toBeString()
  })

  test("answers, errors included, carry Allow-Origin * and expose the rate-limit and request-id headers", async () => {
    const origin = { origin: "https://any.example" }
    const answers = await Promise.all([
      byDefault(`/api/risk-check/${MINT}`, { headers: origin }),
      byDefault("/api/risk-check/not-a-mint", { headers: origin }),
      byDefault("/api/risk-check/batch", postJson({ addresses: [MINT] }, origin)),
      byDefault("/openapi.json", { headers: origin })
    ])
    expect(
      answers.map((response) => [
        response.status,
        response.headers.get("access-control-allow-origin"),
        response.headers.get("access-control-expose-headers")
      ])
    ).toEqual([
      [200, "*", EXPOSED],
      [400, "*", EXPOSED],
      [200, "*", EXPOSED],
      [200, "*", EXPOSED]
    ])
  })
})

describe("keyed routes", () => {
  test("by default no origin is allowed: a preflight gets no CORS header, answers neither", async () => {
    const pre = await read(
      await byDefault(
        "/api/v1/token/risk",
        preflight("/api/v1/token/risk", "https://dashboard.example.org", "POST", "authorization, content-type")
      )
    )
    const answer = await byDefault(
      "/api/v1/token/risk",
      postJson({ address: MINT }, { origin: "https://dashboard.example.org" })
    )
    expect([pre.status, cors(pre.headers), answer.status, cors(Object.fromEntries(answer.headers))]).toEqual([
      204,
      { allow: "POST, OPTIONS" },
      401,
      {}
    ])
  })

  test("a configured origin is allowed, echoed with Vary: Origin; another origin is not", async () => {
    const allowed = await read(
      await configured(
        "/api/v1/token/risk",
        preflight("/api/v1/token/risk", "http://localhost:5173", "POST", "authorization, content-type")
      )
    )
    expect([allowed.status, cors(allowed.headers)]).toEqual([
      204,
      {
        allow: "POST, OPTIONS",
        "access-control-allow-origin": "http://localhost:5173",
        "access-control-expose-headers": EXPOSED,
        vary: "Origin",
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers": "Authorization, Content-Type, X-Request-Id",
        "access-control-max-age": "600"
      }
    ])
    const answer = await read(
      await configured("/api/v1/token/risk", postJson({ address: MINT }, { origin: "https://dashboard.example.org" }))
    )
    expect([answer.status, answer.body.error.code, cors(answer.headers), answer.headers["cache-control"]]).toEqual([
      401,
      "unauthorized",
      {
        "access-control-allow-origin": "https://dashboard.example.org",
        "access-control-expose-headers": EXPOSED,
        vary: "Origin"
      },
      "no-store"
    ])
    const other = await configured(
      "/api/v1/token/risk",
      postJson({ address: MINT }, { origin: "https://evil.example" })
    )
    expect([other.headers.get("access-control-allow-origin"), other.headers.get("vary")]).toEqual([null, "Origin"])
  })
})

describe("OPTIONS elsewhere", () => {
  test("on an unknown path it is the 404 envelope, without CORS headers", async () => {
    const { status, headers, body } = await read(
      await configured("/api/nothing-here", preflight("/api/nothing-here", "http://localhost:5173", "GET"))
    )
    expect([status, body.error.code, body.error.message, cors(headers)]).toEqual([
      404,
      "not_found",
      "No route for OPTIONS /api/nothing-here.",
      {}
    ])
  })
})
