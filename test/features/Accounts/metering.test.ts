import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { databaseKind } from "../../support/database.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"
import { settledAt } from "../../support/poll.ts"
import { type Deployment, newDeployment, runCli, type RunningServer, startServer } from "../../support/process.ts"

// Two server processes on one database (on the embedded one, the second reaches it through the first):
// many concurrent calls, and an account never gets one call more than its quota or its minute limit.
let deployment: Deployment
let servers: Array<RunningServer> = []
const mint = newAddress()
const secrets: Array<string> = []

const cli = async (...args: Array<string>) => {
  const result = await runCli(args, deployment.env)
  if (result.code !== 0) throw new Error(`risk-api ${args.join(" ")} exited ${result.code}: ${result.stderr}`)
  return result.stdout.trim()
}

const newAccountKey = async (monthlyQuota: number, perMinute: number, scope = "token:risk:read") => {
  const created = await cli(
    "accounts",
    "create",
    "--name",
    "load",
    "--plan",
    "enterprise",
    "--monthly-quota",
    String(monthlyQuota),
    "--requests-per-minute",
    String(perMinute)
  )
  const accountId = created.split("\n")[0]!.replace("account ", "")
  const key = await cli("keys", "create", accountId, "--scope", scope)
  secrets.push(key)
  return { accountId, key }
}

const call = async (server: RunningServer, key: string, address: string) => {
  const response = await fetch(`${server.url}/api/v1/token/risk`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ address })
  })
  const body = (await response.json()) as { meta?: { quota: { used: number } }; error?: { code: string } }
  return { status: response.status, used: body.meta?.quota.used, code: body.error?.code }
}

const burst = (key: string, count: number, address = mint) =>
  Promise.all(Array.from({ length: count }, (_, i) => call(servers[i % servers.length]!, key, address)))

const usedOf = async (accountId: string) => {
  const usage = await cli("accounts", "usage", accountId)
  return Number(/: (\d+) of/.exec(usage)?.[1])
}

beforeAll(async () => {
  deployment = await newDeployment()
  const dir = await Bun.$`mktemp -d`.text().then((text) => text.trim())
  await Bun.write(`${dir}/scan.ndjson`, `${JSON.stringify(cleanScan(mint))}\n`)
  await cli("import", `${dir}/scan.ndjson`)
  servers = [await startServer(deployment.env)]
  servers.push(await startServer(deployment.env))
}, 120_000)

afterAll(async () => {
  for (const server of servers.reverse()) {
    server.process.kill("SIGTERM")
    await server.process.exited
  }
  await deployment.cleanup()
}, 60_000)

describe(`metering across two server processes on ${databaseKind}`, () => {
  test("120 concurrent calls against a quota of 40: exactly 40 accepted, each `used` value once, the rest quota_exceeded", async () => {
    const { accountId, key } = await newAccountKey(40, 10_000)
    const results = await burst(key, 120)
    const accepted = results.filter((result) => result.status === 200)
    const refused = results.filter((result) => result.status === 429)
    console.log(
      `quota: ${results.length} calls, ${accepted.length} accepted, ${refused.length} refused, quota 40`,
      JSON.stringify(results.filter((r) => r.status !== 200 && r.status !== 429))
    )
    expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 40, refused: 80 })
    expect(new Set(refused.map((result) => result.code))).toEqual(new Set(["quota_exceeded"]))
    expect(accepted.map((result) => result.used).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1)
    )
    expect(await settledAt(() => usedOf(accountId), 40, 10_000)).toBe(40)
  }, 60_000)

  // One busy account: its calls must not wait for one another's answers (a charge that held the account's
  // row until the answer was written made them run one at a time, and calls within the quota answered 503
  // as connections ran out). Five rounds, each a new account.
  test("400 concurrent calls from one account against a quota of 50, five times: exactly 50 accepted, the rest quota_exceeded, no 503", async () => {
    for (let round = 0; round < 5; round++) {
      const { accountId, key } = await newAccountKey(50, 100_000)
      const results = await burst(key, 400)
      const statuses = Object.fromEntries(
        [...new Set(results.map((r) => r.status))].map((s) => [s, results.filter((r) => r.status === s).length])
      )
      console.log(`busy account, round ${round + 1}: 400 calls, quota 50: ${JSON.stringify(statuses)}`)
      expect(statuses).toEqual({ 200: 50, 429: 350 })
      expect(new Set(results.filter((r) => r.status === 429).map((r) => r.code))).toEqual(new Set(["quota_exceeded"]))
      expect(
        results
          .filter((r) => r.status === 200)
          .map((r) => r.used)
          .sort((a, b) => a! - b!)
      ).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
      // Every answered call confirms its reservation after its answer went out: poll until it has.
      expect(await settledAt(() => usedOf(accountId), 50, 10_000)).toBe(50)
    }
  }, 240_000)

  test("80 concurrent calls against 25 a minute: exactly 25 accepted in the window, the rest rate_limited", async () => {
    const { accountId, key } = await newAccountKey(100_000, 25)
    const secondsLeft = 60 - new Date().getUTCSeconds()
    if (secondsLeft < 15) await Bun.sleep(secondsLeft * 1000 + 500) // keep the burst inside one window
    const results = await burst(key, 80)
    const accepted = results.filter((result) => result.status === 200).length
    const limited = results.filter((result) => result.code === "rate_limited").length
    console.log(`rate: ${results.length} calls, ${accepted} accepted, ${limited} rate_limited, limit 25/min`)
    expect({ accepted, limited }).toEqual({ accepted: 25, limited: 55 })
    expect(await settledAt(() => usedOf(accountId), 25, 10_000)).toBe(25)
  }, 90_000)

  test("concurrent failing calls (never-scanned mint) charge nothing", async () => {
    const { accountId, key } = await newAccountKey(1_000, 10_000)
    const results = await burst(key, 30, newAddress())
    expect(new Set(results.map((result) => result.code))).toEqual(new Set(["not_scanned"]))
    expect(await usedOf(accountId)).toBe(0)
  }, 60_000)

  test("150 concurrent set-watch calls over both processes: exactly 100 watches stored, each charged once, no more", async () => {
    const { accountId, key } = await newAccountKey(1_000, 10_000, "watch:write")
    const setWatch = async (server: RunningServer) => {
      const response = await fetch(`${server.url}/api/v1/decision/set-watch`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1_000 }] })
      })
      const body = (await response.json()) as { error?: { code: string } }
      return { status: response.status, code: body.error?.code }
    }
    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => setWatch(servers[i % servers.length]!)))
    const stored = results.filter((result) => result.status === 201).length
    const refused = results.filter((result) => result.code === "watch_limit_reached").length
    const list = await fetch(`${servers[0]!.url}/api/v1/decision/watches`, {
      headers: { authorization: `Bearer ${key}` }
    })
    const watches = ((await list.json()) as { data: Array<unknown> }).data.length
    console.log(
      `watch cap: ${results.length} calls, ${stored} stored, ${refused} watch_limit_reached, ${watches} listed`
    )
    expect({ stored, refused, watches }).toEqual({ stored: 100, refused: 50, watches: 100 })
    expect(await usedOf(accountId)).toBe(100)
  }, 60_000)

  test("no key appears in any server's output", () => {
    const output = servers.map((server) => server.output()).join("\n")
    expect(secrets.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(output.includes(secret)).toBe(false)
  })
})
