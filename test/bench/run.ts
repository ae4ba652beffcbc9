// npm run bench [-- --tokens N --duration S --connections C]
// Loads the service and a raw Bun.serve baseline (same bytes for the same path) with wrk, side by side,
// and prints req/s, p50, p99 and server RSS. A benchmark, not a test: it asserts nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { generateDemoDataset } from "../../src/demo/generate.ts"
import { freePort, runCli, startServer, type RunningServer } from "../support/process.ts"

const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "2000" },
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "50" }
  }
})
const tokens = Number(values.tokens)
const duration = Number(values.duration)
const connections = Number(values.connections)

if (Bun.which("wrk") === null) {
  console.error("wrk is needed: apt-get install wrk")
  process.exit(1)
}

interface Figures { readonly rps: number; readonly p50: string; readonly p99: string; readonly rssMb: number }

const rssOf = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
  return Math.round(Number(line?.replace(/\D+/g, "") ?? 0) / 1024)
}

const wrk = async (url: string, pid: number, script?: string): Promise<Figures> => {
  const args = ["wrk", "-t2", `-c${connections}`, `-d${duration}s`, "--latency", ...(script ? ["-s", script] : []), url]
  const output = await new Response(Bun.spawn(args, { stdout: "pipe" }).stdout).text()
  const pick = (pattern: RegExp) => pattern.exec(output)?.[1] ?? "?"
  return { rps: Math.round(Number(pick(/Requests\/sec:\s+([\d.]+)/))), p50: pick(/\s50%\s+(\S+)/), p99: pick(/\s99%\s+(\S+)/), rssMb: rssOf(pid) }
}

const postScript = (dir: string, name: string, body: string, headers: Record<string, string> = {}) => {
  const path = join(dir, `${name}.lua`)
  const lines = [
    `wrk.method = "POST"`,
    `wrk.body = ${JSON.stringify(body)}`,
    `wrk.headers["Content-Type"] = "application/json"`,
    ...Object.entries(headers).map(([key, value]) => `wrk.headers[${JSON.stringify(key)}] = ${JSON.stringify(value)}`)
  ]
  writeFileSync(path, lines.join("\n"))
  return path
}

/** A raw Bun.serve answering each path with the bytes the service gave for it. */
const baseline = (answers: ReadonlyMap<string, { body: ArrayBuffer; headers: Headers }>) => {
  const server = Bun.serve({
    port: freePort(),
    fetch: async (request) => {
      const key = `${request.method} ${new URL(request.url).pathname}`
      if (request.method === "POST") await request.arrayBuffer()
      const answer = answers.get(key)
      return answer === undefined ? new Response("", { status: 404 }) : new Response(answer.body, { headers: answer.headers })
    }
  })
  return server
}

const dir = mkdtempSync(join(tmpdir(), "risk-api-bench-"))
const now = new Date()
const dataset = generateDemoDataset({ now, tokens })
await Bun.write(join(dir, "scans.ndjson"), dataset.scans.map((scan) => JSON.stringify(scan)).join("\n"))
const env = { DATA_DIR: join(dir, "data"), PUBLIC_RATE_LIMIT_PER_MINUTE: "0", LOG_LEVEL: "warning" }
const imported = await runCli(["import", join(dir, "scans.ndjson")], env)
console.log(imported.stdout.trim())

const warm = dataset.showcase.ok_fresh!
const never = dataset.neverScanned[0]!
const batch = JSON.stringify({ addresses: dataset.scans.slice(0, 200).map((scan) => scan.mint).filter((m, i, all) => all.indexOf(m) === i).slice(0, 50) })

const rows: Array<[string, string, Figures]> = []
const server: RunningServer = await startServer(env)
try {
  const answers = new Map<string, { body: ArrayBuffer; headers: Headers }>()
  for (const path of [`/api/risk-check/${warm}`, `/api/risk-check/${never}`]) {
    const response = await fetch(`${server.url}${path}`)
    answers.set(`GET ${path}`, { body: await response.arrayBuffer(), headers: response.headers })
  }
  const batchResponse = await fetch(`${server.url}/api/risk-check/batch`, { method: "POST", headers: { "content-type": "application/json" }, body: batch })
  answers.set("POST /api/risk-check/batch", { body: await batchResponse.arrayBuffer(), headers: batchResponse.headers })
  const raw = baseline(answers)
  const batchScript = postScript(dir, "batch", batch)
  const scenarios: Array<[string, string, string | undefined]> = [
    ["single risk-check, warm", `/api/risk-check/${warm}`, undefined],
    ["single risk-check, never scanned", `/api/risk-check/${never}`, undefined],
    ["batch of 50", "/api/risk-check/batch", batchScript]
  ]
  for (const [name, path, script] of scenarios) {
    rows.push([name, "baseline", await wrk(`http://127.0.0.1:${raw.port}${path}`, process.pid, script)])
    rows.push([name, "service (embedded)", await wrk(`${server.url}${path}`, server.process.pid, script)])
  }
  raw.stop(true)
} finally {
  server.process.kill("SIGTERM")
  await server.process.exited
  rmSync(dir, { recursive: true, force: true })
}

const pad = (text: string, width: number) => text.padEnd(width)
console.log(`\n${tokens} tokens (${dataset.scans.length} scans), wrk -c${connections} -d${duration}s, ${new Date().toISOString()}\n`)
console.log([pad("scenario", 34), pad("target", 20), pad("req/s", 9), pad("p50", 9), pad("p99", 9), pad("RSS MB", 7), "vs baseline"].join(" | "))
for (let i = 0; i < rows.length; i += 2) {
  const [name, , base] = rows[i]!
  const [, target, service] = rows[i + 1]!
  for (const [label, figures] of [["baseline (raw Bun.serve)", base], [target, service]] as const) {
    const ratio = label === target ? `${(figures.rps / base.rps).toFixed(2)}x` : "1.00x"
    console.log([pad(name, 34), pad(label, 20), pad(String(figures.rps), 9), pad(figures.p50, 9), pad(figures.p99, 9), pad(String(figures.rssMb), 7), ratio].join(" | "))
  }
}
