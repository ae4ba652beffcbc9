// What a running service holds, read from outside (/proc) and from its /metrics (risk_api_memory_bytes,
// src/platform/Observability/Memory.ts): the figures of one row of the memory bench.
import { existsSync, readFileSync } from "node:fs"

const MB = 1024 * 1024

/** Resident bytes of `pid` and of every process under it (the embedded database runs in-process; a child would count). */
export const treeRss = (pid: number): number => {
  const kb = (p: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0)
  const children = (p: number): ReadonlyArray<number> => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter((s) => s !== "")
        .map(Number)
    } catch {
      return []
    }
  }
  const walk = (p: number): number => {
    if (!existsSync(`/proc/${p}/status`)) return 0
    try {
      return kb(p) * 1024 + children(p).reduce((sum, child) => sum + walk(child), 0)
    } catch {
      return 0
    }
  }
  return walk(pid)
}

/** Samples `treeRss(pid)` every `everyMs` until stopped; `peak()` is the largest sample so far. */
export const rssSampler = (pid: number, everyMs = 100) => {
  let peak = treeRss(pid)
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(pid))), everyMs)
  return {
    peak: () => Math.max(peak, treeRss(pid)),
    restart: () => {
      peak = treeRss(pid)
    },
    stop: () => clearInterval(timer)
  }
}

interface Mapping {
  readonly size: number
  readonly rss: number
  readonly file: boolean
}

const mappingsOf = (pid: number): ReadonlyArray<Mapping> => {
  const mappings: Array<{ size: number; rss: number; file: boolean }> = []
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head !== null) mappings.push({ size: 0, rss: 0, file: head[1]!.startsWith("/") })
    else if (line.startsWith("Size:")) mappings[mappings.length - 1]!.size = Number(line.split(/\s+/)[1]) * 1024
    else if (line.startsWith("Rss:")) mappings[mappings.length - 1]!.rss = Number(line.split(/\s+/)[1]) * 1024
  }
  return mappings
}

export interface Breakdown {
  readonly rss: number
  /** Resident pages of files mapped in (Bun's own code, libraries). */
  readonly code: number
  /** The embedded database's WebAssembly memory: reserved (its size) and resident (pages touched). */
  readonly wasmReserved: number
  readonly wasmResident: number
  /** Every other anonymous page: the JavaScript heap, Bun's allocator, compiled code. */
  readonly otherAnon: number
  /** The service's own account (risk_api_memory_bytes), by part. */
  readonly parts: Readonly<Record<string, number>>
}

export const metricsParts = async (url: string): Promise<Record<string, number>> => {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text()
  const parts: Record<string, number> = {}
  for (const match of text.matchAll(/^risk_api_memory_bytes\{part="([a-z_]+)"\} (\S+)$/gm))
    parts[match[1]!] = Number(match[2])
  return parts
}

/** The breakdown of the service's resident memory now: smaps from outside, parts from its /metrics. */
export const breakdownOf = async (pid: number, url: string): Promise<Breakdown> => {
  const parts = await metricsParts(url).catch(() => ({}) as Record<string, number>)
  const mappings = mappingsOf(pid)
  const rss = mappings.reduce((sum, m) => sum + m.rss, 0)
  const code = mappings.filter((m) => m.file).reduce((sum, m) => sum + m.rss, 0)
  // A WebAssembly memory is one anonymous mapping of its size (and a guard page or so).
  const wasmReserved = parts.embedded_db_wasm ?? 0
  const wasm =
    wasmReserved === 0
      ? undefined
      : mappings.find((m) => !m.file && m.size >= wasmReserved && m.size <= wasmReserved + 64 * 1024)
  const wasmResident = wasm?.rss ?? 0
  return { rss, code, wasmReserved, wasmResident, otherAnon: rss - code - wasmResident, parts }
}

export const mb = (bytes: number | undefined): string => (bytes === undefined ? "–" : (bytes / MB).toFixed(0))
