// The scenarios: each captures the service's answers, starts its baseline, loads baseline then service
// with the same wrk settings (one at a time: two cores are shared by the server, wrk and PostgreSQL),
// and returns its table rows.
import { Effect } from "effect"
import { TOKEN_RISK_COST } from "../../src/features/TokenRisk/Api.ts"
import { ScanCacheConfig } from "../../src/features/Scans/LatestScanCache.ts"
import { startServer, type RunningServer } from "../support/process.ts"
import {
  type Answer,
  type Baseline,
  capture,
  rawLatestBatch,
  rawLatestScan,
  rawServe,
  rawTokenRisk,
  statusMix
} from "./baselines.ts"
import { type BenchAccount, latestScanPlan } from "./dataset.ts"
import {
  batchTarget,
  COLD_IN_BATCH,
  coldBatchTarget,
  lookupReferenceTarget,
  lookupTarget,
  neverScannedTarget,
  oneAccountTarget,
  progressLine,
  rssTarget,
  type Row,
  singleWarmTarget,
  tokenRiskTarget
} from "./report.ts"
import { pinPid } from "./pinning.ts"
import {
  batchDrawScript,
  type Figures,
  keyedPostScript,
  type Load,
  postScript,
  randomGetScript,
  rssOf,
  runWrk,
  type WrkSettings
} from "./wrk.ts"

export interface Bench {
  readonly wrk: WrkSettings
  /** Scratch directory for wrk scripts and their lists. */
  readonly dir: string
  readonly poolSize: number
  /** `taskset -c` list of the service and its baselines; undefined: unpinned. */
  readonly serverCores: string | undefined
  /** The service as it is started (`--server`): the compiled binary (as operators run it) or the sources. */
  readonly program: ReadonlyArray<string>
  /** Which scenarios run (--only); all when undefined. */
  readonly only: ReadonlySet<string> | undefined
  /** What the servers logged, summarized, for the end of the report. */
  readonly serverLogs: Array<string>
}

const WARM_UP_SECONDS = 2
const RSS_LIMIT_MB = 300
const riskCheckPath = (mint: string) => `/api/risk-check/${mint}`
const count = (n: number) => n.toLocaleString("en-US")

/** Runs `use` against a service started with `env`, then stops it and prints any warning or error it logged. */
export const withServer = async <A>(
  bench: Bench,
  name: string,
  env: Record<string, string>,
  use: (server: RunningServer) => Promise<A>
): Promise<A> => {
  const server = await startServer({ PUBLIC_RATE_LIMIT_PER_MINUTE: "0", LOG_LEVEL: "warning", ...env }, bench.program)
  pinPid(server.process.pid, bench.serverCores)
  console.log(
    `\n${name}: service pid ${server.process.pid}${bench.serverCores === undefined ? "" : ` on core(s) ${bench.serverCores}`}, ` +
      `${rssOf(server.process.pid)} MB RSS after start`
  )
  try {
    return await use(server)
  } finally {
    if (server.process.exitCode !== null || server.process.signalCode !== null) {
      console.log(
        `  ⚠ the service had exited before the bench stopped it: ${server.process.exitCode ?? server.process.signalCode}`
      )
    }
    server.process.kill("SIGTERM")
    await server.process.exited
    for (const line of summarizeLog(server.output())) {
      console.log(`  server logged ${line}`)
      bench.serverLogs.push(`${name}: ${line}`)
    }
  }
}

const describeLogLine = (line: string): string => {
  try {
    const entry = JSON.parse(line) as { readonly level?: unknown; readonly message?: unknown; readonly cause?: unknown }
    return [entry.level, entry.message, entry.cause]
      .filter((part) => part !== undefined)
      .map(String)
      .join(": ")
      .slice(0, 200)
  } catch {
    return line.slice(0, 200)
  }
}

/** The server's log (warnings and errors only, at LOG_LEVEL=warning) as "N× level: message: cause", most frequent first. */
const summarizeLog = (output: string): ReadonlyArray<string> => {
  const counts = new Map<string, number>()
  for (const line of output.split("\n").filter((l) => l.trim() !== "")) {
    const key = describeLogLine(line)
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([line, n]) => `${n}× ${line}`)
}

