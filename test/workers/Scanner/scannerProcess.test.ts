import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { type Deployment, newDeployment, runCli, type RunningServer, startServer } from "../../support/process.ts"
import { type RpcServer, startRpcServer } from "../../support/solana/RpcServer.ts"
import { makeWorld, type World } from "../../support/solana/World.ts"

// The product as one process on a laptop: `npm start` with SOLANA_RPC_URL runs the scanner beside the
// server. A bot asks for a token nobody scanned, asks for a rescan, and the answer comes from the chain.

let world: World
let rpc: RpcServer
let deployment: Deployment
let server: RunningServer

beforeAll(async () => {
  world = makeWorld()
  rpc = startRpcServer(world)
  deployment = await newDeployment()
  // Provider URLs carry keys: this one's query must never reach a log line.
  server = await startServer({
    ...deployment.env,
    SOLANA_RPC_URL: `${rpc.url}/?api-key=SECRET-KEY-42`,
    SCANNER_POLL_MS: "20",
    SCANNER_SCHEDULE_MS: "200"
  })
}, 90_000)

afterAll(async () => {
  server.process.kill("SIGTERM")
  await server.process.exited
  await rpc.stop()
  await deployment.cleanup()
})

const check = async (mint: string) =>
  (await fetch(`${server.url}/api/risk-check/${mint}`)).json() as Promise<Record<string, unknown>>

describe("scanner inside the server", () => {
  test("a rescan request is scanned from the chain and the risk-check answers from it", async () => {
    const deployer = await world.signer()
    const mint = await world.mint({
      program: "token-2022",
      decimals: 6,
      deployer,
      extensions: {
        permanentDelegate: deployer.address,
        tokenMetadata: { name: "Grabby", symbol: "GRAB", uri: "https://example.org/grab.json" }
      }
    })
    await world.holders(mint, [{ owner: deployer.address, amount: 900_000n }, { amount: 100_000n }])

    const before = await check(mint.address)
    expect(before).toMatchObject({ verdict: "unknown", scan_depth: "none" })
    const requested = await fetch(
      String(before.rescan_url).startsWith("http")
        ? String(before.rescan_url)
        : `${server.url}/api/risk-check/${mint.address}/rescan`,
      { method: "POST" }
    )
    expect(requested.status).toBe(202)

    let answer = before
    for (let i = 0; i < 300 && answer.scan_depth === "none"; i++) {
      await Bun.sleep(50)
      answer = await check(mint.address)
    }
    expect(answer.symbol).toBe("GRAB")
    expect(answer.scan_depth).toBe("full")
    // A permanent delegate can move anyone's tokens, and the deployer holds 90%: never an ok.
    expect(answer.verdict).not.toBe("ok")
    expect(answer.verdict).not.toBe("unknown")
    expect(JSON.stringify(answer.flags)).toContain("delegate")

    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(/risk_api_scanner_scans_total\{result="full"\} [1-9]/)
    expect(metrics).toContain('risk_api_scanner_rpc_calls_total{method="getMultipleAccounts",status="ok"}')
    // The provider URL is a secret: it never reaches the logs.
    expect(server.output()).toContain("scanner started")
    expect(server.output()).not.toContain("SECRET-KEY-42")
  }, 60_000)
})

describe("evidence format v2", () => {
  test("its JSON Schema is served and describes the facts", async () => {
    const response = await fetch(`${server.url}/schemas/scan-evidence-v2.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("application/schema+json")
    const schema = (await response.json()) as { $defs?: Record<string, unknown>; $ref?: string }
    expect(JSON.stringify(schema)).toContain("not_applicable")
    expect(Object.keys(schema.$defs ?? {})).toContain("ScanEvidenceV2")
  })
})

describe("risk-api scan", () => {
  test("--print writes one v2 evidence line for a mint, without storing it", async () => {
    const mint = await world.mint({ program: "token", decimals: 9 })
    await world.metaplex(mint, { name: "Printed", symbol: "PRNT", uri: "https://example.org/p.json" })
    const { code, stdout } = await runCli(["scan", "--print", mint.address], {
      ...deployment.env,
      SOLANA_RPC_URL: rpc.url
    })
    expect(code).toBe(0)
    const evidence = Schema.decodeUnknownSync(ScanEvidenceV2)(JSON.parse(stdout.trim()))
    expect(evidence.mint).toBe(mint.address as never)
    expect(evidence.metadata).toMatchObject({ status: "observed", value: { symbol: "PRNT" } })
    expect(await check(mint.address)).toMatchObject({ scan_depth: "none" })
  }, 60_000)

  test("without --print the scan is stored and the API answers from it", async () => {
    const mint = await world.mint({ program: "token", decimals: 9 })
    await world.holders(mint, [{ amount: 5n }])
    const { code, stdout } = await runCli(["scan", mint.address], { ...deployment.env, SOLANA_RPC_URL: rpc.url })
    expect(code).toBe(0)
    expect(stdout).toContain("stored a full scan")
    let answer = await check(mint.address)
    for (let i = 0; i < 100 && answer.scan_depth === "none"; i++) {
      await Bun.sleep(50)
      answer = await check(mint.address)
    }
    expect(answer.scan_depth).toBe("full")
  }, 60_000)

  test("import-listings stores community lists and the next scan writes them into `listed`", async () => {
    const mint = await world.mint({ program: "token", decimals: 9 })
    const file = `${deployment.env.DATA_DIR ?? "/tmp"}/listings-${crypto.randomUUID()}.ndjson`
    await Bun.write(
      file,
      [
        JSON.stringify({ mint: mint.address, list: "community-strict", source: "https://lists.example/strict.json" }),
        JSON.stringify({ mint: "not-a-mint", list: "x", source: "y" }),
        JSON.stringify({ mint: mint.address, list: "other", source: "https://lists.example/other.json", extra: 1 })
      ].join("\n")
    )
    const imported = await runCli(["import-listings", file], deployment.env)
    expect(imported.code).toBe(1)
    expect(imported.stdout).toContain("3 lines, 1 imported, 0 already present, 2 invalid")
    expect(imported.stderr).toContain(":2: mint")
    const again = await runCli(["import-listings", file], deployment.env)
    expect(again.stdout).toContain("0 imported, 1 already present")
    const { code, stdout } = await runCli(["scan", "--print", mint.address], {
      ...deployment.env,
      SOLANA_RPC_URL: rpc.url
    })
    expect(code).toBe(0)
    expect(JSON.parse(stdout).listed).toEqual([
      { list: "community-strict", source: "https://lists.example/strict.json" }
    ])
  }, 60_000)

  test("bad input: no RPC configured, an invalid address, a wallet instead of a mint", async () => {
    const noRpc = await runCli(["scan", "So11111111111111111111111111111111111111112"], {
      ...deployment.env,
      SOLANA_RPC_URL: ""
    })
    expect(noRpc.code).toBe(1)
    expect(noRpc.stderr).toContain("SOLANA_RPC_URL is not set")
    const invalid = await runCli(["scan", "not-an-address"], { ...deployment.env, SOLANA_RPC_URL: rpc.url })
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toContain("not-an-address")
    const wallet = await world.signer()
    const notMint = await runCli(["scan", wallet.address], { ...deployment.env, SOLANA_RPC_URL: rpc.url })
    expect(notMint.code).toBe(1)
    expect(notMint.stderr).toContain("not a token mint")
  }, 60_000)
})
