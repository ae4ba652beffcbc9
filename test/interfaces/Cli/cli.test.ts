import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { databaseKind } from "../../support/database.ts"
import { cleanScan, minutesAgo, newAddress } from "../../support/fixtures.ts"
import { type Deployment, newDeployment, runCli, startServer } from "../../support/process.ts"

const checkOf = async (url: string, mint: string) =>
  (await (await fetch(`${url}/api/risk-check/${mint}`)).json()) as { verdict: string; symbol: string | null }

// The operator's view: the CLI and the server as separate processes over one database.
let deployment: Deployment
let dir: string

beforeAll(async () => {
  deployment = await newDeployment()
  dir = await Bun.$`mktemp -d`.text().then((text) => text.trim())
}, 60_000)
afterAll(async () => {
  await deployment.cleanup()
  await Bun.$`rm -rf ${dir}`
})

describe(`CLI and server processes on ${databaseKind}`, () => {
  const ok = cleanScan(newAddress(), { scannedAt: minutesAgo(1), symbol: "OKAY" })

  test("import stores valid lines, reports bad ones by line number, exits 1; re-import changes nothing", async () => {
    const file = `${dir}/scans.ndjson`
    await Bun.write(
      file,
      [JSON.stringify(ok), "{oops", JSON.stringify({ mint: "short", scannedAt: minutesAgo(1) }), ""].join("\n")
    )
    const first = await runCli(["import", file], deployment.env)
    expect({ code: first.code, out: first.stdout.trim() }).toEqual({
      code: 1,
      out: `${file}: 3 lines, 1 imported, 0 already present, 2 invalid`
    })
    expect(first.stderr).toContain(`${file}:2: not JSON`)
    expect(first.stderr).toContain(`${file}:3: mint: not a Solana address`)
    const again = await runCli(["import", file], deployment.env)
    expect(again.stdout.trim()).toBe(`${file}: 3 lines, 0 imported, 1 already present, 2 invalid`)
    const clean = `${dir}/clean.ndjson`
    await Bun.write(clean, `${JSON.stringify(cleanScan(newAddress()))}\n`)
    expect((await runCli(["import", clean], deployment.env)).code).toBe(0)
  }, 60_000)

  test("a missing file or an unknown command exits 2 with a message", async () => {
    const missing = await runCli(["import", `${dir}/none.ndjson`], deployment.env)
    expect([missing.code, missing.stderr.includes("must exist")]).toEqual([2, true])
    expect((await runCli(["frobnicate"], deployment.env)).code).toBe(2)
  }, 60_000)

  test("the server answers from imported scans, records rescans, and keeps them across a kill", async () => {
    let server = await startServer(deployment.env)
    try {
      const got = await checkOf(server.url, ok.mint)
      expect([got.verdict, got.symbol]).toEqual(["ok", "OKAY"])
      const never = newAddress()
      const rescan = await fetch(`${server.url}/api/risk-check/${never}/rescan`, { method: "POST" })
      expect(rescan.status).toBe(202)
      // While the server runs, the CLI reaches the same database (through the server on embedded).
      const listed = await runCli(["scan-requests", "--json"], deployment.env)
      expect(listed.stdout).toContain(never)
      server.process.kill("SIGKILL")
      await server.process.exited
      server = await startServer(deployment.env)
      const after = await checkOf(server.url, ok.mint)
      expect(after.verdict).toBe("ok")
      const pending = await runCli(["scan-requests", "--json"], deployment.env)
      expect(pending.stdout.split("\n").filter((line) => line.includes(never)).length).toBe(1)
    } finally {
      server.process.kill("SIGTERM")
      await server.process.exited
    }
  }, 120_000)
})
