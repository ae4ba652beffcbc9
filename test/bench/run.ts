// npm run bench [-- --tokens N --scans N --small-scans N --accounts N --token-mints N --lookup-mints N
//                   --duration S --connections C --pool N]
// Loads the service on the embedded database and on PostgreSQL, each next to a baseline that answers the
// same bytes (raw Bun.serve, or raw Bun.serve + node-postgres doing the service's round trips), with wrk,
// one run at a time, and prints a markdown table for the README. A benchmark, not a test: it asserts nothing.
// PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is used as admin
// to create risk_api_bench_<scans> databases, kept for the next run; without it only the embedded rows run.
// At the defaults the whole run takes about 4 minutes on 2 cores with the 1,000,000-scan database
// reused, about 1 more the first time (see dataset.ts).
import { mkdtempSync, rmSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { generateDemoDataset } from "../../src/Demo/generate.ts"
import { runCli } from "../support/process.ts"
import { type BenchDatabase, benchAccounts, benchDatabase, isReachable, randomMint } from "./dataset.ts"
import { markdownTable, notMetLines, type Row } from "./report.ts"
import { type Bench, lookupScenario, riskCheckScenarios, rssScenario, tokenRiskScenario, withServer } from "./scenarios.ts"

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
    connections: { type: "string", default: "50" },
    pool: { type: "string", default: "10" }
  }
})

const positive = (name: keyof typeof values): number => {
  const value = Number(values[name])
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, got ${values[name]}`)
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

const embeddedRows = async (bench: Bench, neverScanned: ReadonlyArray<string>): Promise<{ rows: ReadonlyArray<Row>; line: string }> => {
  const dataset = generateDemoDataset({ now: new Date(), tokens: options.tokens })
  await Bun.write(join(bench.dir, "scans.ndjson"), dataset.scans.map((scan) => JSON.stringify(scan)).join("\n"))
  const env = { DATA_DIR: join(bench.dir, "data") }
  const imported = await runCli(["import", join(bench.dir, "scans.ndjson")], env)
  console.log(imported.stdout.trim())
  const mints = [...new Set(dataset.scans.map((scan) => scan.mint))]
  const rows = await withServer(bench, "embedded", env, (server) =>
    riskCheckScenarios(bench, server, { database: "embedded", warm: dataset.showcase.ok_fresh!, batch: mints.slice(0, BATCH), neverScanned }))
  return { rows, line: `embedded: ${count(options.tokens)} demo tokens, ${count(dataset.scans.length)} scans` }
}

const describe = (db: BenchDatabase) =>
  `${count(db.scans)} scans of ${count(db.mints.length)} mints (` +
  (db.reused ? `reused in ${db.openSeconds.toFixed(1)} s; its build took ${db.buildSeconds.toFixed(1)} s` : `built in ${db.buildSeconds.toFixed(1)} s`) + ")"

const postgresRows = async (bench: Bench, neverScanned: ReadonlyArray<string>): Promise<{ rows: ReadonlyArray<Row>; line: string }> => {
  console.log(`\nPostgreSQL bench databases (admin ${withoutPassword(adminUrl)}):`)
  const small = await benchDatabase(adminUrl, options.smallScans)
  console.log(`  ${describe(small)}`)
  const large = await benchDatabase(adminUrl, options.scans)
  console.log(`  ${describe(large)}`)
  const accounts = await benchAccounts(large.url, options.accounts)
  const label = (db: BenchDatabase) => `PostgreSQL, ${count(db.scans)} scans`
  const env = (db: BenchDatabase, extra: Record<string, string> = {}) => ({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: String(bench.poolSize), ...extra })

  const cached = await withServer(bench, `PostgreSQL ${count(large.scans)} scans, default cache`, env(large), async (server) => [
    ...await riskCheckScenarios(bench, server, { database: label(large), warm: large.mints[0]!, batch: large.mints.slice(0, BATCH), neverScanned }),
    await tokenRiskScenario(bench, server, { database: label(large), databaseUrl: large.url, accounts, mints: sample(large.mints, options.tokenMints) }),
    await rssScenario(bench, server, { database: label(large), databaseUrl: large.url, mints: large.mints })
  ])
  const lookup = (db: BenchDatabase, reference?: Row) =>
    withServer(bench, `PostgreSQL ${count(db.scans)} scans, SCAN_CACHE_SIZE=0`, env(db, { SCAN_CACHE_SIZE: "0" }), (server) =>
      lookupScenario(bench, server, { database: label(db), databaseUrl: db.url, mints: sample(db.mints, options.lookupMints) }, reference))
  const smallLookup = await lookup(small)
  const largeLookup = await lookup(large, smallLookup)
  return {
    rows: [...cached, smallLookup, largeLookup],
    line: `PostgreSQL: ${describe(large)} and ${describe(small)}, ${count(options.accounts)} enterprise accounts with one key each`
  }
}

const dir = mkdtempSync(join(tmpdir(), "risk-api-bench-"))
const bench: Bench = { wrk: { connections: positive("connections"), durationSeconds: positive("duration") }, dir, poolSize: options.poolSize, serverLogs: [] }
const neverScanned = Array.from({ length: NEVER_SCANNED }, randomMint)
const started = performance.now()
const rows: Array<Row> = []
const lines: Array<string> = []
try {
  const embedded = await embeddedRows(bench, neverScanned)
  rows.push(...embedded.rows)
  lines.push(embedded.line)
  if (await isReachable(adminUrl)) {
    const postgres = await postgresRows(bench, neverScanned)
    rows.push(...postgres.rows)
    lines.push(postgres.line)
  } else {
    console.log(`\nPostgreSQL not reachable at ${withoutPassword(adminUrl)} (BENCH_DATABASE_URL): PostgreSQL rows skipped`)
    lines.push("PostgreSQL: not reachable, rows skipped")
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

console.log(`\n${markdownTable(rows)}\n`)
const notMet = notMetLines(rows)
if (notMet.length > 0) console.log(`Targets not met, and what limits them:\n${notMet.join("\n")}\n`)
console.log(`Dataset: ${lines.join("; ")}; ${count(NEVER_SCANNED)} never-scanned mints. ` +
  `wrk -t2 -c${bench.wrk.connections} -d${bench.wrk.durationSeconds}s, one run at a time; DATABASE_POOL_SIZE ${bench.poolSize} ` +
  `(the raw-pg baselines use as many connections); ${availableParallelism()} cores; ${new Date().toISOString()}; ` +
  `whole bench ${((performance.now() - started) / 1000).toFixed(0)} s.`)
if (bench.serverLogs.length > 0) console.log(`\nServer logs (warnings and errors):\n${bench.serverLogs.map((line) => `  ${line}`).join("\n")}`)
