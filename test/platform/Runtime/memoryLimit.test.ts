// The compiled binary under load inside a 512 MB memory cgroup: the kernel kills a process of the cgroup
// that goes past the limit, so the server must size itself from it (MEMORY_LIMIT_MB's default is the
// cgroup's limit) and live through the load. Needs a writable memory cgroup (v2 with the memory controller,
// or v1's memory hierarchy), i.e. root on a machine or a privileged container; skipped, saying so, without.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import { randomMint } from "../../bench/dataset.ts"
import { type Deployment, freePort, newDeployment, runCli } from "../../support/process.ts"

const LIMIT = 512 * 1024 * 1024
const ROOT = new URL("../../../", import.meta.url).pathname

interface MemoryCgroup {
  readonly procs: string
  /** The times the kernel killed a process of the cgroup for its memory. */
  readonly oomKills: () => number
  readonly peak: () => number | undefined
  readonly remove: () => void
}

const tryWrite = (path: string, text: string): boolean => {
  try {
    writeFileSync(path, text)
    return true
  } catch {
    return false
  }
}

/** A new memory cgroup limited to LIMIT bytes, or why there is none here. */
const makeCgroup = (): MemoryCgroup | string => {
  const name = `risk-api-test-${process.pid}-${Date.now()}`
  const v2 = "/sys/fs/cgroup"
  const v1 = "/sys/fs/cgroup/memory"
  const counter = (file: string, key: string) => () =>
    Number(new RegExp(`^${key} (\\d+)$`, "m").exec(readFileSync(file, "utf8"))?.[1] ?? 0)
  const create = (parent: string, limitFile: string): string | undefined => {
    const dir = join(parent, name)
    try {
      mkdirSync(dir)
    } catch {
      return undefined
    }
    if (tryWrite(join(dir, limitFile), String(LIMIT))) return dir
    rmdirSync(dir)
    return undefined
  }
  if (existsSync(join(v2, "cgroup.controllers"))) {
    const dir = readFileSync(join(v2, "cgroup.controllers"), "utf8").includes("memory")
      ? create(v2, "memory.max")
      : undefined
    if (dir === undefined)
      return "no writable cgroup v2 memory controller (/sys/fs/cgroup needs root and the memory controller)"
    if (existsSync(join(dir, "memory.swap.max"))) tryWrite(join(dir, "memory.swap.max"), "0")
    return {
      procs: join(dir, "cgroup.procs"),
      oomKills: counter(join(dir, "memory.events"), "oom_kill"),
      peak: () =>
        existsSync(join(dir, "memory.peak")) ? Number(readFileSync(join(dir, "memory.peak"), "utf8")) : undefined,
      remove: () => rmdirSync(dir)
    }
  }
  if (existsSync(join(v1, "memory.limit_in_bytes"))) {
    const dir = create(v1, "memory.limit_in_bytes")
    if (dir === undefined) return "the cgroup v1 memory hierarchy (/sys/fs/cgroup/memory) is not writable (needs root)"
    // With swap accounting, swap counts against the same limit: the process cannot swap its way past it.
    if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
      tryWrite(join(dir, "memory.memsw.limit_in_bytes"), String(LIMIT))
    return {
      procs: join(dir, "cgroup.procs"),
      oomKills: counter(join(dir, "memory.oom_control"), "oom_kill"),
      peak: () => Number(readFileSync(join(dir, "memory.max_usage_in_bytes"), "utf8")),
      remove: () => rmdirSync(dir)
    }
  }
  return "no cgroup memory controller mounted at /sys/fs/cgroup"
}

const cgroup = process.platform === "linux" ? makeCgroup() : "cgroups are Linux's"
const mechanism = typeof cgroup === "string" ? undefined : cgroup
if (mechanism === undefined) console.warn(`skipped: the 512 MB limit test needs a memory cgroup: ${cgroup}`)

