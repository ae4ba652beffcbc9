import { expect, test } from "bun:test"
import { issue29TargetLines, NO_TARGET, type Row } from "./report.ts"
import type { Figures } from "./wrk.ts"

const figures = (rps: number, p99Ms: number, rssMb = 100, non2xx = 0): Figures => ({
  rps,
  requests: rps * 8,
  p50Ms: 1,
  p99Ms,
  non2xx,
  socketErrors: 0,
  rssMb
})
const row = (scenario: string, service: Figures, baseline?: Figures, database = "embedded"): Row => ({
  scenario,
  database,
  target: NO_TARGET,
  baseline,
  service
})

test("each issue 29 target is printed met, or NOT met, with its measured figure", () => {
  const lines = issue29TargetLines([
    row("batch of 50", figures(600, 5), figures(1_000, 5)),
    row("single risk-check, warm", figures(900, 2), figures(1_000, 1)),
    row("single risk-check, never scanned", figures(700, 2), figures(1_000, 1)),
    row("batch of 50 with 10 cold mints", figures(400, 5), figures(1_000, 5)),
    row("POST /api/v1/token/risk, auth + quota", figures(1_000, 5), figures(1_500, 5), "PostgreSQL, 1 scans"),
    row(
      "POST /api/v1/token/risk, auth + quota, every call from one account",
      figures(500, 5),
      undefined,
      "PostgreSQL, 1 scans"
    ),
    row("RSS under load, default cache", figures(100, 5, 310))
  ])
  expect(lines).toEqual([
    "target batch of 50 ≥ 0.5× raw (embedded) : met (measured 0.60×: 600 against 1,000 req/s)",
    "target single ≥ 0.8× raw with p99 ≤ 1.5× raw (embedded) : NOT met (measured 0.90× req/s, p99 2.00×: 900 against 1,000 req/s, p99 2.00 ms against 1.00 ms)",
    "target never-scanned ≥ 0.7× raw (embedded) : met (measured 0.70×: 700 against 1,000 req/s)",
    "target keyed token risk ≥ 0.7× raw pg (PostgreSQL, 1 scans) : NOT met (measured 0.67×: 1,000 against 1,500 req/s)",
    "target batch of 50 with 10 cold ≥ 0.5× raw pg (embedded) : NOT met (measured 0.40×: 400 against 1,000 req/s)",
    "target batch of 50 with 10 cold ≥ 5× 457 = 2,285 req/s (PostgreSQL) : not measured in this run",
    "target busy account ≥ 0.7× of all-accounts (PostgreSQL, 1 scans) : NOT met (measured 0.50×)",
    "target peak RSS ≤ 300 MB under the miss-heavy load (embedded) : NOT met (measured 310 MB)"
  ])
})

test("the cold batch's 2,285 req/s target on PostgreSQL names the raw-pg baseline's figure when it is not met", () => {
  const database = "PostgreSQL, 1,000,000 scans"
  const under = issue29TargetLines([
    row("batch of 50 with 10 cold mints", figures(1_232, 5), figures(2_000, 5), database)
  ])
  expect(under.filter((line) => line.includes("2,285"))).toEqual([
    `target batch of 50 with 10 cold ≥ 5× 457 = 2,285 req/s (${database}) : NOT met (measured 1,232 req/s; ` +
      "the raw-pg baseline reading the same cold mints makes 2,000 req/s in this run, itself under 2,285: PostgreSQL on this machine bounds it)"
  ])
  const over = issue29TargetLines([
    row("batch of 50 with 10 cold mints", figures(2_300, 5), figures(4_000, 5), database)
  ])
  expect(over.filter((line) => line.includes("2,285"))).toEqual([
    `target batch of 50 with 10 cold ≥ 5× 457 = 2,285 req/s (${database}) : met (measured 2,300 req/s)`
  ])
})

test("a row with errors is not met, and a target without its row says it was not measured", () => {
  const lines = issue29TargetLines([row("batch of 50", figures(600, 5, 100, 3), figures(1_000, 5))])
  expect(lines[0]).toBe(
    "target batch of 50 ≥ 0.5× raw (embedded) : NOT met (measured 0.60×: 600 against 1,000 req/s; service: 3 of 4800 non-2xx)"
  )
  expect(lines.slice(1)).toEqual([
    "target single ≥ 0.8× raw with p99 ≤ 1.5× raw : not measured in this run",
    "target never-scanned ≥ 0.7× raw : not measured in this run",
    "target keyed token risk ≥ 0.7× raw pg : not measured in this run",
    "target batch of 50 with 10 cold ≥ 0.5× raw pg : not measured in this run",
    "target batch of 50 with 10 cold ≥ 5× 457 = 2,285 req/s (PostgreSQL) : not measured in this run",
    "target busy account ≥ 0.7× of all-accounts : not measured in this run",
    "target peak RSS ≤ 300 MB under the miss-heavy load : not measured in this run"
  ])
})
