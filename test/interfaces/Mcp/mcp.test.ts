import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, describe, expect, test } from "bun:test"
import { Effect, JSONSchema, Option } from "effect"
import { Accounts, type PlanChange } from "../../../src/features/Accounts/Accounts.ts"
import { Quota } from "../../../src/features/Accounts/Quota.ts"
import { SCOPES, type Scope } from "../../../src/domain/Scope.ts"
import { HTTP_KEY_HINT, makeMcpServer, STDIO_KEY_HINT } from "../../../src/interfaces/Mcp/Server.ts"
import { tools } from "../../../src/interfaces/Mcp/Tools.ts"
import { BatchRequest } from "../../../src/features/RiskCheck/Schemas.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { notObserved, observed } from "../../../src/domain/EvidenceV2.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { postJson, read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"

// The MCP server as an agent meets it: the SDK's own client, over Streamable HTTP at /mcp of the in-process app
// (and over an in-memory pair, as `risk-api mcp` serves stdio), calling every tool against the real database.
const { run, runtime } = runtimeFor(sqlServices())
const app = testApp((await runtime.runtime()).context)

const newKey = (scopes: ReadonlyArray<Scope> = SCOPES, change: PlanChange = { plan: "whale" }) =>
  run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("mcp tests", change)
      return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
    })
  )
const used = async (accountId: string) => (await run(Quota.usedThisMonth(accountId))).used
const scanned = async (overrides: Parameters<typeof cleanScan>[1] = {}) => {
  const scan = cleanScan(newAddress(), overrides)
  await run(ScansRepo.record([decodeScan(scan)]))
  return scan.mint
}

const clients: Array<Client> = []
afterAll(() => Promise.all(clients.map((client) => client.close())))

