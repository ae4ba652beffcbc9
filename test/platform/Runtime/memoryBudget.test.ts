import { describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { ScanCacheConfig } from "../../../src/features/Scans/LatestScanCache.ts"
import {
  cgroupLimitBytes,
  DEFAULT_BUDGET_MB,
  memoryBudget,
  runtimeHeapEnv,
  scanCacheBytesFor
} from "../../../src/platform/Runtime/MemoryBudget.ts"
import { newDeployment, startServer } from "../../support/process.ts"

const MB = 1024 * 1024

/** A fake /sys/fs/cgroup and /proc/self/cgroup: files by path under the root. */
const fakeCgroup = (proc: string, files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "risk-api-cgroup-"))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  writeFileSync(join(dir, "self"), proc)
  return { limit: () => cgroupLimitBytes(dir, join(dir, "self")), cleanup: () => rmSync(dir, { recursive: true }) }
}

describe("the cgroup's memory limit", () => {
  test("cgroup v2: the smallest memory.max on the process's cgroup and its parents; 'max' is none", () => {
    const cgroup = fakeCgroup("0::/app/server\n", {
      "app/server/memory.max": "max\n",
      "app/memory.max": `${512 * MB}\n`,
      "memory.max": `${2048 * MB}\n`
    })
    expect(cgroup.limit()).toBe(512 * MB)
    cgroup.cleanup()
  })

  test("cgroup v1: memory.limit_in_bytes of the memory controller's cgroup; v1's 2^63 is no limit", () => {
    const cgroup = fakeCgroup("5:cpu:/\n4:memory,foo:/job\n0::/\n", {
      "memory/job/memory.limit_in_bytes": `${300 * MB}\n`,
      "memory/memory.limit_in_bytes": "9223372036854771712\n"
    })
    expect(cgroup.limit()).toBe(300 * MB)
    cgroup.cleanup()
  })

  test("no limit anywhere, or no cgroup files: undefined", () => {
    const cgroup = fakeCgroup("0::/\n", { "memory.max": "max\n" })
    expect(cgroup.limit()).toBeUndefined()
    cgroup.cleanup()
    expect(cgroupLimitBytes("/nonexistent", "/nonexistent/self")).toBeUndefined()
  })
})

describe("the memory budget", () => {
  test("MEMORY_LIMIT_MB first, then the cgroup's limit, then the default", () => {
    expect(memoryBudget({ MEMORY_LIMIT_MB: "768" }, () => 256 * MB)).toEqual({ mb: 768, source: "MEMORY_LIMIT_MB" })
    expect(memoryBudget({}, () => 256 * MB)).toEqual({ mb: 256, source: "cgroup" })
    expect(memoryBudget({}, () => undefined)).toEqual({ mb: DEFAULT_BUDGET_MB, source: "default" })
  })

  test("a MEMORY_LIMIT_MB that is not a whole number of MiB, or under 128, is refused", () => {
    for (const bad of ["12.5", "abc", "64", "-1"])
      expect(() => memoryBudget({ MEMORY_LIMIT_MB: bad }, () => undefined)).toThrow(/MEMORY_LIMIT_MB/)
  })

  test("sizes the runtime's heap and the scan cache's bytes from the budget", () => {
    expect(runtimeHeapEnv({ mb: 512, source: "default" })).toEqual({ BUN_JSC_forceRAMSize: String(512 * MB) })
    // A real limit also slows the heap's growth between collections (more collections, less throughput).
    expect(runtimeHeapEnv({ mb: 512, source: "cgroup" })).toEqual({
      BUN_JSC_forceRAMSize: String(512 * MB),
      BUN_JSC_smallHeapGrowthFactor: "1.3",
      BUN_JSC_mediumHeapGrowthFactor: "1.2"
    })
    expect(scanCacheBytesFor({ mb: 256, source: "cgroup" })).toBe(32 * MB)
    expect(scanCacheBytesFor({ mb: 4096, source: "cgroup" })).toBe(64 * MB)
  })

  test("SCAN_CACHE_MAX_BYTES defaults to the budget's share; set, it wins; a bad MEMORY_LIMIT_MB is a config error", async () => {
    const withEnv = async (env: Record<string, string>) => {
      const saved = { ...process.env }
      Object.assign(process.env, env)
      try {
        return await Effect.runPromise(Effect.either(ScanCacheConfig))
      } finally {
        for (const key of Object.keys(env)) if (saved[key] === undefined) delete process.env[key]
        Object.assign(process.env, saved)
      }
    }
    const small = await withEnv({ MEMORY_LIMIT_MB: "256" })
    expect(small._tag === "Right" && small.right.maxBytes).toBe(32 * MB)
    const set = await withEnv({ MEMORY_LIMIT_MB: "256", SCAN_CACHE_MAX_BYTES: "1000" })
    expect(set._tag === "Right" && set.right.maxBytes).toBe(1000)
    const bad = await withEnv({ MEMORY_LIMIT_MB: "lots" })
    expect(bad._tag).toBe("Left")
  })
})

describe.skipIf(process.platform !== "linux")("a server's runtime heap", () => {
  const environOf = (pid: number): Record<string, string> =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .filter((line) => line.includes("="))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)])
    )
  const serving = async (env: Record<string, string>) => {
    const deployment = await newDeployment()
    const server = await startServer({ ...deployment.env, ...env })
    try {
      return { pid: server.process.pid, environ: environOf(server.process.pid) }
    } finally {
      server.process.kill("SIGTERM")
      await server.process.exited
      await deployment.cleanup()
    }
  }

  test("serve starts again in the same process with the heap sized from MEMORY_LIMIT_MB", async () => {
    const { environ } = await serving({ MEMORY_LIMIT_MB: "300" })
    expect(environ).toMatchObject(runtimeHeapEnv({ mb: 300, source: "MEMORY_LIMIT_MB" }))
  }, 60_000)

  test("an operator's own BUN_JSC_ option is kept, and nothing is added", async () => {
    const { environ } = await serving({ MEMORY_LIMIT_MB: "300", BUN_JSC_forceRAMSize: "1073741824" })
    expect(environ.BUN_JSC_forceRAMSize).toBe("1073741824")
    expect(environ.BUN_JSC_smallHeapGrowthFactor).toBeUndefined()
  }, 60_000)
})
