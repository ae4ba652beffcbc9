import { afterAll, describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { databaseKind } from "../../support/database.ts"
import { cleanScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { newDeployment, runCli, startServer } from "../../support/process.ts"
import { startReceiver, verify, waitFor } from "./receiver.ts"

// The program as an operator runs it: a server process killed after it stored an event and before any
// delivery; after a restart the event is delivered. Then the latency of an alert from a CLI import.
const deployment = await newDeployment()
afterAll(() => deployment.cleanup())
const env = { ...deployment.env, WEBHOOK_ALLOW_LOOPBACK: "true" }

const importScan = async (scan: ReturnType<typeof cleanScan>) => {
  const file = join(tmpdir(), `webhook-scan-${crypto.randomUUID()}.ndjson`)
  writeFileSync(file, `${JSON.stringify(scan)}\n`)
  const imported = await runCli(["import", file], env)
  expect([imported.code, imported.stderr]).toEqual([0, ""])
}

// The fields of the server's answers this test reads.
const json = async <A>(response: Response) => ((await response.json()) as { data: A }).data

const drained = (mint: string, at: string) =>
  cleanScan(mint, {
    scannedAt: at,
    liquidity: { liquidityUsd: 5_000, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 1 },
    market: { ...cleanScan(mint).market, liquidityUsd: 5_000 }
  })

describe(`watch alerts across processes on ${databaseKind}`, () => {
  test("killed between evaluation and delivery, the stored event is delivered after a restart; a new scan's alert arrives within 2 s", async () => {
    const created = await runCli(["accounts", "create", "--name", "hooks", "--plan", "pro"], env)
    const accountId = created.stdout.split("\n")[0]!.replace("account ", "").trim()
    const key = (
      await runCli(["keys", "create", accountId, "--scope", "watch:write", "--scope", "webhook:write"], env)
    ).stdout.trim()
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
    const receiver = startReceiver()
    const mint = newAddress()
    await importScan(cleanScan(mint, { scannedAt: minutesAgo(30) }))

    // This server evaluates but does not deliver (WEBHOOK_WORKERS=0).
    const evaluating = await startServer({ ...env, WEBHOOK_WORKERS: "0" })
    let endpoint: { id: string; secret: string }
    try {
      endpoint = await json<{ id: string; secret: string }>(
        await fetch(`${evaluating.url}/api/v1/webhooks`, {
          method: "POST",
          headers,
          body: JSON.stringify({ url: receiver.url })
        })
      )
      const watch = await fetch(`${evaluating.url}/api/v1/decision/set-watch`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          mint,
          rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 20_000 }],
          notify: true
        })
      })
      expect(watch.status).toBe(201)
      await Bun.sleep(300) // the baseline scan is evaluated
      await importScan(drained(mint, minutesAgo(2)))
      await waitFor("the stored event", async () => {
        const listed = await json<ReadonlyArray<{ status: string }>>(
          await fetch(`${evaluating.url}/api/v1/webhooks/${endpoint.id}/deliveries`, { headers })
        )
        return listed.length === 1 && listed[0]!.status === "pending" ? true : undefined
      })
    } finally {
      evaluating.process.kill("SIGKILL")
      await evaluating.process.exited
    }
    expect(receiver.received.length).toBe(0)

    const restarted = await startServer(env)
    try {
      const [delivered] = await waitFor("the delivery after restart", () =>
        receiver.received.length > 0 ? receiver.received : undefined
      )
      expect(verify(endpoint.secret, delivered!.headers, delivered!.body)).toBe(true)
      expect(JSON.parse(delivered!.body)).toMatchObject({
        type: "watch.triggered",
        data: { mint, observed_value: 5_000 }
      })

      // The "done when" figure: a CLI import that restores liquidity, to the signed event at the receiver.
      const latencies: Array<number> = []
      for (const [i, scan] of [
        cleanScan(mint, { scannedAt: minutesAgo(1) }),
        drained(mint, minutesAgo(0.5))
      ].entries()) {
        await importScan(scan)
        const imported = Date.now()
        const arrived = await waitFor("the next alert", () => receiver.received[i + 1], 5_000)
        latencies.push(arrived.at - imported)
      }
      console.log(`alert latency from the end of a CLI import to the receiver: ${latencies.join(" ms, ")} ms`)
      for (const latency of latencies) expect(latency).toBeLessThan(2_000)
      expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual([
        "watch.triggered",
        "watch.cleared",
        "watch.triggered"
      ])
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(3)
    } finally {
      restarted.process.kill("SIGTERM")
      await restarted.process.exited
      receiver.stop()
    }
  }, 60_000)
})
