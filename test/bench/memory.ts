// npm run bench:memory [-- --program start|binary|both --duration S --connections C --accounts N --idle S
//                          --server-cores LIST --load-cores LIST]
// The embedded server's memory from its first start to a restart, as `npm start` runs it (bun src/main.ts;
// new data directory, demo data seeded, no DATABASE_URL) and as the binary of `npm run build` runs it (the same
// code bundled and minified: fewer modules loaded). RSS sampled every 100 ms (the service and any process under it) and,
// at the end of each phase, where it goes (smaps from outside, risk_api_memory_bytes from its /metrics).
// Phases: first start until /ready (database created, migrated, seeded), idle, mixed load (warm and cold
// risk-checks, keyed POST /api/v1/token/risk, batches of 50), idle after the load, restart, idle.
// Pinned as `npm run bench` pins: the service under `taskset -c <server cores>` from its start, wrk under
// `taskset -c <load cores>`. Targets (issue 16): peak ≤ 300 MB through the load, ≤ 200 MB idle, first start
// ready ≤ 5 s, restart ≤ 2 s. A benchmark, not a test: it asserts nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { Client } from "pg"
import { buildBinary, SOURCES } from "../support/process.ts"
import { benchAccounts, randomMint } from "./dataset.ts"
import { breakdownOf, type Breakdown, mb, rssSampler } from "./memoryProbe.ts"
import { pinned, planPinning } from "./pinning.ts"
import { parseWrk } from "./wrk.ts"

const { values } = parseArgs({
  options: {
    program: { type: "string", default: "both" },
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    accounts: { type: "string", default: "100" },
    idle: { type: "string", default: "10" },
    "server-cores": { type: "string", default: process.env.BENCH_SERVER_CORES ?? "0" },
    "load-cores": { type: "string", default: process.env.BENCH_LOAD_CORES ?? "1" }
  }
})
const positive = (name: "duration" | "connections" | "accounts" | "idle"): number => {
  const value = Number(values[name])
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`--${name} must be a positive integer, got ${values[name]}`)
  return value
}
const settings = {
  duration: positive("duration"),
  connections: positive("connections"),
  accounts: positive("accounts"),
  idle: positive("idle")
}
const PROGRAMS = values.program === "both" ? ["start", "binary"] : [values.program ?? ""]
if (PROGRAMS.some((program) => program !== "start" && program !== "binary"))
  throw new RangeError(`--program takes start, binary or both; got ${values.program}`)
if (Bun.which("wrk") === null) {
  console.error("wrk is needed: apt-get install wrk")
  process.exit(1)
}

const PEAK_LIMIT_MB = 300
const IDLE_LIMIT_MB = 200
const FIRST_START_LIMIT_S = 5
const RESTART_LIMIT_S = 2
const load1 = () => loadavg()[0]!.toFixed(2)
const pinning = planPinning({
  server: values["server-cores"],
  load: values["load-cores"],
  database: values["load-cores"]
})

interface Service {
  readonly url: string
  readonly process: Bun.Subprocess
  readonly readySeconds: number
}

// The environment `npm start` sees, less anything that would pick another database or skip the seeding.
const env = (dataDir: string, port: number): Record<string, string> => {
  const own: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !["DATABASE_URL", "DATA_DIR", "SEED_DEMO"].includes(key)) own[key] = value
  }
  return {
    ...own,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warning",
    PUBLIC_RATE_LIMIT_PER_MINUTE: "0"
  }
}

const freePort = (): number => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

