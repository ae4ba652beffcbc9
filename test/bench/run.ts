// npm run bench [-- --tokens N --scans N --small-scans N --accounts N --token-mints N --lookup-mints N
//                   --duration S --connections C --pool N --server-cores LIST --load-cores LIST --db-cores LIST
//                   --only warm,never,batch,token-risk,rss,lookup,history,scanner,memory --skip-postgres --skip-embedded --skip-10m
//                   --server binary|sources]
// Loads the service on the embedded database and on PostgreSQL, each next to a baseline that answers the
// same bytes (raw Bun.serve, or raw Bun.serve + node-postgres doing the service's round trips), with wrk,
// one run at a time, and prints a markdown table for the README. A benchmark, not a test: it asserts nothing.
// Pinned: the service and each baseline (a process of its own) run under `taskset -c <server cores>`
// (default 0), wrk under `taskset -c <load cores> wrk -t<one per load core>` (default 1), and a local
// PostgreSQL is pinned to the database cores (default: the load cores) for the run. Core lists also come
// from BENCH_SERVER_CORES, BENCH_LOAD_CORES, BENCH_DB_CORES. Without taskset or a second core nothing is
// pinned and the bench prints why.
// PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is used as admin
// to create risk_api_bench_<scans> databases, kept for the next run; without it only the embedded rows run.
// At the defaults the whole run takes about 4 minutes on 2 cores with the 1,000,000-scan database
// reused, about 1 more the first time (see dataset.ts). The history rows (history.ts: scan history at scanner
// rate, 1M vs 10M scans, storage per day) add about 1 minute reused, about 3 more the first time; --skip-10m
// leaves out the 10M database.
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { generateDemoDataset } from "../../src/features/Demo/generate.ts"
import { buildBinary, runCli, SOURCES } from "../support/process.ts"
import { Client } from "pg"
import { Effect } from "effect"
import { ScanHistoryDays } from "../../src/features/Scans/ScanRetention.ts"
import { type BenchDatabase, benchAccounts, benchDatabase, isReachable, randomMint } from "./dataset.ts"
import { pinPostgres, planPinning } from "./pinning.ts"
import { historyBench, historyTable } from "./history.ts"
import { issue29TargetLines, markdownTable, notMetLines, type Row } from "./report.ts"
import {
  type Bench,
  lookupScenario,
  riskCheckScenarios,
  rssScenario,
  tokenRiskScenario,
  withServer
} from "./scenarios.ts"

const NEVER_SCANNED = 1_000
const BATCH = 50

const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "2000" },
    scans: { type: "string", default: "1000000" },
    "small-scans": { type: "string", default: "10000" },
    accounts: { type: "string", default: "1000" },
    "token-mints": { type: "string", default: "2000" },
    "lookup-mints": { type: "string", default: "10000" },
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "64" },
    pool: { type: "string", default: "10" },
    "server-cores": { type: "string", default: process.env.BENCH_SERVER_CORES ?? "0" },
    "load-cores": { type: "string", default: process.env.BENCH_LOAD_CORES ?? "1" },
    "db-cores": { type: "string", default: process.env.BENCH_DB_CORES },
    only: { type: "string" },
    "skip-postgres": { type: "boolean", default: false },
    "skip-embedded": { type: "boolean", default: false },
    "skip-10m": { type: "boolean", default: false },
    server: { type: "string", default: "binary" }
  }
})

const positive = (
  name:
    | "tokens"
    | "scans"
    | "small-scans"
    | "accounts"
    | "token-mints"
    | "lookup-mints"
    | "duration"
    | "connections"
    | "pool"
): number => {
  const value = Number(values[name])
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`--${name} must be a positive integer, got ${values[name]}`)
  return value
}

const options = {
  tokens: positive("tokens"),
  scans: positive("scans"),
  smallScans: positive("small-scans"),
  accounts: positive("accounts"),
  tokenMints: positive("token-mints"),
  lookupMints: positive("lookup-mints"),
  poolSize: positive("pool")
}
const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

