import { runCli, type RunningServer, startServer } from "../support/process.ts"

// What the reliability scenarios share: the table of what held, servers that are always stopped, accounts
// made with the CLI, and clients that record every outcome of their calls.

export interface Row {
  readonly scenario: string
  readonly expectation: string
  readonly measured: string
  readonly held: boolean
}

export const rows: Array<Row> = []

export const check = (scenario: string, expectation: string, measured: string, held: boolean) => {
  rows.push({ scenario, expectation, measured, held })
  console.log(`  ${held ? "held" : "FAILED"}: ${scenario} — ${expectation} — ${measured}`)
}

export const printTable = () => {
  const header = { scenario: "scenario", expectation: "expectation", measured: "measured", held: "held" }
  const lines = [header, ...rows.map((row) => ({ ...row, held: row.held ? "yes" : "NO" }))]
  const width = (key: keyof typeof header) => Math.max(...lines.map((line) => line[key].length))
  const widths = {
    scenario: width("scenario"),
    expectation: width("expectation"),
    measured: width("measured"),
    held: 4
  }
  const format = (line: typeof header) =>
    `| ${line.scenario.padEnd(widths.scenario)} | ${line.expectation.padEnd(widths.expectation)} | ${line.measured.padEnd(widths.measured)} | ${line.held.padEnd(widths.held)} |`
  console.log(format(header))
  console.log(
    `|${"-".repeat(widths.scenario + 2)}|${"-".repeat(widths.expectation + 2)}|${"-".repeat(widths.measured + 2)}|${"-".repeat(widths.held + 2)}|`
  )
  for (const line of lines.slice(1)) console.log(format(line))
}

// Every server process the suite starts, so none outlives it whatever fails.
const started = new Set<RunningServer>()

export const serve = async (env: Record<string, string>): Promise<RunningServer> => {
  const server = await startServer({ LOG_LEVEL: "warning", PUBLIC_RATE_LIMIT_PER_MINUTE: "0", ...env })
  started.add(server)
  void server.process.exited.then(() => started.delete(server))
  return server
}

export const stopServer = async (server: RunningServer, signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
  server.process.kill(signal)
  return server.process.exited
}

export const stopAllServers = async () => {
  for (const server of [...started]) {
    server.process.kill("SIGKILL")
    await server.process.exited
  }
}

export const cli = async (env: Record<string, string>, ...args: Array<string>) => {
  const result = await runCli(args, env)
  if (result.code !== 0) throw new Error(`risk-api ${args.join(" ")} exited ${result.code}: ${result.stderr}`)
  return result.stdout.trim()
}

export interface Account {
  readonly accountId: string
  readonly key: string
}

export const newAccount = async (
  env: Record<string, string>,
  options: { readonly quota?: number; readonly perMinute?: number; readonly scope?: string } = {}
): Promise<Account> => {
  const created = await cli(
    env,
    "accounts",
    "create",
    "--name",
    "reliability",
    "--plan",
    "enterprise",
    "--monthly-quota",
    String(options.quota ?? 1_000_000),
    "--requests-per-minute",
    String(options.perMinute ?? 1_000_000)
  )
  const accountId = created.split("\n")[0]!.replace("account ", "").trim()
  const key = await cli(env, "keys", "create", accountId, "--scope", options.scope ?? "token:risk:read")
  return { accountId, key }
}

/** Cost units charged to the account this month, as the CLI reads them from the database. */
export const chargedUnits = async (env: Record<string, string>, accountId: string): Promise<number> => {
  const usage = await cli(env, "accounts", "usage", accountId)
  const used = /: (\d+) of/.exec(usage)?.[1]
  if (used === undefined) throw new Error(`no usage in: ${usage}`)
  return Number(used)
}

export interface Outcome {
  readonly kind: string
  readonly sentAt: number
  readonly ms: number
  /** 0: no HTTP answer (refused, reset, or nothing within the client's 15 s). */
  readonly status: number
  readonly code?: string | undefined
  readonly retryAfter?: string | null
  readonly requestId?: string | null
  readonly error?: string
}

/** One call, its outcome recorded: status, envelope code, Retry-After, time to answer, or the error. */
export const call = async (kind: string, url: string, init: RequestInit = {}): Promise<Outcome> => {
  const sentAt = performance.now()
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) })
    const text = await response.text()
    let code: string | undefined
    try {
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code
    } catch {
      code = "not-json"
    }
    return {
      kind,
      sentAt,
      ms: performance.now() - sentAt,
      status: response.status,
      code,
      retryAfter: response.headers.get("retry-after"),
      requestId: response.headers.get("x-request-id")
    }
  } catch (error) {
    return { kind, sentAt, ms: performance.now() - sentAt, status: 0, error: String(error).slice(0, 200) }
  }
}

/** Workers calling in a loop until stopped; every outcome is kept. */
export const load = (workers: number, next: (worker: number, round: number) => Promise<Outcome>) => {
  const outcomes: Array<Outcome> = []
  let running = true
  const done = Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let round = 0; running; round++) {
        const outcome = await next(worker, round)
        outcomes.push(outcome)
        if (outcome.status === 0) await Bun.sleep(10) // a refused connection fails at once: do not spin
      }
    })
  )
  return {
    outcomes,
    stop: async () => {
      running = false
      await done
      return outcomes
    }
  }
}

export const jsonPost = (body: unknown, key?: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
  body: JSON.stringify(body)
})

export const keyed = (key: string): RequestInit => ({ headers: { authorization: `Bearer ${key}` } })

export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

export const ms = (value: number) => `${Math.round(value)} ms`

/** Waits until `ok()` or the deadline; returns the milliseconds it took, or undefined. */
export const within = async (
  deadlineMs: number,
  ok: () => Promise<boolean>,
  everyMs = 100
): Promise<number | undefined> => {
  const started = performance.now()
  while (performance.now() - started < deadlineMs) {
    if (await ok()) return performance.now() - started
    await Bun.sleep(everyMs)
  }
  return undefined
}

export const countBy = <A>(items: ReadonlyArray<A>, key: (item: A) => string): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1
  return counts
}
