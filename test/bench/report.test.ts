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
const row = (scenario: string, service: Figures, baseline?: Figures): Row => ({
  scenario,
  database: "embedded",
  target: NO_TARGET,
  baseline,
  service
})

test("each issue 29 target is printed met, or NOT met with its measured figure", () => {
  const lines = issue29TargetLines([
    row("batch of 50", figures(600, 5), figures(1_000, 5)),
    row("single risk-check, warm", figures(900, 2), figures(1_000, 1)),
    row("POST /api/v1/token/risk, auth + quota", figures(1_000, 5)),
    row("POST /api/v1/token/risk, auth + quota, every call from one account", figures(500, 5)),
    row("RSS under load, default cache", figures(100, 5, 310))
  ])
  expect(lines).toEqual([
    "target batch of 50 ≥ 0.5× raw (embedded) : met",
    "target single ≥ 0.8× raw with p99 ≤ 1.5× raw (embedded) : NOT met (measured 0.90× req/s, p99 2.00×)",
    "target busy account ≥ 0.7× of all-accounts (embedded) : NOT met (measured 0.50×)",
    "target peak RSS ≤ 300 MB under the miss-heavy load (embedded) : NOT met (measured 310 MB)"
  ])
})

test("a row with errors is not met, and a target without its row says it was not measured", () => {
  const lines = issue29TargetLines([row("batch of 50", figures(600, 5, 100, 3), figures(1_000, 5))])
  expect(lines[0]).toBe(
    "target batch of 50 ≥ 0.5× raw (embedded) : NOT met (measured 0.60×; service: 3 of 4800 non-2xx)"
  )
  expect(lines.slice(1)).toEqual([
    "target single ≥ 0.8× raw with p99 ≤ 1.5× raw : not measured in this run",
    "target busy account ≥ 0.7× of all-accounts : not measured in this run",
    "target peak RSS ≤ 300 MB under the miss-heavy load : not measured in this run"
  ])
})