/** Starts the service (pinned from its first instruction) and waits for /ready, sampling its RSS meanwhile. */
const start = async (
  program: ReadonlyArray<string>,
  dataDir: string,
  onSpawn: (pid: number) => void
): Promise<Service> => {
  const port = freePort()
  const started = performance.now()
  const child = Bun.spawn(pinned(pinning.server, [...program, "serve"]), {
    env: env(dataDir, port),
    stdout: "inherit",
    stderr: "inherit"
  })
  onSpawn(child.pid)
  const url = `http://127.0.0.1:${port}`
  while (performance.now() - started < 120_000) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} while starting`)
    if (
      await fetch(`${url}/ready`).then(
        (r) => r.ok,
        () => false
      )
    ) {
      return { url, process: child, readySeconds: (performance.now() - started) / 1000 }
    }
    await Bun.sleep(25)
  }
  child.kill("SIGKILL")
  throw new Error("the service was not ready in 120 s")
}

const stop = async (service: Service) => {
  service.process.kill("SIGTERM")
  await service.process.exited
}

interface Phase {
  readonly program: string
  readonly name: string
  readonly load: string
  readonly seconds: number
  readonly peak: number
  readonly at: Breakdown
  readonly note?: string | undefined
}
const phases: Array<Phase> = []
let current = ""
const record = async (name: string, seconds: number, peak: number, service: Service, note?: string) => {
  const at = await breakdownOf(service.process.pid, service.url)
  const phase: Phase = { program: current, name, load: load1(), seconds, peak: Math.max(peak, at.rss), at, note }
  phases.push(phase)
  console.log(
    `  ${name}: peak ${mb(phase.peak)} MB, now ${mb(at.rss)} MB (load ${phase.load})${note === undefined ? "" : `; ${note}`}`
  )
}

const idle = async (name: string, service: Service) => {
  const sampler = rssSampler(service.process.pid)
  await Bun.sleep(settings.idle * 1000)
  sampler.stop()
  await record(name, settings.idle, sampler.peak(), service)
}

/** The embedded database's loopback port, from the lock file its owner wrote (src/platform/Sql/EmbeddedLock.ts). */
const embeddedUrl = (dataDir: string): string => {
  const owner = JSON.parse(readFileSync(join(dataDir, "risk-api.lock"), "utf8")) as { port: number }
  return `postgres://postgres@127.0.0.1:${owner.port}/postgres`
}

const seededMints = async (url: string): Promise<ReadonlyArray<string>> => {
  const client = new Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ mint: string }>("select distinct mint from scans order by mint")).rows.map(
      (row) => row.mint
    )
  } finally {
    await client.end()
  }
}

const lines = (dir: string, name: string, items: ReadonlyArray<string>) => {
  const path = join(dir, `${name}.txt`)
  writeFileSync(path, `${items.join("\n")}\n`)
  return path
}

/**
 * One request in ten a batch of 50 (one of 20 bodies of seeded and never-scanned mints), three keyed token
 * risks (a key and a seeded mint at random), four warm risk-checks (ten hot mints), two cold ones (any
 * seeded or never-scanned mint).
 */
const mixedScript = (dir: string, mints: ReadonlyArray<string>, keys: ReadonlyArray<string>): string => {
  const never = Array.from({ length: 1_000 }, randomMint)
  const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(Math.random() * items.length)]!
  const bodies = Array.from({ length: 20 }, () =>
    JSON.stringify({ addresses: Array.from({ length: 50 }, () => pick(Math.random() < 0.8 ? mints : never)) })
  )
  const list = (name: string, items: ReadonlyArray<string>) =>
    `local ${name} = {}\nfor line in io.lines(${JSON.stringify(lines(dir, name, items))}) do ${name}[#${name} + 1] = line end`
  const path = join(dir, "mixed.lua")
  writeFileSync(
    path,
    [
      list(
        "hot",
        mints.slice(0, 10).map((mint) => `/api/risk-check/${mint}`)
      ),
      list(
        "cold",
        [...mints, ...never].map((mint) => `/api/risk-check/${mint}`)
      ),
      list("mints", mints),
      list("keys", keys),
      list("bodies", bodies),
      `local threads = 0`,
      `function setup(thread) threads = threads + 1; thread:set("id", threads) end`,
      `function init(args) math.randomseed(os.time() * 7919 + id) end`,
      `local json = { ["Content-Type"] = "application/json" }`,
      `function request()`,
      `  local r = math.random(10)`,
      `  if r == 1 then return wrk.format("POST", "/api/risk-check/batch", json, bodies[math.random(#bodies)]) end`,
      `  if r <= 4 then`,
      `    local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. keys[math.random(#keys)] }`,
      `    return wrk.format("POST", "/api/v1/token/risk", headers, '{"address":"' .. mints[math.random(#mints)] .. '"}')`,
      `  end`,
      `  if r <= 8 then return wrk.format("GET", hot[math.random(#hot)]) end`,
      `  return wrk.format("GET", cold[math.random(#cold)])`,
      `end`
    ].join("\n")
  )
  return path
}