let dir = ""
let binary = ""
let deployment: Deployment | undefined
let mints: ReadonlyArray<string> = []
beforeAll(async () => {
  if (mechanism === undefined) return
  dir = mkdtempSync(join(tmpdir(), "risk-api-limit-"))
  binary = join(dir, "risk-api")
  const built = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      join(ROOT, "src/main.ts"),
      join(ROOT, "src/platform/Sql/EmbeddedWorker.ts"),
      "--outfile",
      binary
    ],
    { stderr: "pipe" }
  )
  if (built.exitCode !== 0) throw new Error(`bun build failed: ${built.stderr.toString()}`)
  deployment = await newDeployment()
  const dataset = generateDemoDataset({ now: new Date(), tokens: 300 })
  const file = join(dir, "scans.ndjson")
  await Bun.write(file, dataset.scans.map((scan) => JSON.stringify(scan)).join("\n"))
  const imported = await runCli(["import", file], deployment.env)
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`)
  mints = [...new Set(dataset.scans.map((scan) => scan.mint))]
}, 180_000)

afterAll(async () => {
  await deployment?.cleanup()
  if (dir !== "") rmSync(dir, { recursive: true, force: true })
  mechanism?.remove()
})

test.skipIf(mechanism === undefined)(
  "the binary serves a mixed, miss-heavy load inside a 512 MB memory cgroup without being killed",
  async () => {
    const limit = mechanism!
    const port = freePort()
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined && !["DATABASE_URL", "DATA_DIR", "MEMORY_LIMIT_MB", "SCAN_CACHE_MAX_BYTES"].includes(key))
        env[key] = value
    // The shell joins the cgroup, then becomes the server: every page the server ever touches counts.
    const server = Bun.spawn(["sh", "-c", `echo $$ > ${limit.procs} && exec "$@"`, "sh", binary, "serve"], {
      env: {
        ...env,
        ...deployment!.env,
        SEED_DEMO: "false",
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warning",
        PUBLIC_RATE_LIMIT_PER_MINUTE: "0"
      },
      stdout: "ignore",
      stderr: "pipe"
    })
    const url = `http://127.0.0.1:${port}`
    try {
      while (
        !(await fetch(`${url}/ready`).then(
          (r) => r.ok,
          () => false
        ))
      ) {
        if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode} while starting`)
        await Bun.sleep(100)
      }
      // The server sized itself from the cgroup: its scan cache is bounded to an eighth of 512 MB at most.
      const statuses = new Map<number, number>()
      const never = Array.from({ length: 2_000 }, randomMint)
      const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(Math.random() * items.length)]!
      const request = (i: number): Promise<Response> => {
        if (i % 10 === 0)
          return fetch(`${url}/api/risk-check/batch`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              addresses: Array.from({ length: 50 }, () => pick(Math.random() < 0.5 ? mints : never))
            })
          })
        return fetch(`${url}/api/risk-check/${i % 3 === 0 ? pick(never) : pick(mints)}`)
      }
      // 32 callers, 12,000 requests, a third of them for never-scanned mints and a tenth batches of 50.
      let next = 0
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < 12_000 && server.exitCode === null) {
            const response = await request(next++).catch(() => undefined)
            const status = response?.status ?? 0
            await response?.arrayBuffer().catch(() => undefined)
            statuses.set(status, (statuses.get(status) ?? 0) + 1)
          }
        })
      )
      expect(server.exitCode).toBeNull()
      expect(limit.oomKills()).toBe(0)
      // Every request answered: 200, or 503 where the server shed it (a machine shared with other work);
      // a connection refused or reset (0) is a server that died.
      expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([])
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0)
      const peak = limit.peak()
      if (peak !== undefined) console.log(`peak memory of the cgroup under load: ${(peak / 1024 / 1024).toFixed(0)} MB`)
    } finally {
      server.kill("SIGTERM")
      await server.exited
    }
  },
  300_000
)
