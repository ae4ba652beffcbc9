import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { type ErrorEnvelope, makeClient, NotScanned, requestDefaults } from "../../../src/interfaces/Client/index.ts"
import { makeClient as makePromiseClient } from "../../../src/interfaces/Client/promise.ts"
import { envelope, InvalidRequest } from "../../../src/domain/Errors.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"

// The client's own behaviour, in process: defaults filled in, the envelope kept on typed errors.
const { run, runtime } = runtimeFor(sqlServices())
const app = testApp((await runtime.runtime()).context)
const key = await run(
  Effect.gen(function* () {
    const account = yield* Accounts.create("client", { plan: "pro" })
    return (yield* Accounts.createKey(account.id, ["token:risk:read", "watch:write", "deployer:history:read"], null))
      .key
  })
)

const inProcess = ((input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  return app(`${url.pathname}${url.search}`, init)
}) as typeof fetch
const client = makeClient({ baseUrl: "http://localhost", apiKey: key, fetch: inProcess })

describe("makeClient", () => {
  test("the request fields with server defaults are those the client's types make optional", () => {
    const defaulted = Object.entries(requestDefaults).flatMap(([group, endpoints]) =>
      Object.entries(endpoints).flatMap(([name, parts]) =>
        Object.entries(parts).flatMap(([part, defaults]) =>
          Object.keys(defaults).length === 0
            ? []
            : [`${group}.${name}.${part}: ${Object.keys(defaults).sort().join(",")}`]
        )
      )
    )
    // The `Defaulted` table in src/interfaces/Client/index.ts names the same fields; update both together.
    expect(defaulted).toEqual([
      "deployer.history.urlParams: limit",
      "watch.setWatch.payload: pollSeconds,ttlSeconds",
      "webhook.listWebhookDeliveries.urlParams: limit"
    ])
  })

  test("fills in the defaults the caller leaves out, and sends the key", async () => {
    const mint = cleanScan(newAddress())
    await run(ScansRepo.record([decodeScan(mint)]))
    const watch = await Effect.runPromise(
      client.watch.setWatch({
        payload: {
          mint: mint.mint,
          rules: [{ metric: "safety_score", comparison: "lt", threshold: 50 }],
          pollSeconds: 60
        }
      })
    )
    expect([watch.data.poll_seconds, Date.parse(watch.data.expires_at) - Date.parse(watch.data.created_at)]).toEqual([
      60, 86_400_000
    ])
    const history = await Effect.runPromise(client.deployer.history({ path: { wallet: newAddress() }, urlParams: {} }))
    expect(history.data.page.limit).toBe(50)
  })

  test("a typed error keeps the envelope's code, request id and details", async () => {
    const [notScanned, response] = await Effect.runPromise(
      Effect.flip(client.token.risk({ payload: { address: newAddress() } })).pipe(
        Effect.map((error) => [error, error] as const)
      )
    )
    expect(notScanned).toBeInstanceOf(NotScanned)
    if (notScanned._tag !== "NotScanned") throw new Error(`got ${notScanned._tag}`)
    expect({
      code: notScanned.code,
      requestId: typeof notScanned.requestId,
      message: notScanned.message.slice(0, 30)
    }).toEqual({ code: "not_scanned", requestId: "string", message: response.message.slice(0, 30) })
    const invalid = await Effect.runPromise(
      Effect.flip(client.deployer.history({ path: { wallet: newAddress() }, urlParams: { cursor: "not-a-cursor" } }))
    )
    if (invalid._tag !== "InvalidRequest") throw new Error(`got ${invalid._tag}: ${invalid.message}`)
    expect([invalid.code, invalid.requestId.length > 8]).toEqual(["invalid_request", true])
  })

  test("details are kept too (the client validates its own requests, so the envelope is decoded directly)", () => {
    const body = {
      error: {
        code: "invalid_request",
        message: "addresses: required",
        requestId: "r-1",
        details: [{ path: "addresses", message: "required" }]
      }
    }
    const decoded = Schema.decodeUnknownSync(envelope(InvalidRequest))(body)
    expect(decoded).toBeInstanceOf(InvalidRequest)
    const { code, details, message, requestId } = decoded as InvalidRequest & ErrorEnvelope
    expect({ code, details, message, requestId }).toEqual(body.error)
  })
})

// The default (Promise) entry's runtime; its declarations are checked by package.test.ts on the packed client.
type PromiseCall = (request?: object) => Promise<{ ok: boolean; status?: number; data?: unknown; error?: unknown }>
const promiseClient = (fetch: typeof globalThis.fetch) =>
  makePromiseClient({ baseUrl: "http://localhost", apiKey: key, fetch }) as Record<string, Record<string, PromiseCall>>

describe("makeClient (Promise)", () => {
  test("resolves a success with its status, headers and decoded body; an API error as the envelope with its status", async () => {
    const client = promiseClient(inProcess)
    const health = await client.system!.health!()
    expect([
      health.ok,
      health.status,
      typeof (health as { headers?: Record<string, string> }).headers?.["x-request-id"]
    ]).toEqual([true, 200, "string"])
    const failure = await client.token!.risk!({ payload: { address: newAddress() } })
    const error = failure.error as { code: string; status: number; requestId: string; message: string }
    expect([failure.ok, error.code, error.status, error.requestId.length > 8, error.message.length > 0]).toEqual([
      false,
      "not_scanned",
      404,
      true,
      true
    ])
  })

  test("resolves (never rejects) with a client-side code when there is no answer, or one the contract does not describe", async () => {
    const down = await promiseClient((() => Promise.reject(new TypeError("fetch failed"))) as unknown as typeof fetch)
      .system!.health!()
    expect([down.ok, (down.error as { code: string }).code]).toEqual([false, "request_failed"])
    const teapot = await promiseClient((() =>
      Promise.resolve(new Response("tea", { status: 418 }))) as unknown as typeof fetch).system!.health!()
    expect([
      teapot.ok,
      (teapot.error as { code: string; status: number }).code,
      (teapot.error as { status: number }).status
    ]).toEqual([false, "unexpected_response", 418])
    const garbled = await promiseClient((() =>
      Promise.resolve(Response.json({ status: 42 }, { status: 200 }))) as unknown as typeof fetch).system!.health!()
    expect([garbled.ok, (garbled.error as { code: string }).code]).toEqual([false, "schema_mismatch"])
  })
})