const mixedLoad = async (dir: string, service: Service, dataDir: string) => {
  const databaseUrl = embeddedUrl(dataDir)
  const mints = await seededMints(databaseUrl)
  const accounts = await benchAccounts(databaseUrl, settings.accounts)
  const script = mixedScript(
    dir,
    mints,
    accounts.map((account) => account.key)
  )
  const sampler = rssSampler(service.process.pid)
  const args = pinned(pinning.load, [
    "wrk",
    `-t${pinning.wrkThreads}`,
    `-c${settings.connections}`,
    `-d${settings.duration}s`,
    "--latency",
    "-s",
    script,
    service.url
  ])
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" })
  const [output] = await Promise.all([new Response(child.stdout).text(), child.exited])
  sampler.stop()
  if (service.process.exitCode !== null) throw new Error(`the service exited (${service.process.exitCode}) under load`)
  const figures = parseWrk(output, 0)
  const note =
    `${figures.rps.toLocaleString("en-US")} req/s, p99 ${figures.p99Ms.toFixed(1)} ms, ` +
    `${figures.non2xx} non-2xx, ${figures.socketErrors} socket errors; ${mints.length} seeded mints, ${accounts.length} accounts`
  await record(`mixed load, ${settings.duration} s`, settings.duration, sampler.peak(), service, note)
}

/** First start on a new data directory, idle, mixed load, idle, restart, idle; ready times in seconds. */
const run = async (dir: string, program: ReadonlyArray<string>) => {
  const dataDir = join(dir, "data")
  console.log(`First start on a new data directory (${dataDir}):`)
  let sampler = rssSampler(0)
  const follow = (pid: number) => {
    sampler.stop()
    sampler = rssSampler(pid)
  }
  let service = await start(program, dataDir, follow)
  sampler.stop()
  const firstStart = service.readySeconds
  await record("first start to ready (created, migrated, seeded)", firstStart, sampler.peak(), service)
  await idle("idle after the first start", service)
  await mixedLoad(dir, service, dataDir)
  await idle("idle after the load", service)
  await stop(service)
  console.log("Restart on the same data directory:")
  service = await start(program, dataDir, follow)
  sampler.stop()
  const restart = service.readySeconds
  await record("restart to ready", restart, sampler.peak(), service)
  await idle("idle after the restart", service)
  await stop(service)
  return { firstStart, restart }
}

const loadBefore = loadavg()
  .map((n) => n.toFixed(2))
  .join(", ")