if (Bun.which("wrk") === null) {
  console.error("wrk is needed: apt-get install wrk")
  process.exit(1)
}

const count = (n: number) => n.toLocaleString("en-US")
const withoutPassword = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@")

/** `n` of `items` at random (all of them if there are fewer). */
const sample = <A>(items: ReadonlyArray<A>, n: number): ReadonlyArray<A> => {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
  }
  return copy.slice(0, n)
}

const embeddedRows = async (
  bench: Bench,
  neverScanned: ReadonlyArray<string>
): Promise<{ rows: ReadonlyArray<Row>; line: string }> => {
  const dataset = generateDemoDataset({ now: new Date(), tokens: options.tokens })
  await Bun.write(join(bench.dir, "scans.ndjson"), dataset.scans.map((scan) => JSON.stringify(scan)).join("\n"))
  const env = { DATA_DIR: join(bench.dir, "data") }
  const imported = await runCli(["import", join(bench.dir, "scans.ndjson")], env)
  console.log(imported.stdout.trim())
  const mints = [...new Set(dataset.scans.map((scan) => scan.mint))]
  const rows = await withServer(bench, "embedded", env, (server) =>
    riskCheckScenarios(bench, server, {
      database: "embedded",
      warm: dataset.showcase.ok_fresh!,
      batch: mints.slice(0, BATCH),
      neverScanned,
      coldPool: mints.slice(BATCH),
      // The raw-pg baseline reads the same embedded database, through the socket the server opened.
      databaseUrl: () => {
        const owner = JSON.parse(readFileSync(join(env.DATA_DIR, "risk-api.lock"), "utf8")) as { port: number }
        return `postgres://postgres@127.0.0.1:${owner.port}/postgres`
      },
      postgres: false,
      poolSize: 1
    })
  )
  return { rows, line: `embedded: ${count(options.tokens)} demo tokens, ${count(dataset.scans.length)} scans` }
}

const describe = (db: BenchDatabase) =>
  `${count(db.scans)} scans of ${count(db.mints.length)} mints (` +
  (db.reused
    ? `reused in ${db.openSeconds.toFixed(1)} s; its build took ${db.buildSeconds.toFixed(1)} s`
    : `built in ${db.buildSeconds.toFixed(1)} s`) +
  ")"

const postgresRows = async (
  bench: Bench,
  neverScanned: ReadonlyArray<string>
): Promise<{ rows: ReadonlyArray<Row>; line: string }> => {
  console.log(`\nPostgreSQL bench databases (admin ${withoutPassword(adminUrl)}):`)
  const small = await benchDatabase(adminUrl, options.smallScans)
  console.log(`  ${describe(small)}`)
  const large = await benchDatabase(adminUrl, options.scans)
  console.log(`  ${describe(large)}`)
  const accounts = await benchAccounts(large.url, options.accounts)
  const label = (db: BenchDatabase) => `PostgreSQL, ${count(db.scans)} scans`
  const env = (db: BenchDatabase, extra: Record<string, string> = {}) => ({
    DATABASE_URL: db.url,
    DATABASE_POOL_SIZE: String(bench.poolSize),
    ...extra
  })

  const cached = !(runs("warm") || runs("never") || runs("batch") || runs("token-risk") || runs("rss"))
    ? []
    : await withServer(bench, `PostgreSQL ${count(large.scans)} scans, default cache`, env(large), async (server) => [
        ...(runs("warm") || runs("never") || runs("batch")
          ? await riskCheckScenarios(bench, server, {
              database: label(large),
              warm: large.mints[0]!,
              batch: large.mints.slice(0, BATCH),
              neverScanned,
              coldPool: large.mints.slice(BATCH),
              databaseUrl: () => large.url,
              postgres: true,
              poolSize: bench.poolSize
            })
          : []),
        ...(runs("token-risk")
          ? await (async () => {
              const data = {
                database: label(large),
                databaseUrl: large.url,
                accounts,
                mints: sample(large.mints, options.tokenMints)
              }
              const all = await tokenRiskScenario(bench, server, data)
              // One busy account: every call from the first account's key (issue 29).
              return [all, await tokenRiskScenario(bench, server, { ...data, accounts: accounts.slice(0, 1) }, all)]
            })()
          : []),
        ...(runs("rss")
          ? [await rssScenario(bench, server, { database: label(large), databaseUrl: large.url, mints: large.mints })]
          : [])
      ])
  const lookup = (db: BenchDatabase, reference?: Row) =>
    withServer(
      bench,
      `PostgreSQL ${count(db.scans)} scans, SCAN_CACHE_SIZE=0`,
      env(db, { SCAN_CACHE_SIZE: "0" }),
      (server) =>
        lookupScenario(
          bench,
          server,
          { database: label(db), databaseUrl: db.url, mints: sample(db.mints, options.lookupMints) },
          reference
        )
    )
  const lookups: Array<Row> = []
  if (runs("lookup")) {
    const smallLookup = await lookup(small)
    lookups.push(smallLookup, await lookup(large, smallLookup))
  }
  return {
    rows: [...cached, ...lookups],
    line: `PostgreSQL: ${describe(large)} and ${describe(small)}, ${count(options.accounts)} enterprise accounts with one key each`
  }
}