const load = async (bench: Bench, label: string, target: Load, pid: number): Promise<Figures> => {
  const figures = await runWrk(bench.wrk, target, pid)
  console.log(progressLine(label, figures))
  return figures
}

/** Loads the service, and fails with its output if it did not survive the load. */
const loadService = async (bench: Bench, label: string, server: RunningServer, target: Load): Promise<Figures> => {
  const figures = await load(bench, label, target, server.process.pid)
  if (server.process.exitCode !== null || server.process.signalCode !== null) {
    throw new Error(
      `the service exited (${server.process.exitCode ?? server.process.signalCode}) under load: ${server.output().slice(-2_000)}`
    )
  }
  return figures
}

/** Service warm-up (JIT, connection pool), not measured. */
const warmUp = (bench: Bench, target: Load, pid: number) =>
  runWrk({ ...bench.wrk, durationSeconds: WARM_UP_SECONDS }, target, pid)

/** Baseline first, then service, with the same script: the url of each is put in front of `path`. */
const compare = async (
  bench: Bench,
  name: string,
  server: RunningServer,
  baseline: Baseline,
  path: string,
  script?: string
) => {
  const base = await load(bench, `${name}: baseline`, { url: `${baseline.url}${path}`, script }, baseline.pid)
  const service = await loadService(bench, `${name}: service`, server, { url: `${server.url}${path}`, script })
  return { base, service }
}

const reportStatuses = (name: string, answers: ReadonlyMap<string, Answer>): void => {
  const mix = [...statusMix(answers)].map(([status, n]) => `${n}× ${status}`).join(", ")
  const failed = [...answers.values()].find((answer) => answer.status >= 300)
  console.log(`  ${name}: ${answers.size} requests before loading: ${mix}`)
  if (failed !== undefined)
    console.log(`  ⚠ ${name}: e.g. ${failed.status} ${new TextDecoder().decode(failed.body).slice(0, 300)}`)
}

const get = (server: RunningServer, path: string) => ({
  key: `GET ${path}`,
  request: () => fetch(`${server.url}${path}`)
})

const postJson = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })

export interface RiskCheckData {
  readonly database: string
  readonly warm: string
  readonly batch: ReadonlyArray<string>
  readonly neverScanned: ReadonlyArray<string>
  /** Scanned mints a batch draws its cold ones from (not in the server's memory before the run). */
  readonly coldPool: ReadonlyArray<string>
  /** The database the raw-pg baseline of the cold batch reads (the embedded one through its socket). */
  readonly databaseUrl: () => string
  readonly postgres: boolean
  readonly poolSize: number
}

/** Mints of a batch that are cold: drawn per request from `coldPool`, beside 40 warm ones. */
export { COLD_IN_BATCH }

