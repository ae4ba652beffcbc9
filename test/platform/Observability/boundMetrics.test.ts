import { describe, expect, test } from "bun:test"
import { bound, boundHistogram, latency, registry, requests } from "../../../src/platform/Observability/Metrics.ts"

// The hot path's bound metrics must expose exactly what prom-client's own calls would: the same series in
// /metrics, whatever the values (above every bucket, on a bucket's bound, zero), and nothing lost between reads.

const seriesOf = async (route: string) =>
  (await latency.get()).values
    .filter((value) => value.labels.route === route)
    .map((value) => ({
      name: value.metricName ?? "",
      le: (value.labels as Record<string, unknown>).le,
      value: value.value
    }))

describe("bound metrics", () => {
  test("a bound histogram gives the series observe() gives, across reads", async () => {
    const direct = { method: "TEST", route: "/direct" }
    const bounded = boundHistogram(latency, { method: "TEST", route: "/bound" })
    const values = [0, 0.0001, 0.0005, 0.0007, 0.001, 0.02, 0.3, 1, 2.5, 7, 100]
    for (const value of values.slice(0, 5)) {
      latency.observe(direct, value)
      bounded.observe(value)
    }
    expect(await seriesOf("/bound")).toEqual(await seriesOf("/direct"))
    for (const value of values.slice(5)) {
      latency.observe(direct, value)
      bounded.observe(value)
    }
    const series = await seriesOf("/bound")
    expect(series).toEqual(await seriesOf("/direct"))
    expect(series.find((value) => value.name.endsWith("_count"))?.value).toBe(values.length)
    const text = await registry.metrics()
    const lines = (route: string) =>
      text
        .split("\n")
        .filter((line) => line.includes(`route="${route}"`))
        .map((line) => line.replace(route, "R"))
    expect(lines("/bound")).toEqual(lines("/direct"))
    expect(lines("/bound").length).toBeGreaterThan(10)
  })

  test("a bound counter gives the count inc() gives", async () => {
    const labels = { method: "TEST", route: "/counted", status: "200" }
    const counted = bound(requests, labels)
    for (let i = 0; i < 7; i++) counted.inc()
    counted.inc(3)
    const value = (await requests.get()).values.find((entry) => entry.labels.route === "/counted")?.value
    expect(value).toBe(10)
  })
})