// "scanner" and "memory" run their own scripts (scanner.ts, memory.ts) after the rest, each printing its table.
const SCENARIOS = ["warm", "never", "batch", "token-risk", "rss", "lookup", "history", "scanner", "memory"]
const only = values.only === undefined ? undefined : new Set(values.only.split(",").map((name) => name.trim()))
for (const name of only ?? [])
  if (!SCENARIOS.includes(name)) throw new RangeError(`--only takes ${SCENARIOS.join(",")}; got ${name}`)
const runs = (name: string) => only === undefined || only.has(name)

// Other work on the machine skews every figure: the load average is printed with the results.
const loadBefore = loadavg()
  .map((n) => n.toFixed(2))
  .join(", ")
if (loadavg()[0]! > 0.5)
  console.log(
    `⚠ load average ${loadBefore} before the run: other work shares these cores, figures will be low and noisy`
  )
const pinning = planPinning({
  server: values["server-cores"],
  load: values["load-cores"],
  database: values["db-cores"] ?? values["load-cores"]
})
console.log(`Pinning: ${pinning.note}`)

/** The pid of a backend of the bench's PostgreSQL, to find its postmaster (pinning.ts). */
const backendPid = async (url: string): Promise<number | undefined> => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
    return (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0]!.pid
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => undefined)
  }
}

const dir = mkdtempSync(join(tmpdir(), "risk-api-bench-"))
if (values.server !== "binary" && values.server !== "sources")
  throw new RangeError(`--server takes binary or sources, got ${values.server}`)