/** Single warm, single never-scanned (rotating) and batch of 50, each against raw Bun.serve with the same bytes. */
export const riskCheckScenarios = async (
  bench: Bench,
  server: RunningServer,
  data: RiskCheckData
): Promise<ReadonlyArray<Row>> => {
  const batchBody = JSON.stringify({ addresses: data.batch })
  const answers = new Map(
    await capture([
      get(server, riskCheckPath(data.warm)),
      ...data.neverScanned.map((mint) => get(server, riskCheckPath(mint))),
      { key: "POST /api/risk-check/batch", request: () => postJson(`${server.url}/api/risk-check/batch`, batchBody) }
    ])
  )
  reportStatuses("risk-check", answers)
  await warmUp(bench, { url: `${server.url}${riskCheckPath(data.warm)}` }, server.process.pid)
  const raw = await rawServe(bench.dir, bench.serverCores, answers)
  const runs = (name: string) => bench.only === undefined || bench.only.has(name)
  try {
    const rows: Array<Row> = []
    if (runs("warm")) {
      const warm = await compare(bench, "single risk-check, warm", server, raw, riskCheckPath(data.warm))
      rows.push({
        scenario: "single risk-check, warm",
        database: data.database,
        target: singleWarmTarget(warm.service, warm.base),
        baseline: warm.base,
        service: warm.service
      })
    }
    if (runs("never")) {
      const neverScript = randomGetScript(bench.dir, "never-scanned", data.neverScanned.map(riskCheckPath))
      const never = await compare(bench, "single risk-check, never scanned", server, raw, "", neverScript)
      rows.push({
        scenario: "single risk-check, never scanned",
        note: `${count(data.neverScanned.length)} mints at random`,
        database: data.database,
        target: neverScannedTarget(never.service, never.base),
        baseline: never.base,
        service: never.service
      })
    }
    if (runs("batch")) {
      const batch = await compare(
        bench,
        "batch of 50",
        server,
        raw,
        "/api/risk-check/batch",
        postScript(bench.dir, "batch", batchBody)
      )
      rows.push({
        scenario: "batch of 50",
        database: data.database,
        target: batchTarget(batch.service, batch.base),
        baseline: batch.base,
        service: batch.service
      })
    }
    if (runs("batch") && data.coldPool.length > 0) {
      const warm = data.batch.slice(0, data.batch.length - COLD_IN_BATCH)
      const script = batchDrawScript(
        bench.dir,
        "batch-cold",
        "/api/risk-check/batch",
        warm,
        data.coldPool,
        COLD_IN_BATCH
      )
      const rawCold = await rawLatestBatch(
        bench.dir,
        bench.serverCores,
        data.databaseUrl(),
        data.poolSize,
        warm,
        answers
      )
      try {
        const cold = await compare(
          bench,
          `batch of 50, ${COLD_IN_BATCH} cold`,
          server,
          rawCold,
          "/api/risk-check/batch",
          script
        )
        rows.push({
          scenario: `batch of 50 with ${COLD_IN_BATCH} cold mints`,
          note: `${warm.length} warm, ${COLD_IN_BATCH} drawn per request from ${count(data.coldPool.length)} scanned mints; baseline: raw pg reading the same cold mints in one statement, then the all-warm batch's bytes`,
          database: data.database,
          target: coldBatchTarget(cold.service, cold.base, data.postgres),
          baseline: cold.base,
          service: cold.service
        })
      } finally {
        await rawCold.stop()
      }
    }
    return rows
  } finally {
    await raw.stop()
  }
}

export interface TokenRiskData {
  readonly database: string
  readonly databaseUrl: string
  readonly accounts: ReadonlyArray<BenchAccount>
  readonly mints: ReadonlyArray<string>
}

/**
 * POST /api/v1/token/risk with auth and quota, a key of a different account and a mint drawn at random
 * per request. Every key and every mint is asked twice first (so every mint is in the scan cache, as the
 * baseline assumes): each must answer 200, and the baseline answers each mint with those bytes.
 */
export const tokenRiskScenario = async (
  bench: Bench,
  server: RunningServer,
  data: TokenRiskData,
  allAccounts?: Row
): Promise<Row> => {
  const path = "/api/v1/token/risk"
  const pairs = Array.from({ length: Math.max(data.accounts.length, data.mints.length) }, (_, i) => ({
    key: data.accounts[i % data.accounts.length]!.key,
    mint: data.mints[i % data.mints.length]!
  }))
  const requests = pairs.map(({ key, mint }, i) => ({
    key: String(i),
    request: () =>
      postJson(`${server.url}${path}`, JSON.stringify({ address: mint }), { authorization: `Bearer ${key}` })
  }))
  // Twice: the scan cache keeps a mint from its second read, and the baseline answers from a warm cache.
  await capture(requests)
  const answers = await capture(requests)
  reportStatuses("token risk", answers)
  const byMint = new Map(pairs.map(({ mint }, i) => [mint, answers.get(String(i))!]))
  const script = keyedPostScript(
    bench.dir,
    "token-risk",
    path,
    data.accounts.map((account) => account.key),
    data.mints
  )
  await warmUp(bench, { url: server.url, script }, server.process.pid)
  const raw = await rawTokenRisk(
    bench.dir,
    bench.serverCores,
    data.databaseUrl,
    bench.poolSize,
    TOKEN_RISK_COST,
    byMint
  )
  try {
    // The baseline is warmed up too (its JIT, its pool, its key lookups), as the service was.
    await warmUp(bench, { url: raw.url, script }, raw.pid)
    const { base, service } = await compare(
      bench,
      allAccounts === undefined ? "token risk, auth + quota" : "token risk, one account",
      server,
      raw,
      "",
      script
    )
    if (allAccounts !== undefined) {
      return {
        scenario: "POST /api/v1/token/risk, auth + quota, every call from one account",
        note: `1 account, ${count(data.mints.length)} mints; baseline: raw pg, the same statements, one charge per call (the service charges an account's concurrent calls together)`,
        database: data.database,
        target: oneAccountTarget(service, allAccounts.service),
        baseline: base,
        service
      }
    }
    return {
      scenario: "POST /api/v1/token/risk, auth + quota",
      note: `${count(data.accounts.length)} accounts, ${count(data.mints.length)} mints; baseline: raw pg, the same statements (the charge, then its reservation confirmed after the answer, confirmations gathered; keys cached and revalidated every 0.5 s)`,
      database: data.database,
      target: tokenRiskTarget(service, base),
      baseline: base,
      service
    }
  } finally {
    await raw.stop()
  }
}

