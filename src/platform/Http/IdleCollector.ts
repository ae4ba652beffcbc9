import { Duration, Effect, Schedule } from "effect"
import { MemoryBudgetConfig } from "../Runtime/Config.ts"

const QUIET = Duration.seconds(1)
const AT_MOST_EVERY_MS = 10_000
// Tens of kilobytes of garbage a request: fewer requests than this leave too little to be worth a collection.
const WORTH_COLLECTING = 1_000
// Under load: once the process's RSS passes this share of the memory budget, a full collection at most every
// PRESSURE_EVERY_MS. The runtime's heap grows with the load's garbage by its own pacing (MemoryBudget.ts
// slows it); this keeps a burst from taking the process past the budget (a container's limit, where the
// kernel kills it) before the next collection comes.
const PRESSURE_SHARE = 0.7
const PRESSURE_CHECK = Duration.millis(250)
const PRESSURE_EVERY_MS = 1_000

/**
 * Collects garbage once the server goes quiet after starting or after a thousand requests: at the first
 * second without a request. The collector runs on allocation, so a server that falls idle keeps its last
 * burst's garbage resident (measured: 390 MB idle after a minute of load, 280 MB before it). A full
 * collection takes 10-30 ms, at most once every 10 s, and only when nobody is waiting; a load balancer's
 * probes alone never trigger it. Under load, past 70% of the memory budget, a collection at most every second.
 */

export const makeIdleCollector = Effect.gen(function* () {
  const budget = yield* MemoryBudgetConfig
  const pressureBytes = PRESSURE_SHARE * budget.mb * 1024 * 1024
  let served = WORTH_COLLECTING // the start's own garbage (modules, migrations, a demo seeding) goes first
  let seen = 0
  let lastCollected = 0
  const tick = Effect.sync(() => {
    const quiet = served === seen
    if (quiet && served >= WORTH_COLLECTING && Date.now() - lastCollected >= AT_MOST_EVERY_MS) {
      Bun.gc(true)
      lastCollected = Date.now()
      served = 0
    }
    seen = served
  })
  yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(QUIET)))
  let requests = 0
  let requestsAtPressure = 0
  const pressure = Effect.sync(() => {
    // Only while serving: an idle process over the mark has no new garbage to collect.
    if (requests === requestsAtPressure || Date.now() - lastCollected < PRESSURE_EVERY_MS) return
    requestsAtPressure = requests
    if (process.memoryUsage.rss() < pressureBytes) return
    Bun.gc(true)
    lastCollected = Date.now()
  })
  yield* Effect.forkScoped(Effect.repeat(pressure, Schedule.spaced(PRESSURE_CHECK)))
  return {
    served: (): void => {
      served++
      requests++
    }
  }
})