// The service as operators deploy it, one compiled binary (npm run build), unless --server sources (npm start's
// way: Bun loading the sources, about 50 MB more resident for the unbundled module graph).
const program = values.server === "binary" ? buildBinary(join(dir, "risk-api")) : SOURCES
console.log(
  `Service: ${values.server === "binary" ? "the compiled binary (npm run build)" : "the sources (bun src/main.ts)"}`
)
const bench: Bench = {
  wrk: {
    connections: positive("connections"),
    durationSeconds: positive("duration"),
    threads: pinning.wrkThreads,
    cores: pinning.load
  },
  dir,
  poolSize: options.poolSize,
  serverCores: pinning.server,
  program,
  only,
  serverLogs: []
}
const neverScanned = Array.from({ length: NEVER_SCANNED }, randomMint)
const started = performance.now()
const rows: Array<Row> = []
const lines: Array<string> = []
let history = ""
let restorePostgres = () => {}
let postgresNote = "PostgreSQL rows skipped"
process.once("SIGINT", () => {
  restorePostgres()
  process.exit(130)
})
try {
  if (!values["skip-embedded"] && (runs("warm") || runs("never") || runs("batch"))) {
    const embedded = await embeddedRows(bench, neverScanned)
    rows.push(...embedded.rows)
    lines.push(embedded.line)
  }
  if (values["skip-postgres"]) {
    lines.push("PostgreSQL: skipped (--skip-postgres)")
  } else if (await isReachable(adminUrl)) {
    const backend = await backendPid(adminUrl)
    const pinnedPostgres =
      backend === undefined
        ? { restore: () => {}, note: "PostgreSQL not pinned (no backend pid)" }
        : pinPostgres(backend, pinning.database)
    restorePostgres = pinnedPostgres.restore
    postgresNote = pinnedPostgres.note
    console.log(`\n${postgresNote}`)
    if (SCENARIOS.some((name) => !["history", "scanner", "memory"].includes(name) && runs(name))) {
      const postgres = await postgresRows(bench, neverScanned)
      rows.push(...postgres.rows)
      lines.push(postgres.line)
    }
    if (runs("history")) {
      console.log("\nScan history at scanner rate (history.ts):")
      const figures = await historyBench(adminUrl, { tenMillion: !values["skip-10m"], lookups: 2_000 })
      history = historyTable(figures.lookups, figures.storage, Effect.runSync(ScanHistoryDays))
    }
  } else {
    console.log(
      `\nPostgreSQL not reachable at ${withoutPassword(adminUrl)} (BENCH_DATABASE_URL): PostgreSQL rows skipped`
    )
    lines.push("PostgreSQL: not reachable, rows skipped")
  }
} finally {
  restorePostgres()
  rmSync(dir, { recursive: true, force: true })
}

if (rows.length > 0) console.log(`\n${markdownTable(rows)}\n`)
if (history !== "") console.log(`\n${history}\n`)
// Issue 29's targets, met or not, each with its measured figure (the embedded peak RSS under the mixed load:
// the memory script's own lines, below).
if (rows.length > 0) console.log(`Issue 29 targets:\n${issue29TargetLines(rows).join("\n")}\n`)
const notMet = notMetLines(rows)
if (notMet.length > 0) console.log(`Targets not met, and what limits them:\n${notMet.join("\n")}\n`)
if (rows.length > 0 || history !== "")
  console.log(
    `Dataset: ${lines.join("; ")}; ${count(NEVER_SCANNED)} never-scanned mints. ` +
      `wrk -t${bench.wrk.threads} -c${bench.wrk.connections} -d${bench.wrk.durationSeconds}s, one run at a time; DATABASE_POOL_SIZE ${bench.poolSize} ` +
      `(the raw-pg baselines use as many connections); ${availableParallelism()} cores; ${pinning.note}; ${postgresNote}; ` +
      `load average before the run ${loadBefore}; ${new Date().toISOString()}; ` +
      `whole bench ${((performance.now() - started) / 1000).toFixed(0)} s.`
  )
if (bench.serverLogs.length > 0)
  console.log(`\nServer logs (warnings and errors):\n${bench.serverLogs.map((line) => `  ${line}`).join("\n")}`)

// The scanner's and the embedded server's memory targets, in scripts of their own (npm run bench:scanner,
// npm run bench:memory), run one after the other on the same pinning.
const script = async (name: string, args: ReadonlyArray<string>) => {
  console.log(`\n== ${name} (bun test/bench/${name}.ts${args.length > 0 ? ` ${args.join(" ")}` : ""})`)
  const child = Bun.spawn([process.execPath, join(import.meta.dir, `${name}.ts`), ...args], {
    stdout: "inherit",
    stderr: "inherit"
  })
  if ((await child.exited) !== 0) console.log(`${name}.ts exited with code ${child.exitCode}`)
}
if (runs("scanner")) await script("scanner", [])
if (runs("memory")) {
  const cores = [
    ...(values["server-cores"] === undefined ? [] : ["--server-cores", values["server-cores"]]),
    ...(values["load-cores"] === undefined ? [] : ["--load-cores", values["load-cores"]])
  ]
  await script("memory", cores)
}
