// The process's memory budget (MEMORY_LIMIT_MB, else the cgroup's limit, else DEFAULT_BUDGET_MB), from which
// the runtime's heap and the bounded pools are sized. Read from process.env and /sys directly: it is applied
// before anything else is loaded (main.ts), where no Effect runtime exists yet. No imports beyond node:fs.
import { readFileSync } from "node:fs"

const MB = 1024 * 1024

/**
 * Without MEMORY_LIMIT_MB or a cgroup limit: the heap is sized from 512 MB (forceRAMSize) and the scan cache
 * bound from it; measured peaks are in the README (Memory budget).
 */
export const DEFAULT_BUDGET_MB = 512
export const MIN_BUDGET_MB = 128
/** A cgroup "limit" this large (v1's page-rounded 2^63) is no limit. */
const UNLIMITED = 2 ** 60

const readNumber = (path: string): number | undefined => {
  try {
    const text = readFileSync(path, "utf8").trim()
    if (text === "max") return undefined
    const value = Number(text)
    return Number.isFinite(value) && value > 0 && value < UNLIMITED ? value : undefined
  } catch {
    return undefined
  }
}

/** `path` and each of its parents up to the root, as cgroup paths ("/a/b", "/a", "/"). */
const ancestors = (path: string): ReadonlyArray<string> => {
  const parts = path.split("/").filter((part) => part !== "")
  return Array.from({ length: parts.length + 1 }, (_, i) => `/${parts.slice(0, parts.length - i).join("/")}`)
}

/**
 * The memory limit of this process's cgroup in bytes: the smallest limit on its cgroup and on each parent
 * (v2 `memory.max`, v1 `memory.limit_in_bytes`), or undefined where there is none. Inside a container the
 * cgroup file system is usually the container's own, so its root files carry the container's limit.
 */
export const cgroupLimitBytes = (root = "/sys/fs/cgroup", self = "/proc/self/cgroup"): number | undefined => {
  let lines: ReadonlyArray<string>
  try {
    lines = readFileSync(self, "utf8").split("\n")
  } catch {
    return undefined
  }
  const limits: Array<number> = []
  for (const line of lines) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? []
    if (path === undefined) continue
    const candidates =
      controllers === ""
        ? ancestors(path).map((dir) => `${root}${dir === "/" ? "" : dir}/memory.max`)
        : controllers!.split(",").includes("memory")
          ? ancestors(path).map((dir) => `${root}/memory${dir === "/" ? "" : dir}/memory.limit_in_bytes`)
          : []
    for (const file of candidates) {
      const limit = readNumber(file)
      if (limit !== undefined) limits.push(limit)
    }
  }
  return limits.length === 0 ? undefined : Math.min(...limits)
}

export interface MemoryBudget {
  readonly mb: number
  readonly source: "MEMORY_LIMIT_MB" | "cgroup" | "default"
}

/** MEMORY_LIMIT_MB (a whole number of MiB, at least 128), else the cgroup's limit, else the default. */
export const memoryBudget = (
  env: Readonly<Record<string, string | undefined>> = process.env,
  cgroupLimit: () => number | undefined = cgroupLimitBytes
): MemoryBudget => {
  const set = env.MEMORY_LIMIT_MB
  if (set !== undefined && set.trim() !== "") {
    const mb = Number(set)
    if (!Number.isInteger(mb) || mb < MIN_BUDGET_MB)
      throw new RangeError(`MEMORY_LIMIT_MB must be a whole number of MiB, at least ${MIN_BUDGET_MB}; got ${set}`)
    return { mb, source: "MEMORY_LIMIT_MB" }
  }
  const limit = cgroupLimit()
  if (limit !== undefined) return { mb: Math.max(MIN_BUDGET_MB, Math.floor(limit / MB)), source: "cgroup" }
  return { mb: DEFAULT_BUDGET_MB, source: "default" }
}

/** The latest-scan cache's default byte bound: an eighth of the budget, at most 64 MiB. */
export const scanCacheBytesFor = (budget: MemoryBudget): number => Math.min(64 * MB, Math.floor((budget.mb * MB) / 8))

/**
 * The JavaScriptCore options that size the runtime's heap from the budget. JavaScriptCore sizes its heap from
 * the machine's RAM (it lets the heap double between collections until it is a quarter of the RAM): on a
 * machine of 24 GB a server's garbage grew its heap past 400 MB. `forceRAMSize` makes it size from the
 * budget instead. Bun reads `BUN_JSC_<option>` from the environment when the process starts, only then.
 *
 * Where the budget is a real limit (MEMORY_LIMIT_MB, a cgroup's), the heap also grows by 1.3× between
 * collections, then 1.2× past half of it, instead of doubling: measured (npm run bench:memory, the binary,
 * 20 s of mixed load) it peaked at 312 MB against 363 MB. It costs throughput, since the server collects more
 * often: the batch of 50 at 6,465 req/s against 15,505 (npm run bench, embedded, 2026-11-25). So without a
 * limit (the default budget) the heap keeps JavaScriptCore's growth and is only sized from the budget.
 */
export const runtimeHeapEnv = (budget: MemoryBudget): Record<string, string> => ({
  BUN_JSC_forceRAMSize: String(budget.mb * MB),
  ...(budget.source === "default"
    ? {}
    : { BUN_JSC_smallHeapGrowthFactor: "1.3", BUN_JSC_mediumHeapGrowthFactor: "1.2" })
})
