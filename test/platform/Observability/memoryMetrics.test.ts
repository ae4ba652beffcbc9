import { describe, expect, test } from "bun:test"
import { memoryPart, memoryParts } from "../../../src/platform/Observability/Memory.ts"
import { registry } from "../../../src/platform/Observability/Metrics.ts"

// risk_api_memory_bytes: where the process's memory goes, by part (test/bench/memory.ts prints it).
describe("the memory gauge", () => {
  test("reports the process's parts and those registered, until released", async () => {
    const release = memoryPart("test_part", () => 1234)
    const parts = memoryParts()
    expect(Object.keys(parts).sort()).toEqual([
      "array_buffers",
      "js_external",
      "js_objects",
      "rss",
      "rss_peak",
      "test_part"
    ])
    expect(parts.rss!).toBeGreaterThan(10 * 1024 * 1024)
    expect(parts.rss_peak!).toBeGreaterThanOrEqual(parts.rss! / 2)
    const text = await registry.metrics()
    expect(text).toContain('risk_api_memory_bytes{part="test_part"} 1234')
    expect(text).toMatch(/risk_api_memory_bytes\{part="rss"\} \d+/)
    release()
    expect(Object.keys(memoryParts())).not.toContain("test_part")
    expect(await registry.metrics()).not.toContain('part="test_part"')
  })
})
