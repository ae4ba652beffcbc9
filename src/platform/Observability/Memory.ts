import { memoryUsage } from "bun:jsc"
import { Gauge } from "prom-client"
import { registry } from "./Metrics.ts"

// Where this process's memory goes, read when /metrics is scraped (each part costs microseconds). The
// embedded database and the caches register their own parts; test/bench/memory.ts prints them.
const parts = new Map<string, () => number>()

/** Reports `bytes()` as `risk_api_memory_bytes{part=name}` until the returned function is called. */
export const memoryPart = (name: string, bytes: () => number): (() => void) => {
  parts.set(name, bytes)
  return () => {
    if (parts.get(name) === bytes) parts.delete(name)
  }
}

export const memoryParts = (): Record<string, number> => {
  const usage = process.memoryUsage()
  const native = memoryUsage()
  const figures: Record<string, number> = {
    rss: usage.rss,
    rss_peak: native.peak,
    // Live JavaScript objects after the last collection (heapUsed counts what they own outside too).
    js_objects: usage.heapUsed - usage.external,
    // Strings and buffers owned by JavaScript objects, WebAssembly memories included.
    js_external: usage.external,
    array_buffers: usage.arrayBuffers
  }
  for (const [name, bytes] of parts) figures[name] = bytes()
  return figures
}

new Gauge({
  name: "risk_api_memory_bytes",
  help:
    "Memory of this process by part: rss, rss_peak, js_objects, js_external, array_buffers, " +
    "and embedded_db_wasm (the embedded database's WebAssembly memory, reserved) and scan_cache (estimated) when present.",
  labelNames: ["part"] as const,
  registers: [registry],
  collect() {
    this.reset() // a part released since the last scrape is gone, not frozen at its last value
    for (const [part, bytes] of Object.entries(memoryParts())) this.set({ part }, bytes)
  }
})
