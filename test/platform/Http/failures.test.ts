import { describe, expect, test } from "bun:test"
import { memoryServices } from "../../support/layers.ts"
import { ScanRequestsRepo } from "../../../src/features/Scans/ScanRequestsRepo.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { SqlError } from "@effect/sql"
import { HttpServerRequest } from "@effect/platform"
import { Cause, ConfigProvider, Effect, FiberId, Layer, Logger, LogLevel, Scope } from "effect"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { classify } from "../../../src/platform/Http/Envelope.ts"
import { ServiceUnavailable } from "../../../src/domain/Errors.ts"
import { runtimeFor } from "../../support/effect.ts"
import { read, testApp } from "../../support/http.ts"
import { newAddress } from "../../support/fixtures.ts"

// Services that fail the way a lost database and a bug do: the envelope says 503 and 500, and leaks nothing.
const down = Layer.succeed(
  ScansRepo,
  ScansRepo.make({
    latest: () =>
      Effect.fail(new ServiceUnavailable({ message: "The evidence database is unreachable; retry shortly." })),
    latestMany: () =>
      Effect.die(new SqlError.SqlError({ cause: new Error("ECONNREFUSED 10.0.0.7:5432"), message: "connect failed" })),
    latestVerdicts: () =>
      Effect.die(new SqlError.SqlError({ cause: new Error("ECONNREFUSED 10.0.0.7:5432"), message: "connect failed" })),
    record: () => Effect.die(new Error("not used")),
    history: () => Effect.die(new Error("not used")),
    latestDocument: () => Effect.die(new Error("not used"))
  })
)
const buggy = Layer.succeed(
  ScanRequestsRepo,
  ScanRequestsRepo.make({
    awaitWork: () => Effect.die(new Error("not used")),
    request: () => Effect.die(new Error("secret internals: password=hunter2")),
    requestPriority: () => Effect.die(new Error("not used")),
    pending: () => Effect.die(new Error("not used")),
    claim: () => Effect.die(new Error("not used")),
    fail: () => Effect.die(new Error("not used")),
    complete: () => Effect.die(new Error("not used")),
    enqueueDue: () => Effect.die(new Error("not used")),
    depth: () => Effect.die(new Error("not used"))
  })
)
const { runtime } = runtimeFor(memoryServices({ scans: down, scanRequests: buggy }))
const app = testApp((await runtime.runtime()).context)

// A repository that never answers, behind an app whose request deadline is 200 ms.
const hanging = Layer.succeed(
  ScansRepo,
  ScansRepo.make({
    latest: () => Effect.never,
    latestMany: () => Effect.never,
    latestVerdicts: () => Effect.never,
    record: () => Effect.die(new Error("not used")),
    history: () => Effect.die(new Error("not used")),
    latestDocument: () => Effect.die(new Error("not used"))
  })
)
const slow = runtimeFor(memoryServices({ scans: hanging }))
const slowServer = await Effect.runPromise(
  Scope.extend(
    makeServerFetch((await slow.runtime.runtime()).context, Logger.minimumLogLevel(LogLevel.Warning)),
    Effect.runSync(Scope.make())
  ).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["REQUEST_TIMEOUT_MS", "200"]]))))
)

describe("failure statuses", () => {
  test("a typed unavailable database is 503 service_unavailable with Retry-After", async () => {
    const got = await read(await app(`/api/risk-check/${newAddress()}`))
    expect({ status: got.status, code: got.body.error.code, retry: got.headers["retry-after"] }).toEqual({
      status: 503,
      code: "service_unavailable",
      retry: "5"
    })
  })

  test("a SQL defect is 503 too, without the driver's message", async () => {
    const got = await read(
      await app("/api/risk-check/batch", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ addresses: [newAddress()] })
      })
    )
    expect({ status: got.status, code: got.body.error.code }).toEqual({ status: 503, code: "service_unavailable" })
    expect(JSON.stringify(got.body)).not.toContain("ECONNREFUSED")
  })

  test("a request still running at REQUEST_TIMEOUT_MS is answered 503 with Retry-After, not left hanging", async () => {
    // A single check waits on the cache's read (the fast path's own deadline); a batch on HttpApi's.
    const body = JSON.stringify({ addresses: [newAddress()] })
    for (const request of [
      new Request(`http://localhost/api/risk-check/${newAddress()}`),
      new Request("http://localhost/api/risk-check/batch", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(body.length) },
        body
      })
    ]) {
      const got = await read(await slowServer(request, "10.9.9.9"))
      expect([got.status, got.body.error.code, got.body.error.message, got.headers["retry-after"]]).toEqual([
        503,
        "service_unavailable",
        "The request took longer than 200 ms; retry shortly.",
        "5"
      ])
      expect(got.body.error.requestId).toBe(got.headers["x-request-id"])
    }
  })

  test("a defect is 500 internal_error and discloses nothing", async () => {
    const got = await read(await app(`/api/risk-check/${newAddress()}/rescan`, { method: "POST" }))
    expect({ status: got.status, code: got.body.error.code }).toEqual({ status: 500, code: "internal_error" })
    expect(JSON.stringify(got.body)).not.toContain("hunter2")
    expect(got.body.error.requestId).toBe(got.headers["x-request-id"])
  })

  test("a request interrupted because its client went away is 499, not a defect to log as an error", () => {
    const request = HttpServerRequest.fromWeb(new Request("http://localhost/api/v1/token/risk", { method: "POST" }))
    expect(classify(Cause.interrupt(FiberId.none), request)).toEqual({
      failure: expect.objectContaining({ status: 499, code: "client_closed_request" }),
      defect: false
    })
    expect(classify(Cause.die(new Error("bug")), request).defect).toBe(true)
  })
})
