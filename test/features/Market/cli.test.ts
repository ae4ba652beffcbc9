import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { databaseKind } from "../../support/database.ts"
import { minutesAgo, newAddress } from "../../support/fixtures.ts"
import { type Deployment, newDeployment, runCli } from "../../support/process.ts"

// `risk-api import-market` as an operator runs it: exit codes, messages, and that an invalid file writes
// nothing (the next import of its valid line still stores it).

const MAIN = new URL("../../../src/main.ts", import.meta.url).pathname

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

const line = (mint: string, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    mint,
    observedAt: minutesAgo(5),
    volume24hUsd: 98_000,
    trades24h: 420,
    priceChange24hPct: 3.25,
    source: "feed-a",
    ...overrides
  })

const write = async (name: string, lines: ReadonlyArray<string>) => {
  const file = `${dir}/${name}`
  await Bun.write(file, `${lines.join("\n")}\n`)
  return file
}

/** The CLI with `input` on its standard input. */
const runWithStdin = async (args: ReadonlyArray<string>, input: string) => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "DATABASE_URL" && key !== "DATA_DIR") env[key] = value
  }
  const child = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...env, ...deployment.env },
    stdin: new Blob([input]),
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  return { code, stdout, stderr }
}

describe(`risk-api import-market on ${databaseKind}`, () => {
  const [a, b] = [newAddress(), newAddress()]

  test("a valid file is stored and reported; importing it again changes nothing", async () => {
    const file = await write("feed.ndjson", [line(a), line(b)])
    const first = await runCli(["import-market", file], deployment.env)
    expect({ code: first.code, out: first.stdout.trim(), err: first.stderr }).toEqual({
      code: 0,
      out: `${file}: 2 lines, 2 stored, 0 unchanged, 0 invalid`,
      err: ""
    })
    const again = await runCli(["import-market", file], deployment.env)
    expect({ code: again.code, out: again.stdout.trim() }).toEqual({
      code: 0,
      out: `${file}: 2 lines, 0 stored, 2 unchanged, 0 invalid`
    })
  }, 60_000)

  test("any invalid line: each reported as file:line: reason, nothing written, exit 1", async () => {
    const c = newAddress()
    const file = await write("bad.ndjson", [
      line(c),
      '{"mint":',
      line(c, { trades24h: "many" }),
      line(c, { volume: 1 }),
      line("not-base58-0OIl", {}),
      JSON.stringify({ mint: c, observedAt: minutesAgo(5), volume24hUsd: 1, priceChange24hPct: 0, source: "feed-a" })
    ])
    const bad = await runCli(["import-market", file], deployment.env)
    expect({ code: bad.code, out: bad.stdout.trim() }).toEqual({
      code: 1,
      out: `${file}: 6 lines, 5 invalid: nothing written (--skip-invalid stores the valid lines)`
    })
    expect(bad.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^${file}:2: not JSON \\(`)),
      `${file}:3: trades24h: Expected number, actual "many"`,
      `${file}:4: volume: is unexpected, expected: "mint" | "observedAt" | "volume24hUsd" | "trades24h" | "priceChange24hPct" | "source"`,
      `${file}:5: mint: not a Solana address (base58 of 32 bytes): "not-base58-0OIl"`,
      `${file}:6: trades24h: is missing`
    ])
    // Line 1 was not written: importing it alone stores it.
    const valid = await write("valid.ndjson", [line(c)])
    expect((await runCli(["import-market", valid], deployment.env)).stdout.trim()).toBe(
      `${valid}: 1 lines, 1 stored, 0 unchanged, 0 invalid`
    )
  }, 60_000)

  test("--skip-invalid stores the valid lines, reports the others and exits 0; - reads standard input", async () => {
    const d = newAddress()
    const result = await runWithStdin(["import-market", "--skip-invalid", "-"], `${line(d)}\n[]\n`)
    expect({ code: result.code, out: result.stdout.trim(), err: result.stderr.trim() }).toEqual({
      code: 0,
      out: "stdin: 2 lines, 1 stored, 0 unchanged, 1 invalid (skipped)",
      err: "stdin:2: Expected MarketFeedLine, actual []"
    })
  }, 60_000)

  test("a missing file exits 2 before any database work", async () => {
    const missing = await runCli(["import-market", `${dir}/none.ndjson`], deployment.env)
    expect([missing.code, missing.stderr.includes(`Path '${dir}/none.ndjson' must exist`)]).toEqual([2, true])
  }, 30_000)
})
