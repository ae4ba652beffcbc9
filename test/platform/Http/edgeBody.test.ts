import { describe, expect, test } from "bun:test"
import { Lifecycle } from "../../../src/features/System/Lifecycle.ts"
import { type ApiHandler, makeEdge } from "../../../src/platform/Http/Edge.ts"
import { drainBody, lingerFor } from "../../../src/platform/Http/Linger.ts"

// The edge's body precheck: a body over MAX_BODY_BYTES on a method that takes one is the 413 envelope,
// after the rest of it is read and dropped for a bounded time (a lingering close: a client still sending
// would otherwise get a reset instead of its answer); a method that takes no body never has one read.

const LIMIT = 1_024
const handled: Array<string> = []
const handler: ApiHandler = async (request) => {
  handled.push(`${request.method} ${new URL(request.url).pathname}`)
  return new Response("{}", { status: 200, headers: { "content-type": "application/json" } })
}
const edge = makeEdge({
  handler,
  settings: { maxBodyBytes: LIMIT, requestTimeoutMs: 2_000, corsAllowedOrigins: [] },
  lifecycle: Lifecycle.make({ inFlight: () => 0, draining: () => false, drain: () => {}, enter: () => () => {} }),
  fastPaths: [],
  log: undefined,
  logError: () => {}
})

/** A body of `chunks` chunks of `size` bytes, counting how many were pulled; then it ends, or stalls. */
const countedBody = (chunks: number, size: number, end: "ends" | "stalls") => {
  const pulled = { chunks: 0 }
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks === chunks) {
        if (end === "ends") controller.close()
        return new Promise(() => {}) // stalls: nothing more, never closed
      }
      pulled.chunks++
      controller.enqueue(new Uint8Array(size))
    }
  })
  return { pulled, stream }
}

const request = (method: string, path: string, body: ReadableStream<Uint8Array> | undefined, length: number) =>
  new Request(`http://localhost${path}`, {
    method,
    headers: { "content-type": "application/json", "content-length": String(length), "x-request-id": "big" },
    body,
    duplex: "half"
  })

describe("the edge's body precheck", () => {
  test("a declared body over the limit: the rest is read and dropped, then the 413 envelope closes the connection", async () => {
    const { pulled, stream } = countedBody(64, 1_024, "ends")
    const response = await edge(request("POST", "/api/risk-check/batch", stream, 64 * 1_024), "10.0.0.1")
    expect([response.status, response.headers.get("connection"), response.headers.get("x-request-id")]).toEqual([
      413,
      "close",
      "big"
    ])
    expect(await response.json()).toEqual({
      error: {
        code: "payload_too_large",
        message: `The body is ${64 * 1_024} bytes or more; the limit is ${LIMIT}.`,
        requestId: "big"
      }
    })
    expect(pulled.chunks).toBe(64) // all of it read before the answer
  })

  test("Expect: 100-continue: the 413 at once, nothing read (the client sends no body)", async () => {
    const { pulled, stream } = countedBody(64, 1_024, "ends")
    const asking = request("POST", "/api/risk-check/batch", stream, 64 * 1_024)
    asking.headers.set("expect", "100-continue")
    const response = await edge(asking, "10.0.0.1")
    expect([response.status, pulled.chunks <= 1]).toEqual([413, true]) // a stream pulls its first chunk by itself
  })

  test("a GET or DELETE with a declared body over the limit is not refused for it: the route answers", async () => {
    handled.length = 0
    for (const method of ["GET", "DELETE"]) {
      const response = await edge(
        new Request("http://localhost/api/v1/decision/watches", { method, headers: { "content-length": "999999" } }),
        "10.0.0.1"
      )
      expect(response.status).toBe(200)
    }
    expect(handled).toEqual(["GET /api/v1/decision/watches", "DELETE /api/v1/decision/watches"])
  })

  test("drainBody stops at the byte bound, and when the client sends nothing more", async () => {
    const many = countedBody(1_000, 1_024, "ends")
    await drainBody(many.stream.getReader(), { milliseconds: 5_000, idleMilliseconds: 1_000, bytes: 10 * 1_024 })
    expect(many.pulled.chunks).toBeLessThan(1_000)
    const stalled = countedBody(3, 1_024, "stalls")
    await drainBody(stalled.stream.getReader(), { ...lingerFor(2_000), idleMilliseconds: 10 })
    expect(stalled.pulled.chunks).toBe(3)
  })
})
