import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { databaseKind } from "../../support/database.ts"
import { cleanScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { type Deployment, newDeployment, type RunningServer, runCli, startServer } from "../../support/process.ts"

// As an agent's MCP client config runs it: `risk-api mcp` on stdio (on the database, or calling a running
// server), and Streamable HTTP at /mcp of `risk-api serve`, every tool called.
const MAIN = new URL("../../../src/main.ts", import.meta.url).pathname
const mint = cleanScan(newAddress(), { scannedAt: minutesAgo(1), symbol: "MCPT" })

let deployment: Deployment
let key: string
let server: RunningServer | undefined
const clients: Array<Client> = []

beforeAll(async () => {
  deployment = await newDeployment()
  const dir = (await Bun.$`mktemp -d`.text()).trim()
  await Bun.write(`${dir}/scan.ndjson`, `${JSON.stringify(mint)}\n`)
  expect((await runCli(["import", `${dir}/scan.ndjson`], deployment.env)).code).toBe(0)
  const created = await runCli(["accounts", "create", "--name", "agent", "--plan", "pro"], deployment.env)
  const accountId = created.stdout.split("\n")[0]!.replace("account ", "").trim()
  const scopes = ["token:risk:read", "wallet:risk:read", "deployer:history:read", "watch:write"].flatMap((scope) => [
    "--scope",
    scope
  ])
  key = (await runCli(["keys", "create", accountId, ...scopes], deployment.env)).stdout.trim()
  await Bun.$`rm -rf ${dir}`
}, 60_000)
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  server?.process.kill("SIGTERM")
  await server?.process.exited
  await deployment.cleanup()
})

const connected = async (transport: StdioClientTransport | StreamableHTTPClientTransport) => {
  const client = new Client({ name: "process-test", version: "1.0.0" })
  await client.connect(transport)
  clients.push(client)
  return client
}
const stdio = (env: Record<string, string>) =>
  connected(
    new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp"],
      env: { PATH: process.env.PATH ?? "", SEED_DEMO: "false", ...env },
      stderr: "pipe"
    })
  )

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text

const everyTool = async (client: Client) => {
  const { tools } = await client.listTools()
  const calls: Record<string, Record<string, unknown>> = {
    risk_check: { address: mint.mint },
    risk_check_batch: { addresses: [mint.mint] },
    token_risk: { address: mint.mint },
    token_insiders: { mint: mint.mint },
    wallet_risk: { walletAddress: newAddress() },
    deployer_history: { wallet: newAddress() },
    pre_trade_decision: { mint: mint.mint, side: "sell" },
    monitor_position: { mint: mint.mint, entryTime: minutesAgo(1) },
    set_watch: { mint: mint.mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1000 }] }
  }
  expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(calls).sort())
  const failed: Array<string> = []
  for (const [name, args] of Object.entries(calls)) {
    const result = await client.callTool({ name, arguments: args })
    if (result.isError === true) failed.push(`${name}: ${text(result)}`)
  }
  return failed
}

describe(`MCP clients against the processes on ${databaseKind}`, () => {
  test("risk-api mcp on stdio, on the database, RISK_API_KEY for the keyed tools", async () => {
    const client = await stdio({ ...deployment.env, RISK_API_KEY: key })
    expect(await everyTool(client)).toEqual([])
    expect(text(await client.callTool({ name: "risk_check", arguments: { address: mint.mint } }))).toStartWith(
      `${mint.mint} (MCPT): verdict ok`
    )
    await client.close()
  }, 60_000)

  test("Streamable HTTP at /mcp of the running server, the key in Authorization", async () => {
    server = await startServer(deployment.env)
    const client = await connected(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } }
      })
    )
    expect(await everyTool(client)).toEqual([])
    const anonymous = await connected(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
    expect(text(await anonymous.callTool({ name: "token_risk", arguments: { address: mint.mint } }))).toStartWith(
      "Failed with unauthorized (HTTP 401): A valid API key is required: send `Authorization: Bearer <key>` with the MCP request"
    )
  }, 60_000)

  test("risk-api mcp on stdio calling the running server (RISK_API_URL)", async () => {
    if (server === undefined) throw new Error("the server test did not start it")
    const client = await stdio({ RISK_API_URL: server.url, RISK_API_KEY: key })
    expect(await everyTool(client)).toEqual([])
    const usage = await fetch(`${server.url}/api/v1/token/risk`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ address: mint.mint })
    }).then((response) => response.json() as Promise<{ meta: { quota: { used: number } } }>)
    // Three rounds of every keyed tool (costs 1 + 1 + 2 + 1 + 3 + 2 + 1), then this call.
    expect(usage.meta.quota.used).toBe(3 * 11 + 1)
  }, 60_000)

  test("risk-api mcp on stdio without RISK_API_KEY: a keyed tool's 401 says to set RISK_API_KEY, not a header", async () => {
    if (server === undefined) throw new Error("the server test did not start it")
    const client = await stdio({ RISK_API_URL: server.url })
    const anonymous = text(await client.callTool({ name: "token_risk", arguments: { address: mint.mint } }))
    expect(anonymous).toStartWith("Failed with unauthorized (HTTP 401): A valid API key is required: set RISK_API_KEY")
    expect(anonymous).not.toContain("Authorization")
    await client.close()
  }, 60_000)
})
