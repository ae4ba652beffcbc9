import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { type Deployment, newDeployment, type RunningServer, startServer } from "../../support/process.ts"

// What a new user sees on `npm start`: a clean first start (an empty database, seeded with the demo) and a
// restart on the same database print no warning and no error, before "Listening" or while the first
// requests are answered. Work that needs the database waits for it rather than failing and retrying.

let deployment: Deployment

beforeAll(async () => {
  deployment = await newDeployment()
})

afterAll(async () => {
  await deployment.cleanup()
})

interface LogLine {
  readonly level?: string
  readonly message?: string
}

// Every line up to "Listening", and after it every line but the requests' own (a loaded machine may make one slow).
const complaints = (output: string): ReadonlyArray<string> => {
  const lines = output.split("\n").filter((line) => line.trim() !== "")
  const listening = lines.findIndex((line) => line.includes("Listening on"))
  return lines.filter((line, index) => {
    try {
      const parsed = JSON.parse(line) as LogLine
      return parsed.level !== "info" && parsed.level !== "debug" && (index < listening || parsed.message !== "request")
    } catch {
      return true // anything that is not a log line (a stack trace, a runtime warning) is a complaint
    }
  })
}

const startAndUse = async (): Promise<string> => {
  const server: RunningServer = await startServer({ ...deployment.env, SEED_DEMO: "true", LOG_LEVEL: "info" })
  try {
    // The first requests, and the background work (scan-cache poll, watch alerts) that runs beside them.
    for (let round = 0; round < 5; round++) {
      await (await fetch(`${server.url}/api/risk-check/7FYCFZiQEh6sGbYUwieEAARyStv6Az5spi9wGVxWEkVa`)).text()
      await Bun.sleep(300)
    }
    while (!server.output().includes("Listening on")) await Bun.sleep(50)
  } finally {
    server.process.kill("SIGTERM")
    await server.process.exited
  }
  return server.output()
}

describe("a first start and a restart", () => {
  test("the first start seeds the demo and prints nothing but info lines", async () => {
    const output = await startAndUse()
    expect(output).toMatch(/seeded \d+ demo scans/)
    expect(output).toContain("Listening on")
    expect(complaints(output)).toEqual([])
  }, 120_000)

  test("a restart on the same database prints nothing but info lines", async () => {
    const output = await startAndUse()
    expect(output).not.toContain("seeded")
    expect(complaints(output)).toEqual([])
  }, 120_000)
})
