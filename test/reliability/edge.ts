import net from "node:net"
import type { RunningServer } from "../support/process.ts"
import { chunkedBody, parseResponse, rawExchange } from "../support/rawHttp.ts"
import { REQUEST_TIMEOUT_MS, SLACK_MS } from "./database.ts"
import { type Account, call, check, countBy, jsonPost, load, ms, quantile } from "./harness.ts"

// Slow clients and oversize bodies: others are served meanwhile, trickled bodies end at the request
// deadline, and every oversize body gets the 413 envelope with a request id.

interface Answer {
  readonly status: number
  readonly code?: string | undefined
  readonly ms: number
}

interface Trickle {
  readonly done: Promise<Answer>
  readonly close: () => void
}

/** A connection that sends `head` and then one byte of `drip` every `everyMs` until answered or closed. */
const trickle = (url: string, head: string, drip: string, everyMs: number): Trickle => {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  const started = performance.now()
  let received = ""
  let timer: ReturnType<typeof setInterval> | undefined
  const done = new Promise<Answer>((resolve) => {
    const finish = () => {
      clearInterval(timer)
      const response = parseResponse(received)
      let code: string | undefined
      try {
        code =
          response === undefined ? undefined : (JSON.parse(response.body) as { error?: { code?: string } }).error?.code
      } catch {
        code = undefined
      }
      resolve({ status: response?.status ?? 0, code, ms: performance.now() - started })
      socket.destroy()
    }
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1")
      const response = parseResponse(received)
      if (response !== undefined && response.body.length >= Number(response.headers["content-length"] ?? 0)) finish()
    })
    socket.on("close", finish)
    socket.on("error", finish)
  })
  socket.write(head)
  timer = setInterval(() => socket.writable && socket.write(drip), everyMs)
  return { done, close: () => socket.destroy() }
}

export const slowLoris = async (server: RunningServer, account: Account, scanned: string, warm: string) => {
  const normal = (kind: string) =>
    load(4, (worker) =>
      worker % 2 === 0
        ? call(kind, `${server.url}/api/risk-check/${warm}`)
        : call(kind, `${server.url}/api/v1/token/risk`, jsonPost({ address: scanned }, account.key))
    )
  const baseline = normal("baseline")
  await Bun.sleep(1_500)
  const before = await baseline.stop()

  // 300 connections that never finish their headers, 40 that never finish their body (half on the fast path's
  // batch, half on a keyed HttpApi route).
  const headerDrips = Array.from({ length: 300 }, () =>
    trickle(server.url, "GET /health HTTP/1.1\r\nHost: reliability\r\nX-Slow: ", "a", 1_000)
  )
  const bodyHead = (path: string, auth: string) =>
    `POST ${path} HTTP/1.1\r\nHost: reliability\r\nContent-Type: application/json\r\n${auth}Content-Length: 4000\r\n\r\n{"addresses":[`
  const bodyDrips = Array.from({ length: 40 }, (_, i) =>
    i % 2 === 0
      ? { route: "batch (fast path)", drip: trickle(server.url, bodyHead("/api/risk-check/batch", ""), " ", 500) }
      : {
          route: "keyed (HttpApi)",
          drip: trickle(
            server.url,
            bodyHead("/api/v1/token/risk", `Authorization: Bearer ${account.key}\r\n`),
            " ",
            500
          )
        }
  )
  await Bun.sleep(300)
  const during = normal("during")
  await Bun.sleep(5_000)
  const served = await during.stop()
  const bodies = await Promise.all(
    bodyDrips.map(async ({ drip, route }) => ({
      route,
      ...(await Promise.race([drip.done, Bun.sleep(2_000).then((): Answer => ({ status: -1, ms: Number.NaN }))]))
    }))
  )
  const headersStillOpen = (
    await Promise.all(headerDrips.map((d) => Promise.race([d.done.then(() => false), Bun.sleep(10).then(() => true)])))
  ).filter(Boolean).length
  for (const drip of [...headerDrips, ...bodyDrips.map((b) => b.drip)]) drip.close()

  const latencies = (outcomes: ReadonlyArray<{ ms: number }>) => outcomes.map((o) => o.ms)
  const p99Before = quantile(latencies(before), 0.99)
  const p99During = quantile(latencies(served), 0.99)
  const bound = Math.max(1_000, 5 * p99Before)
  check(
    "slow-loris (300 header drips, 40 body drips)",
    `other clients all served, p99 <= max(1 s, 5x baseline p99)`,
    `${served.filter((o) => o.status === 200).length} of ${served.length} 200; p99 ${ms(p99During)} (baseline ${ms(p99Before)}); ${headersStillOpen} header drips still open after 5 s`,
    served.length > 0 && served.every((o) => o.status === 200) && p99During <= bound
  )
  const late = bodies.filter(
    (b) => !(b.status === 503 && b.code === "service_unavailable" && b.ms <= REQUEST_TIMEOUT_MS + SLACK_MS)
  )
  check(
    "slow-loris (300 header drips, 40 body drips)",
    `a trickled body gets the 503 envelope at REQUEST_TIMEOUT_MS (+${SLACK_MS} ms)`,
    `${JSON.stringify(countBy(bodies, (b) => `${b.route} ${b.status} ${b.code ?? ""}`.trim()))}; max ${ms(Math.max(...bodies.map((b) => (Number.isNaN(b.ms) ? Number.POSITIVE_INFINITY : b.ms))))}`,
    late.length === 0
  )
}

