import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { unexpectedFailure } from "../../src/platform/Http/Edge.ts"
import { databaseKind } from "../support/database.ts"
import { type Deployment, newDeployment, runCli, type RunningServer, startServer } from "../support/process.ts"
import { chunkedBody, parseResponse, rawExchange } from "../support/rawHttp.ts"

// What the server process answers at the edge, on raw connections: refusals Bun.serve would otherwise
// answer itself (an empty 413) get the envelope; those Bun's parser answers before any callback are
// pinned here as documented in the README's errors section, so a Bun upgrade that changes them is seen.
let deployment: Deployment
let server: RunningServer
const LIMIT = 4_096

beforeAll(async () => {
  deployment = await newDeployment()
  server = await startServer({ ...deployment.env, MAX_BODY_BYTES: String(LIMIT), REQUEST_TIMEOUT_MS: "1000" })
}, 120_000)

afterAll(async () => {
  server.process.kill("SIGTERM")
  await server.process.exited
  await deployment.cleanup()
}, 60_000)

const post = (headers: string) =>
  `POST /api/risk-check/batch HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: application/json\r\n${headers}\r\n`

const expectEnvelope = (text: string, status: number, code: string) => {
  const response = parseResponse(text)
  expect(response?.status).toBe(status)
  expect(response?.headers["content-type"]).toBe("application/json")
  const requestId = response!.headers["x-request-id"]
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
  const body = JSON.parse(response!.body) as { error: { code: string; requestId: string } }
  expect([body.error.code, body.error.requestId]).toEqual([code, requestId!])
}

describe(`the edge of a server process on ${databaseKind}`, () => {
  test("a declared body far over Bun's former limit (1 GiB): the 413 envelope before any of it is sent", async () => {
    const { text } = await rawExchange(server.url, post("Content-Length: 1073741824\r\n"))
    expectEnvelope(text, 413, "payload_too_large")
    expect(parseResponse(text)!.headers.connection).toBe("close")
  })

  test("a chunked body over MAX_BODY_BYTES: the 413 envelope once it passes the limit, without waiting for the rest", async () => {
    // 64 kB sent of an endless body: the answer comes without the client finishing (the edge drains what
    // comes for a bounded time, and stops once the client sends nothing more).
    const { text } = await rawExchange(
      server.url,
      `${post("Transfer-Encoding: chunked\r\n")}${chunkedBody("a".repeat(65_536)).slice(0, -5)}`
    )
    expectEnvelope(text, 413, "payload_too_large")
  })

  test("a chunked body within the limit is read and answered like a declared one", async () => {
    const payload = JSON.stringify({ addresses: ["So11111111111111111111111111111111111111112"] })
    const { text } = await rawExchange(
      server.url,
      `${post("Transfer-Encoding: chunked\r\n")}${chunkedBody(payload, 7)}`
    )
    expect(parseResponse(text)?.status).toBe(200)
    const malformed = await rawExchange(
      server.url,
      `${post("Transfer-Encoding: chunked\r\n")}${chunkedBody('{"addresses":[')}`
    )
    expectEnvelope(malformed.text, 400, "malformed_json")
  })

  test("a body that never finishes gets the 503 envelope at REQUEST_TIMEOUT_MS, on the fast path's batch too", async () => {
    for (const head of [post("Content-Length: 100\r\n"), post("Transfer-Encoding: chunked\r\n")]) {
      const started = performance.now()
      const { text } = await rawExchange(server.url, `${head}${head.includes("chunked") ? "5\r\n" : ""}{"add`, 4_000)
      expectEnvelope(text, 503, "service_unavailable")
      expect(performance.now() - started).toBeLessThan(3_000) // 1 s deadline, room for a loaded machine
    }
  })

  test("Bun's parser refusals, answered before any callback (README, errors): pinned as they are", async () => {
    const longPath = await rawExchange(server.url, `GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: test\r\n\r\n`)
    expect(longPath.text).toBe("HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n")
    const unknownMethod = await rawExchange(server.url, "FOO /health HTTP/1.1\r\nHost: test\r\n\r\n")
    expect(unknownMethod).toEqual({ text: "", closed: true })
    const requestLine = await rawExchange(server.url, "GARBAGE\r\n\r\n")
    expect(requestLine.text).toBe("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
    const version = await rawExchange(server.url, "GET /health HTTP/9.9\r\nHost: test\r\n\r\n")
    expect(version.text).toBe("HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n")
  })

  test("a method Bun parses but no route takes gets the 405 envelope", async () => {
    const { text } = await rawExchange(
      server.url,
      "PROPFIND /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    expectEnvelope(text, 405, "method_not_allowed")
  })
})

describe(`the request deadline on ${databaseKind}`, () => {
  test("a write past REQUEST_TIMEOUT_MS is interrupted: a 503 stored nothing and charged nothing", async () => {
    const created = await runCli(
      [
        "accounts",
        "create",
        "--name",
        "late",
        "--plan",
        "enterprise",
        "--monthly-quota",
        "1000",
        "--requests-per-minute",
        "10000"
      ],
      deployment.env
    )
    const accountId = created.stdout.split("\n")[0]!.replace("account ", "").trim()
    const key = (await runCli(["keys", "create", accountId, "--scope", "watch:write"], deployment.env)).stdout.trim()
    const hurried = await startServer({ ...deployment.env, REQUEST_TIMEOUT_MS: "100" })
    try {
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
      const body = JSON.stringify({
        mint: "So11111111111111111111111111111111111111112",
        rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1 }]
      })
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${hurried.url}/api/v1/decision/set-watch`, { method: "POST", headers, body }).then(
            (response) => response.status
          )
        )
      )
      await Bun.sleep(1_000) // whatever still ran behind a 503 has ended
      // The listing has the same 100 ms deadline: on a busy machine it may need a few tries.
      let listed = await fetch(`${hurried.url}/api/v1/decision/watches`, {
        headers: { authorization: `Bearer ${key}` }
      })
      for (let tries = 1; listed.status === 503 && tries < 20; tries++) {
        listed = await fetch(`${hurried.url}/api/v1/decision/watches`, { headers: { authorization: `Bearer ${key}` } })
      }
      const listing = (await listed.json()) as { data: Array<unknown> }
      if (listing.data === undefined) throw new Error(`listing answered ${listed.status}: ${JSON.stringify(listing)}`)
      const stored = listing.data.length
      const usage = (await runCli(["accounts", "usage", accountId], deployment.env)).stdout
      const charged = Number(/: (\d+) of/.exec(usage)?.[1])
      const acknowledged = statuses.filter((status) => status === 201).length
      expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([])
      expect(statuses).toContain(503)
      expect({ stored, charged }).toEqual({ stored: acknowledged, charged: acknowledged })
    } finally {
      hurried.process.kill("SIGTERM")
      await hurried.process.exited
    }
  }, 60_000)
})

describe("Bun's error hook", () => {
  test("a throw in the server's fetch is the 500 envelope with a request id, logged with that id", async () => {
    const logged: Array<Record<string, unknown>> = []
    const response = unexpectedFailure(new TypeError("boom"), (line) => logged.push(line))
    const body = (await response.json()) as { error: { code: string; message: string; requestId: string } }
    expect(response.status).toBe(500)
    expect(response.headers.get("x-request-id")).toBe(body.error.requestId)
    expect(body.error.code).toBe("internal_error")
    expect(body.error.message).not.toContain("boom")
    expect(logged).toEqual([{ requestId: body.error.requestId, error: "TypeError: boom" }])
  })
})
