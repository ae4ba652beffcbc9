import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { databaseKind, testDatabaseUrl } from "../support/database.ts"
import { cleanScan, newAddress } from "../support/fixtures.ts"
import { type Deployment, newDeployment, runCli, startServer } from "../support/process.ts"
import { tcpProxy } from "../support/tcpProxy.ts"

// Operating the server as a process: shutdown under load, and a database that goes away and returns.
let deployment: Deployment
const mints = Array.from({ length: 50 }, () => newAddress())

beforeAll(async () => {
  deployment = await newDeployment()
  const dir = await Bun.$`mktemp -d`.text().then((text) => text.trim())
  await Bun.write(`${dir}/scans.ndjson`, mints.map((mint) => JSON.stringify(cleanScan(mint))).join("\n"))
  const imported = await runCli(["import", `${dir}/scans.ndjson`], deployment.env)
  if (imported.code !== 0) throw new Error(imported.stderr)
}, 120_000)
afterAll(() => deployment.cleanup(), 60_000)

describe(`operations on ${databaseKind}`, () => {
  test("SIGTERM under load: every accepted request is answered, then the process exits 0", async () => {
    const server = await startServer(deployment.env)
    const outcomes = { ok: 0, otherStatus: 0, refused: 0, dropped: 0 }
    let stop = false
    const worker = async (n: number) => {
      while (!stop) {
        try {
          const response = n % 2 === 0
            ? await fetch(`${server.url}/api/risk-check/batch`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ addresses: mints })
            })
            : await fetch(`${server.url}/api/risk-check/${mints[n]}`)
          await response.arrayBuffer()
          if (response.status === 200) outcomes.ok++
          else outcomes.otherStatus++
        } catch (error) {
          // Refused: the server no longer accepts (after SIGTERM). Anything else lost an accepted request.
          const text = String(error)
          if (/ConnectionRefused|ECONNREFUSED|Unable to connect/i.test(text)) outcomes.refused++
          else {
            outcomes.dropped++
            console.log(`dropped: ${text.slice(0, 200)}`)
          }
          if (/ConnectionRefused|ECONNREFUSED|Unable to connect/i.test(text)) await Bun.sleep(5)
        }
      }
    }
    const load = Promise.all(Array.from({ length: 16 }, (_, n) => worker(n)))
    await Bun.sleep(1_500)
    server.process.kill("SIGTERM")
    const exitCode = await server.process.exited
    await Bun.sleep(300)
    stop = true
    await load
    console.log(`shutdown under load: ${JSON.stringify(outcomes)}, exit code ${exitCode}`)
    expect({ dropped: outcomes.dropped, otherStatus: outcomes.otherStatus, exitCode }).toEqual({ dropped: 0, otherStatus: 0, exitCode: 0 })
    expect(outcomes.ok).toBeGreaterThan(50)
    expect(server.output()).toContain("shut down")
  }, 60_000)

  test.skipIf(testDatabaseUrl === undefined)("a lost database gives 503 envelopes, no crash, and the service heals", async () => {
    const url = new URL(deployment.env.DATABASE_URL!)
    const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    const server = await startServer({ ...deployment.env, DATABASE_URL: url.toString() })
    try {
      const check = async () => {
        const started = performance.now()
        const response = await fetch(`${server.url}/api/risk-check/${mints[0]}`)
        const body = (await response.json()) as { verdict?: string; error?: { code: string } }
        return { status: response.status, code: body.error?.code, ms: Math.round(performance.now() - started) }
      }
      expect((await check()).status).toBe(200)
      proxy.cut()
      const during = [await check(), await check(), await check()]
      const ready = await fetch(`${server.url}/ready`)
      proxy.restore()
      let healed = await check()
      for (let i = 0; i < 50 && healed.status !== 200; i++) {
        await Bun.sleep(100)
        healed = await check()
      }
      console.log(`database outage: during ${JSON.stringify(during)}, /ready ${ready.status}, after ${JSON.stringify(healed)}`)
      expect(during.map((result) => [result.status, result.code])).toEqual([
        [503, "service_unavailable"], [503, "service_unavailable"], [503, "service_unavailable"]
      ])
      expect(Math.max(...during.map((result) => result.ms))).toBeLessThan(6_000)
      expect(ready.status).toBe(503)
      expect(healed.status).toBe(200)
      expect(server.process.exitCode).toBeNull()
    } finally {
      server.process.kill("SIGTERM")
      await server.process.exited
      proxy.close()
    }
  }, 60_000)
})