export const oversizeBodies = async (server: RunningServer, maxBodyBytes: number) => {
  const isEnvelope = (o: {
    readonly status: number
    readonly code?: string | undefined
    readonly requestId?: string | null | undefined
  }) => o.status === 413 && o.code === "payload_too_large" && typeof o.requestId === "string" && o.requestId.length > 0
  const batch = `${server.url}/api/risk-check/batch`
  const big = "x".repeat(2_000_000)
  const declared = await Promise.all(
    Array.from({ length: 10 }, () =>
      call("2 MB", batch, { method: "POST", headers: { "content-type": "application/json" }, body: big })
    )
  )
  const streamed = await Promise.all(
    Array.from({ length: 3 }, () => {
      const chunk = new Uint8Array(1 << 20).fill(32)
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ >= 70) controller.close()
          else controller.enqueue(chunk)
        }
      })
      return call("70 MB chunked", batch, { method: "POST", headers: { "content-type": "application/json" }, body })
    })
  )
  const raw = await rawExchange(
    server.url,
    "POST /api/risk-check/batch HTTP/1.1\r\nHost: reliability\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n"
  )
  const rawResponse = parseResponse(raw.text)
  const rawCode =
    rawResponse === undefined ? undefined : (JSON.parse(rawResponse.body) as { error?: { code?: string } }).error?.code
  const chunked = await rawExchange(
    server.url,
    `POST /api/risk-check/batch HTTP/1.1\r\nHost: reliability\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunkedBody(" ".repeat(maxBodyBytes * 2)).slice(0, -5)}`
  )
  const chunkedResponse = parseResponse(chunked.text)
  const all = [
    ...declared,
    ...streamed,
    { status: rawResponse?.status ?? 0, code: rawCode, requestId: rawResponse?.headers["x-request-id"] },
    {
      status: chunkedResponse?.status ?? 0,
      code:
        chunkedResponse === undefined
          ? undefined
          : (JSON.parse(chunkedResponse.body) as { error?: { code?: string } }).error?.code,
      requestId: chunkedResponse?.headers["x-request-id"]
    }
  ]
  const health = await call("health", `${server.url}/health`)
  check(
    "oversize bodies",
    "2 MB x10 (fetch), 70 MB chunked x3 (fetch), 1 GiB declared, chunked over the limit: each the 413 envelope with X-Request-Id",
    `${all.filter(isEnvelope).length} of ${all.length} 413 envelopes; ${JSON.stringify(countBy(all, (o) => `${o.status}`))}${streamed.find((o) => o.status === 0)?.error ? `; client error: ${streamed.find((o) => o.status === 0)?.error}` : ""}; /health after: ${health.status}`,
    all.every(isEnvelope) && health.status === 200
  )
}