console.log(`Pinning: ${pinning.note}`)
if (loadavg()[0]! > 0.5) console.log(`⚠ load average ${loadBefore} before the run: other work shares these cores`)
const readiness = new Map<string, { firstStart: number; restart: number }>()
for (const program of PROGRAMS) {
  const dir = mkdtempSync(join(tmpdir(), "risk-api-memory-"))
  try {
    current = program === "start" ? "npm start" : "binary"
    console.log(
      `\n== ${current === "npm start" ? "npm start (bun src/main.ts serve)" : "the compiled binary (npm run build)"}`
    )
    const argv = program === "binary" ? buildBinary(join(dir, "risk-api")) : SOURCES
    readiness.set(current, await run(dir, argv))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const part = (phase: Phase, name: string) => mb(phase.at.parts[name])
console.log(
  `\n| program | phase | load | s | peak RSS MB | RSS MB | PGlite WASM resident / reserved MB | JS objects MB (server / database thread) | scan cache MB | code MB | other anon MB |`
)
console.log(`|---|---|---|---|---|---|---|---|---|---|---|`)
for (const phase of phases) {
  console.log(
    `| ${phase.program} | ${phase.name} | ${phase.load} | ${phase.seconds.toFixed(1)} | ${mb(phase.peak)} | ${mb(phase.at.rss)} | ` +
      `${mb(phase.at.wasmResident)} / ${mb(phase.at.wasmReserved)} | ${part(phase, "js_objects")} / ${part(phase, "embedded_db_js_objects")} | ` +
      `${part(phase, "scan_cache")} | ${mb(phase.at.code)} | ${mb(phase.at.otherAnon)} |`
  )
}
const MB = 1024 * 1024
const verdict = (met: boolean) => (met ? "met" : "NOT met")
for (const [program, ready] of readiness) {
  const own = phases.filter((phase) => phase.program === program)
  const peak = Math.max(...own.slice(0, 4).map((phase) => phase.peak)) / MB
  const idleMb = Math.max(...own.filter((phase) => phase.name.startsWith("idle")).map((phase) => phase.at.rss)) / MB
  console.log(
    `\n${program}: peak RSS from the first start through the load ${peak.toFixed(0)} MB (target ≤ ${PEAK_LIMIT_MB}: ${verdict(peak <= PEAK_LIMIT_MB)}); ` +
      `idle, the largest of the idle phases, ${idleMb.toFixed(0)} MB (target ≤ ${IDLE_LIMIT_MB}: ${verdict(idleMb <= IDLE_LIMIT_MB)}); ` +
      `first start ready in ${ready.firstStart.toFixed(2)} s (target ≤ ${FIRST_START_LIMIT_S}: ${verdict(ready.firstStart <= FIRST_START_LIMIT_S)}), ` +
      `restart in ${ready.restart.toFixed(2)} s (target ≤ ${RESTART_LIMIT_S}: ${verdict(ready.restart <= RESTART_LIMIT_S)})`
  )
  console.log(
    `target peak RSS ≤ ${PEAK_LIMIT_MB} MB under the mixed load (embedded, ${program}) : ` +
      (peak <= PEAK_LIMIT_MB ? "met" : `NOT met (measured ${peak.toFixed(0)} MB)`)
  )
  if (peak > PEAK_LIMIT_MB || idleMb > IDLE_LIMIT_MB) {
    // The measured reason, from this run's own breakdown: what the parts the service can bound take, against the rest.
    const worst = own.reduce((a, b) => (b.at.rss > a.at.rss ? b : a))
    console.log(
      `  what limits it (the phase "${worst.name}"): PGlite's WASM ${mb(worst.at.wasmResident)} MB resident, ` +
        `live JS objects ${part(worst, "js_objects")} MB, the scan cache ${part(worst, "scan_cache")} MB, code ${mb(worst.at.code)} MB; ` +
        `the other ${mb(worst.at.otherAnon)} MB of anonymous memory is the runtime's own (JavaScriptCore's heap beyond the live ` +
        `objects, its allocator's pages, JIT code, thread stacks), which the service does not size`
    )
  }
}
console.log(
  `\nwrk -t${pinning.wrkThreads} -c${settings.connections} -d${settings.duration}s; ${availableParallelism()} cores; ${pinning.note}; ` +
    `load average before the run ${loadBefore}; ${new Date().toISOString()}. RSS counts the service and any process under it, ` +
    `sampled every 100 ms; the WASM memory's resident pages are its smaps mapping; JS objects are the service's own account (risk_api_memory_bytes).`
)