/** The SDK client over Streamable HTTP, its requests answered by the in-process app. */
const overHttp = async (key?: string) => {
  const client = new Client({ name: "mcp-test", version: "1.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } },
    fetch: (url, init) => app(new URL(String(url)).pathname, init)
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

/** The SDK client linked in memory to the server `risk-api mcp` runs on stdio, its key from the environment. */
const inMemory = async (key?: string) => {
  const server = makeMcpServer({
    upstream: (request) => {
      const url = new URL(request.url)
      return app(`${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        ...(request.body === null ? {} : { body: request.body })
      })
    },
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    keyHint: STDIO_KEY_HINT
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: "mcp-test", version: "1.0.0" })
  await client.connect(clientSide)
  clients.push(client)
  return client
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult
const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n")
// Structured content is whatever the route answered: the tests index into it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const structured = (result: CallToolResult): any => result.structuredContent

const rules = [{ metric: "safety_score", comparison: "lt", threshold: 60 }]

describe(`MCP tools on ${databaseKind}`, () => {
  test("lists the nine tools, their input schemas those of the routes", async () => {
    const { tools: listed } = await (await overHttp()).listTools()
    expect(listed.map((tool) => tool.name)).toEqual([
      "risk_check",
      "risk_check_batch",
      "token_risk",
      "token_insiders",
      "wallet_risk",
      "deployer_history",
      "pre_trade_decision",
      "monitor_position",
      "set_watch"
    ])
    for (const tool of listed) {
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
      expect(tool.description?.length).toBeGreaterThan(40)
    }
    const batch = listed.find((tool) => tool.name === "risk_check_batch")
    const fromRoute = JSONSchema.make(BatchRequest) as { $defs: Record<string, { properties: unknown }> }
    expect(batch?.inputSchema.properties).toEqual(fromRoute.$defs.RiskCheckBatchRequest?.properties as never)
    const history = listed.find((tool) => tool.name === "deployer_history")
    expect(Object.keys(history?.inputSchema.properties ?? {}).sort()).toEqual(["cursor", "limit", "wallet"])
    expect(history?.inputSchema.required).toEqual(["wallet"])
    expect(listed.find((tool) => tool.name === "token_risk")?.description).toContain("token:risk:read")
    const insiders = listed.find((tool) => tool.name === "token_insiders")
    expect([insiders?.inputSchema.required, insiders?.description]).toEqual([
      ["mint"],
      expect.stringContaining("token:risk:read")
    ])
  })

  test("risk_check answers what GET /api/risk-check/{address} answers, with no key, and a summary", async () => {
    const mint = await scanned()
    const result = await call(await overHttp(), "risk_check", { address: mint })
    const { body } = await read(await app(`/api/risk-check/${mint}`))
    expect(result.isError).toBeUndefined()
    expect({ ...structured(result), latency_ms: 0 }).toEqual({ ...body, latency_ms: 0 })
    expect(textOf(result)).toStartWith(`${mint} (CLEAN): verdict ok, safety score 100/100`)
  })

  test("risk_check_batch answers each address, an invalid one in its own entry", async () => {
    const mint = await scanned()
    const unknown = newAddress()
    const result = await call(await overHttp(), "risk_check_batch", { addresses: [mint, "not-a-mint", unknown] })
    expect(structured(result).count).toBe(3)
    expect(structured(result).results["not-a-mint"].error.code).toBe("invalid_address")
    expect(structured(result).results[unknown].verdict).toBe("unknown")
    expect(textOf(result)).toBe("3 addresses checked: 1 ok, 1 invalid, 1 unknown. None is blocked.")
  })

  test("every keyed tool answers with the route's body and is charged its route's cost", async () => {
    const { accountId, key } = await newKey()
    const client = await overHttp(key)
    const mint = await scanned()
    const answers = {
      token_risk: await call(client, "token_risk", { address: mint }),
      token_insiders: await call(client, "token_insiders", { mint }),
      wallet_risk: await call(client, "wallet_risk", { walletAddress: newAddress() }),
      deployer_history: await call(client, "deployer_history", { wallet: newAddress(), limit: "5" }),
      pre_trade_decision: await call(client, "pre_trade_decision", { mint, side: "buy", sizeUsd: 100 }),
      monitor_position: await call(client, "monitor_position", { mint, entryTime: minutesAgo(30) }),
      set_watch: await call(client, "set_watch", { mint, rules })
    }
    const outcomes = Object.entries(answers).map(([name, result]) => [
      name,
      result.isError ?? false,
      structured(result)?.meta?.costUnits
    ])
    expect(outcomes).toEqual([
      ["token_risk", false, 1],
      ["token_insiders", false, 1],
      ["wallet_risk", false, 2],
      ["deployer_history", false, 1],
      ["pre_trade_decision", false, 3],
      ["monitor_position", false, 2],
      ["set_watch", false, 1]
    ])
    expect(await used(accountId)).toBe(11)
    expect(structured(answers.token_risk).data.address).toBe(mint)
    expect(structured(answers.deployer_history).data.page.limit).toBe(5)
    expect(textOf(answers.token_risk)).toEndWith(
      "Charged 1 unit under token:risk:read; 24999 of 25000 left this month."
    )
    expect(textOf(answers.pre_trade_decision)).toStartWith("Decision proceed (execute")
    expect(textOf(answers.set_watch)).toContain(
      `Stored watch ${structured(answers.set_watch).data.watch_id} on ${mint} with 1 rule`
    )
    expect(textOf(answers.wallet_risk)).toContain("not a legal compliance determination")
  })

  test("token_insiders answers what GET /api/v1/token/{mint}/insiders answers, naming each cluster", async () => {
    const { key } = await newKey(["token:risk:read"])
    const mint = newAddress()
    const [deployer, funder, a, b, c] = [newAddress(), newAddress(), newAddress(), newAddress(), newAddress()]
    const document = upgradeV1(decodeScan(cleanScan(mint)))
    await run(
      ScansRepo.record([
        {
          ...document,
          deployer: observed({ address: deployer, signature: null, slot: 100, at: null }),
          insiders: {
            clusters: observed([
              {
                funder,
                reason: "common_funder" as const,
                members: [
                  { owner: a, pct: 12 },
                  { owner: b, pct: 8 },
                  { owner: c, pct: 4 }
                ],
                pct: 24
              }
            ]),
            launchBuyers: notObserved("launch transactions could not be read"),
            deployerHolding: observed({ initialPct: 20, currentPct: 4, soldPct: 80 }),
            provenance: { funderCalls: 8, funderBudget: 40, walletsRead: 4, walletsCached: 0, launchTransactions: 0 }
          }
        }
      ])
    )
    const result = await call(await overHttp(key), "token_insiders", { mint })
    const { body } = await read(
      await app(`/api/v1/token/${mint}/insiders`, { headers: { authorization: `Bearer ${key}` } })
    )
    expect(result.isError).toBeUndefined()
    expect(structured(result).data).toEqual(body.data)
    expect(textOf(result)).toStartWith(
      `Insiders of ${mint}: 1 cluster: Cluster of 3 wallets funded by one wallet holds 24% of supply (funder ${funder}). ` +
        "Launch buyers not_observed: launch transactions could not be read. " +
        "Deployer held 20% at launch, 4% now (sold 80%)."
    )
    expect(textOf(result)).toEndWith("Charged 1 unit under token:risk:read; 24999 of 25000 left this month.")
  })

  test("a bad address is a tool error with the envelope's code and request id, not charged", async () => {
    const { accountId, key } = await newKey()
    const client = await overHttp(key)
    const result = await call(client, "token_risk", { address: "not-a-mint" })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^Failed with invalid_address \(HTTP 400\): .+ Request id [\w-]+\./)
    const publicCheck = await call(client, "risk_check", { address: "0OIl" })
    expect(textOf(publicCheck)).toStartWith("Failed with invalid_address (HTTP 400)")
    expect(await used(accountId)).toBe(0)
  })

  test("a keyed tool without a key is 401 unauthorized; a key without the scope is 403 forbidden", async () => {
    const mint = await scanned()
    const anonymous = await call(await overHttp(), "token_risk", { address: mint })
    expect([anonymous.isError, textOf(anonymous).split(":")[0]]).toEqual([true, "Failed with unauthorized (HTTP 401)"])
    expect(textOf(anonymous)).toContain(HTTP_KEY_HINT)
    const { key } = await newKey(["wallet:risk:read"])
    const unscoped = await call(await overHttp(key), "pre_trade_decision", { mint, side: "buy" })
    expect(textOf(unscoped)).toStartWith("Failed with forbidden (HTTP 403)")
  })

  test("an exhausted quota is 429 quota_exceeded, as over HTTP", async () => {
    const { accountId, key } = await newKey(["token:risk:read"], {
      plan: "enterprise",
      monthlyQuota: 3,
      requestsPerMinute: 100
    })
    const client = await overHttp(key)
    const mint = await scanned()
    const first = await call(client, "pre_trade_decision", { mint, side: "buy" })
    expect(first.isError).toBeUndefined()
    const second = await call(client, "token_risk", { address: mint })
    expect(textOf(second)).toStartWith("Failed with quota_exceeded (HTTP 429)")
    expect(await used(accountId)).toBe(3)
    const overHttpRoute = await read(
      await app("/api/v1/token/risk", postJson({ address: mint }, { authorization: `Bearer ${key}` }))
    )
    expect(overHttpRoute.body.error.code).toBe("quota_exceeded")
  })

  test("an unknown tool is a protocol error", async () => {
    const failure = await (await overHttp()).callTool({ name: "scan_now", arguments: {} }).then(
      () => undefined,
      (error: Error) => error
    )
    expect(failure?.message).toContain("Unknown tool scan_now")
  })

  test("the stdio server (in memory here) sends the key it was given with every call", async () => {
    const { accountId, key } = await newKey(["watch:write"])
    const mint = await scanned()
    const client = await inMemory(key)
    expect((await client.listTools()).tools).toHaveLength(tools.length)
    const result = await call(client, "set_watch", { mint, rules, label: "mcp" })
    expect([result.isError, structured(result).data.label, await used(accountId)]).toEqual([undefined, "mcp", 1])
    const anonymous = await call(await inMemory(), "set_watch", { mint, rules })
    expect(textOf(anonymous)).toStartWith(
      "Failed with unauthorized (HTTP 401): A valid API key is required: set RISK_API_KEY"
    )
    // Over stdio there is no header to send: the hint is the environment variable, in the text and the envelope.
    expect(textOf(anonymous)).not.toContain("Authorization")
  })

  test("/mcp answers only POST: GET is 405 with Allow, as any route", async () => {
    const { body, headers, status } = await read(await app("/mcp"))
    expect([status, headers.allow, body.error.code]).toEqual([405, "POST", "method_not_allowed"])
    expect(Option.isSome(Option.fromNullable(headers["x-request-id"]))).toBe(true)
  })
})
