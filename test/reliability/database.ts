import { newAddress } from "../support/fixtures.ts"
import {
  type Account,
  call,
  chargedUnits,
  check,
  countBy,
  jsonPost,
  load,
  ms,
  quantile,
  serve,
  stopServer,
  within
} from "./harness.ts"

// The database goes away under load: stopped (clean or crash) and started again, or hung (a proxy that stops
// forwarding). Every request must be answered, the failures as 503 envelopes with Retry-After within the
// request deadline, mints in memory still answered, /ready 503 within its second, and the service heals.

export const REQUEST_TIMEOUT_MS = 2_000
/** Room for a loaded machine (2 cores shared with other work): the bound is the deadline, not the slack. */
export const SLACK_MS = 1_000

export interface OutageSetup {
  readonly name: string
  /** The env the server runs with (its DATABASE_URL may go through a proxy). */
  readonly serverEnv: Record<string, string>
  /** The env of the CLI, straight to the database. */
  readonly cliEnv: Record<string, string>
  readonly account: Account
  /** A scanned mint for keyed calls, and one to keep in the server's memory. */
  readonly scanned: string
  readonly warm: string
  readonly disrupt: () => Promise<void> | void
  readonly recover: () => Promise<void> | void
  readonly holdMs: number
}

const requestLog = process.env.RELIABILITY_REQUEST_LOG === "1"

export const databaseOutage = async (setup: OutageSetup) => {
  const { name } = setup
  // RELIABILITY_REQUEST_LOG=1: request lines on, each held to what its client got. Off by default: 40,000
  // lines through the harness's pipe slow the server itself, and the latency checks measure that instead.
  const server = await serve({ ...setup.serverEnv, ...(requestLog ? { LOG_LEVEL: "info", LOG_FORMAT: "json" } : {}) })
  try {
    const check1 = `${server.url}/api/risk-check/${setup.warm}`
    await call("warm", check1)
    await call("warm", check1) // kept in memory from its second read
    const traffic = load(9, (worker) => {
      switch (worker % 3) {
        case 0:
          return call("uncached", `${server.url}/api/risk-check/${newAddress()}`)
        case 1:
          return call(
            "keyed",
            `${server.url}/api/v1/token/risk`,
            jsonPost({ address: setup.scanned }, setup.account.key)
          )
        default:
          return call("cached", check1)
      }
    })
    await Bun.sleep(1_000)
    const disruptedAt = performance.now()
    await setup.disrupt()
    await Bun.sleep(Math.min(500, setup.holdMs / 2))
    const ready = await call("ready", `${server.url}/ready`)
    await Bun.sleep(Math.max(0, setup.holdMs - (performance.now() - disruptedAt)))
    const recoveredAt = performance.now()
    await setup.recover()
    const recoverMs = performance.now() - recoveredAt
    const healedMs = await within(
      20_000,
      async () => (await call("probe", `${server.url}/api/risk-check/${newAddress()}`)).status === 200
    )
    await Bun.sleep(500)
    const outcomes = await traffic.stop()
    const alive = server.process.exitCode === null

    const during = outcomes.filter((o) => o.sentAt >= disruptedAt && o.sentAt < recoveredAt)
    const unanswered = outcomes.filter((o) => o.status === 0)
    check(
      name,
      "every request answered (no reset, no hang)",
      `${outcomes.length} requests (${during.length} during), ${unanswered.length} unanswered${unanswered[0] ? ` e.g. ${unanswered[0].error}` : ""}`,
      unanswered.length === 0 && during.length > 0
    )
    const failures = outcomes.filter((o) => o.status !== 200 && o.status !== 0)
    const notEnvelope = failures.filter(
      (o) => !(o.status === 503 && o.code === "service_unavailable" && o.retryAfter === "5")
    )
    check(
      name,
      "failures are 503 service_unavailable with Retry-After: 5",
      `${JSON.stringify(countBy(failures, (o) => `${o.status} ${o.code}`))}; ${notEnvelope.length} other`,
      notEnvelope.length === 0 && failures.length > 0
    )
    const answered = during.filter((o) => o.status !== 0 && o.kind !== "cached").map((o) => o.ms)
    check(
      name,
      `answered within REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS} ms (+${SLACK_MS} ms slack)`,
      `uncached and keyed during: p50 ${ms(quantile(answered, 0.5))}, p99 ${ms(quantile(answered, 0.99))}, max ${ms(Math.max(...answered))}`,
      answered.length > 0 && Math.max(...answered) <= REQUEST_TIMEOUT_MS + SLACK_MS
    )
    const cached = during.filter((o) => o.kind === "cached")
    check(
      name,
      "mints in memory still answered 200",
      `${cached.filter((o) => o.status === 200).length} of ${cached.length} 200, max ${ms(Math.max(...cached.map((o) => o.ms)))}`,
      cached.length > 0 && cached.every((o) => o.status === 200)
    )
    check(
      name,
      "/ready 503 within 1 s (+slack)",
      `${ready.status} in ${ms(ready.ms)}`,
      ready.status === 503 && ready.ms <= 1_000 + SLACK_MS
    )
    check(
      name,
      "heals after the database returns (within 20 s), process alive",
      healedMs === undefined
        ? "not healed in 20 s"
        : `first uncached 200 ${ms(healedMs)} after ${recoverMs > 50 ? `the restart (${ms(recoverMs)})` : "the network returned"}; alive ${alive}`,
      healedMs !== undefined && alive
    )
    // The request log: one line per answered request, with the status its client got.
    const logged = new Map<string, number>()
    for (const line of server.output().split("\n")) {
      if (!line.startsWith("{")) continue
      try {
        const entry = JSON.parse(line) as { message?: string; requestId?: string; status?: number }
        if (entry.message === "request" && entry.requestId !== undefined && entry.status !== undefined)
          logged.set(entry.requestId, entry.status)
      } catch {
        // not a log line
      }
    }
    const answeredWithId = outcomes.filter((o) => o.status !== 0 && typeof o.requestId === "string")
    const mislogged = answeredWithId.filter((o) => logged.get(o.requestId!) !== o.status)
    if (!requestLog) console.log("  (the request log check runs with RELIABILITY_REQUEST_LOG=1)")
    else
      check(
        name,
        "the request log records the status each client got",
        `${answeredWithId.length} answered, ${mislogged.length} logged otherwise${
          mislogged[0]
            ? ` e.g. ${mislogged[0].kind} ${mislogged[0].status} logged ${logged.get(mislogged[0].requestId!) ?? "nothing"}`
            : ""
        }`,
        answeredWithId.length > 0 && mislogged.length === 0
      )
    const warnings = server
      .output()
      .split("\n")
      .filter((line) => line.includes("DeprecationWarning") || line.includes("already executing a query"))
    check(
      name,
      "no driver warning (no pooled client used by two queries at once)",
      warnings.length === 0 ? "none" : `${warnings.length}, e.g. ${warnings[0]!.slice(0, 120)}`,
      warnings.length === 0
    )
    const keyed = outcomes.filter((o) => o.kind === "keyed")
    const paid = keyed.filter((o) => o.status === 200).length
    const charged = await chargedUnits(setup.cliEnv, setup.account.accountId)
    // A read's charge commits after its answer is written: one answered as the database went silent
    // cannot commit its charge and is free. The other way round (charged, no answer) must never happen.
    check(
      name,
      "keyed reads: no unit charged without a 200 (failed calls free; an answered read whose charge could not commit is free)",
      `${keyed.length} keyed, ${paid} answered 200, ${charged} charged (${paid - charged} free)`,
      charged <= paid
    )
  } finally {
    await stopServer(server)
  }
}