export interface LookupData {
  readonly database: string
  readonly databaseUrl: string
  readonly mints: ReadonlyArray<string>
}

/** GET /api/risk-check/{random scanned mint} on a service whose scan cache is off: one lookup per request. */
export const lookupScenario = async (
  bench: Bench,
  server: RunningServer,
  data: LookupData,
  reference?: Row
): Promise<Row> => {
  const paths = data.mints.map(riskCheckPath)
  const answers = await capture(paths.map((path) => get(server, path)))
  reportStatuses("lookup", answers)
  const script = randomGetScript(bench.dir, `lookup-${data.mints.length}`, paths)
  await warmUp(bench, { url: server.url, script }, server.process.pid)
  const plan = await latestScanPlan(data.databaseUrl, data.mints[0]!)
  console.log(`  plan: ${plan}`)
  const raw = await rawLatestScan(bench.dir, bench.serverCores, data.databaseUrl, bench.poolSize, answers)
  try {
    const { base, service } = await compare(bench, `latest-scan lookup, ${data.database}`, server, raw, "", script)
    return {
      scenario: "latest-scan lookup, cache off",
      note: `${count(data.mints.length)} mints at random; baseline: raw pg, same statement; plan: ${plan}`,
      database: data.database,
      target:
        reference === undefined ? lookupReferenceTarget : lookupTarget(service, reference.service, reference.database),
      baseline: base,
      service
    }
  } finally {
    await raw.stop()
  }
}

const cacheCounts = async (server: RunningServer): Promise<{ readonly hit: number; readonly miss: number }> => {
  const text = await (await fetch(`${server.url}/metrics`)).text()
  const countOf = (result: string) =>
    Number(new RegExp(`risk_api_scan_cache_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
  return { hit: countOf("hit"), miss: countOf("miss") }
}

/** Peak RSS of the service under GET /api/risk-check/{any scanned mint at random}, default cache settings. */
export const rssScenario = async (bench: Bench, server: RunningServer, data: LookupData): Promise<Row> => {
  const { size } = Effect.runSync(ScanCacheConfig)
  const before = await cacheCounts(server)
  const script = randomGetScript(bench.dir, "rss", data.mints.map(riskCheckPath))
  const service = await loadService(bench, `RSS under load, ${data.database}: service`, server, {
    url: server.url,
    script
  })
  const after = await cacheCounts(server)
  const held = Math.min(after.miss, size)
  console.log(
    `  scan cache: ${after.hit - before.hit} hits, ${after.miss - before.miss} misses in this run; ` +
      `${after.hit} hits, ${after.miss} misses since start, so at most ${held} entries held (SCAN_CACHE_SIZE ${size})`
  )
  return {
    scenario: "RSS under load, default cache",
    note: `${count(data.mints.length)} mints at random; cache held ≤ ${count(held)} of ${count(size)} entries`,
    database: data.database,
    target: rssTarget(service, RSS_LIMIT_MB),
    baseline: undefined,
    service
  }
}
