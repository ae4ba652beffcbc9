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

  // Metered writes reserve their units like reads (a short statement that commits), then write in their own
  // transaction, which confirms the reservation as it commits: the quota's rows are never locked while the
  // write runs, so one busy account's writes do not queue behind one another's (they answered 503 under load).
  const setWatch = async (server: RunningServer, key: string) => {
    const response = await fetch(`${server.url}/api/v1/decision/set-watch`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1_000 }] })
    })
    const body = (await response.json()) as { meta?: { quota: { used: number } }; error?: { code: string } }
    return { status: response.status, code: body.error?.code, used: body.meta?.quota.used }
  }
  const watchBurst = (key: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, i) => setWatch(servers[i % servers.length]!, key)))
  const listed = async (key: string) => {
    const list = await fetch(`${servers[0]!.url}/api/v1/decision/watches`, {
      headers: { authorization: `Bearer ${key}` }
    })
    return ((await list.json()) as { data: Array<unknown> }).data.length
  }
  const tally = (results: ReadonlyArray<{ status: number; code?: string | undefined }>) =>
    Object.fromEntries(
      [...new Set(results.map((r) => `${r.status}${r.code === undefined ? "" : ` ${r.code}`}`))].map((s) => [
        s,
        results.filter((r) => `${r.status}${r.code === undefined ? "" : ` ${r.code}`}` === s).length
      ])
    )

  test("300 concurrent set-watch calls over both processes: exactly 100 watches stored (the cap), each charged once, the rest watch_limit_reached and free", async () => {
    const { accountId, key } = await newAccountKey(1_000, 10_000, "watch:write")
    const results = await watchBurst(key, 300)
    const watches = await listed(key)
    console.log(`watch cap: 300 calls, cap 100: ${JSON.stringify(tally(results))}, ${watches} listed`)
    expect(tally(results)).toEqual({ "201": 100, "409 watch_limit_reached": 200 })
    expect(watches).toBe(100)
    expect(await usedOf(accountId)).toBe(100) // confirmed as each write committed, the refusals refunded
  }, 90_000)

  test("300 concurrent set-watch calls from one account against a quota of 60, three times: exactly 60 stored, the rest quota_exceeded, no 503", async () => {
    for (let round = 0; round < 3; round++) {
      const { accountId, key } = await newAccountKey(60, 100_000, "watch:write")
      const results = await watchBurst(key, 300)
      console.log(`busy writer, round ${round + 1}: 300 set-watch calls, quota 60: ${JSON.stringify(tally(results))}`)
      expect(tally(results)).toEqual({ "201": 60, "429 quota_exceeded": 240 })
      expect(
        results
          .filter((r) => r.status === 201)
          .map((r) => r.used)
          .sort((a, b) => a! - b!)
      ).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
      expect(await listed(key)).toBe(60)
      expect(await usedOf(accountId)).toBe(60)
    }
  }, 240_000)

  test("no key appears in any server's output", () => {
    const output = servers.map((server) => server.output()).join("\n")
    expect(secrets.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(output.includes(secret)).toBe(false)
  })
})
