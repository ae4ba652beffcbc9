import type { RunningServer } from "../support/process.ts"
import { newAddress } from "../support/fixtures.ts"
import { call, chargedUnits, check, countBy, jsonPost, keyed, load, newAccount, serve, stopServer } from "./harness.ts"

// Limits across two processes, and charges reconciled against what was answered and stored after SIGTERM
// and SIGKILL under load.

const watchBody = (mint: string) => ({ mint, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 1_000 }] })

const setWatch = (server: RunningServer, key: string, mint: string) =>
  call("write", `${server.url}/api/v1/decision/set-watch`, jsonPost(watchBody(mint), key))

const storedWatches = async (server: RunningServer, key: string): Promise<number> => {
  // A server with a 100 ms deadline may answer the listing 503 on a busy machine: asked again a few times.
  let response = await fetch(`${server.url}/api/v1/decision/watches`, keyed(key))
  for (let tries = 1; response.status === 503 && tries < 20; tries++)
    response = await fetch(`${server.url}/api/v1/decision/watches`, keyed(key))
  if (response.status !== 200) throw new Error(`listing watches answered ${response.status}`)
  return ((await response.json()) as { data: Array<unknown> }).data.length
}

export const quotaRace = async (servers: ReadonlyArray<RunningServer>, env: Record<string, string>, mint: string) => {
  const { accountId, key } = await newAccount(env, { quota: 40 })
  const results = await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      call("keyed", `${servers[i % servers.length]!.url}/api/v1/token/risk`, jsonPost({ address: mint }, key))
    )
  )
  const accepted = results.filter((o) => o.status === 200).length
  const exceeded = results.filter((o) => o.code === "quota_exceeded").length
  const charged = await chargedUnits(env, accountId)
  check(
    "quota race, 2 processes",
    "120 concurrent calls, quota 40: 40 answered, 80 quota_exceeded, 40 charged",
    `${accepted} answered, ${exceeded} quota_exceeded, ${charged} charged; ${JSON.stringify(countBy(results, (o) => String(o.status)))}`,
    accepted === 40 && exceeded === 80 && charged === 40
  )
}

export const watchCapRace = async (
  servers: ReadonlyArray<RunningServer>,
  env: Record<string, string>,
  mint: string
) => {
  const { accountId, key } = await newAccount(env, { scope: "watch:write" })
  const results = await Promise.all(
    Array.from({ length: 150 }, (_, i) => setWatch(servers[i % servers.length]!, key, mint))
  )
  const created = results.filter((o) => o.status === 201).length
  const refused = results.filter((o) => o.code === "watch_limit_reached").length
  const stored = await storedWatches(servers[0]!, key)
  const charged = await chargedUnits(env, accountId)
  check(
    "watch cap race, 2 processes",
    "150 concurrent set-watch, cap 100: 100 stored, 50 watch_limit_reached, 100 charged",
    `${created} created, ${refused} watch_limit_reached, ${stored} stored, ${charged} charged`,
    created === 100 && refused === 50 && stored === 100 && charged === 100
  )
}

/**
 * Writes past the request deadline (REQUEST_TIMEOUT_MS at its minimum, 100 ms, on two processes): a call
 * answered 503 must not have stored its watch or charged it, or a client that retries as told stores it twice.
 */
export const writesPastTheDeadline = async (env: Record<string, string>, mint: string) => {
  const { accountId, key } = await newAccount(env, { scope: "watch:write" })
  const servers = [
    await serve({ ...env, REQUEST_TIMEOUT_MS: "100" }),
    await serve({ ...env, REQUEST_TIMEOUT_MS: "100" })
  ]
  const results = await Promise.all(Array.from({ length: 90 }, (_, i) => setWatch(servers[i % 2]!, key, mint)))
  await Bun.sleep(2_000) // anything still running in the background has finished
  const acknowledged = results.filter((o) => o.status === 201).length
  const late = results.filter((o) => o.status === 503).length
  const stored = await storedWatches(servers[0]!, key)
  const charged = await chargedUnits(env, accountId)
  for (const server of servers) await stopServer(server)
  check(
    "writes past the request deadline",
    "90 concurrent set-watch, REQUEST_TIMEOUT_MS 100: acknowledged = stored = charged (a 503 stored nothing)",
    `${acknowledged} acknowledged, ${late} answered 503, ${stored} stored, ${charged} charged; ${JSON.stringify(countBy(results, (o) => String(o.status)))}`,
    late > 0 && acknowledged === stored && stored === charged
  )
}

/** SIGTERM while public reads, keyed reads and writes run: nothing sent before the signal lost, charges reconciled. */
export const sigtermUnderLoad = async (env: Record<string, string>, witness: RunningServer, mint: string) => {
  const reader = await newAccount(env)
  const writer = await newAccount(env, { scope: "watch:write" })
  const server = await serve(env)
  let signalledAt = Number.POSITIVE_INFINITY
  const traffic = load(12, (worker) => {
    switch (worker % 4) {
      case 0:
        return call("public", `${server.url}/api/risk-check/${worker === 0 ? mint : newAddress()}`)
      case 1:
      case 2:
        return call("read", `${server.url}/api/v1/token/risk`, jsonPost({ address: mint }, reader.key))
      default:
        return setWatch(server, writer.key, mint)
    }
  })
  await Bun.sleep(1_500)
  signalledAt = performance.now()
  server.process.kill("SIGTERM")
  await Bun.sleep(1_500) // clients go on through the grace second, as traffic does until /ready is seen failing
  const outcomes = await traffic.stop()
  const exitCode = await server.process.exited
  const lost = outcomes.filter((o) => o.status === 0 && o.sentAt < signalledAt)
  const unexpected = outcomes.filter((o) => o.status !== 0 && ![200, 201, 409].includes(o.status))
  check(
    "SIGTERM under load",
    "every request sent before the signal answered; exit 0; only 200/201/409",
    `${outcomes.filter((o) => o.sentAt < signalledAt).length} sent before, ${lost.length} lost${lost[0] ? ` (${lost[0].error})` : ""}; exit ${exitCode}; ${JSON.stringify(countBy(outcomes, (o) => `${o.kind} ${o.status}`))}`,
    lost.length === 0 && exitCode === 0 && unexpected.length === 0
  )
  const reads = outcomes.filter((o) => o.kind === "read" && o.status === 200).length
  const readCharged = await chargedUnits(env, reader.accountId)
  const acknowledged = outcomes.filter((o) => o.kind === "write" && o.status === 201).length
  const stored = await storedWatches(witness, writer.key)
  const writeCharged = await chargedUnits(env, writer.accountId)
  check(
    "SIGTERM under load",
    "charges reconciled: reads charged = reads answered; writes charged = stored = acknowledged",
    `reads ${reads} answered / ${readCharged} charged; writes ${acknowledged} acknowledged / ${stored} stored / ${writeCharged} charged`,
    readCharged === reads && acknowledged === stored && stored === writeCharged
  )
}

/** SIGKILL at several points of concurrent writes: each unit charged has its watch stored; nothing acknowledged lost. */
export const sigkillDuringWrites = async (env: Record<string, string>, witness: RunningServer, mint: string) => {
  const rounds: Array<{ killAfter: number; acknowledged: number; stored: number; charged: number; noAnswer: number }> =
    []
  for (const killAfter of [3, 15, 35]) {
    const writer = await newAccount(env, { scope: "watch:write" })
    const server = await serve(env)
    let acks = 0
    const results = await Promise.all(
      Array.from({ length: 80 }, async () => {
        const outcome = await setWatch(server, writer.key, mint)
        if (outcome.status === 201 && ++acks === killAfter) server.process.kill("SIGKILL")
        return outcome
      })
    )
    server.process.kill("SIGKILL")
    await server.process.exited
    rounds.push({
      killAfter,
      acknowledged: results.filter((o) => o.status === 201).length,
      noAnswer: results.filter((o) => o.status === 0).length,
      stored: await storedWatches(witness, writer.key),
      charged: await chargedUnits(env, writer.accountId)
    })
  }
  check(
    "SIGKILL during concurrent writes",
    "0 charged-but-not-stored, 0 acknowledged-but-lost (3 kills)",
    rounds
      .map(
        (r) =>
          `kill at ack ${r.killAfter}: ${r.acknowledged} acked, ${r.noAnswer} unanswered, ${r.stored} stored, ${r.charged} charged`
      )
      .join("; "),
    rounds.every((r) => r.charged === r.stored && r.stored >= r.acknowledged) && rounds.every((r) => r.noAnswer > 0)
  )
}

/** SIGKILL during concurrent keyed reads: a read that got no answer must not be charged. */
export const sigkillDuringReads = async (env: Record<string, string>, mint: string) => {
  const rounds: Array<{ answered: number; noAnswer: number; charged: number }> = []
  for (const killAfter of [40, 150]) {
    const reader = await newAccount(env)
    const server = await serve(env)
    let answered = 0
    const traffic = load(32, () =>
      call("read", `${server.url}/api/v1/token/risk`, jsonPost({ address: mint }, reader.key)).then((outcome) => {
        if (outcome.status === 200 && ++answered === killAfter) server.process.kill("SIGKILL")
        return outcome
      })
    )
    await server.process.exited
    const outcomes = await traffic.stop()
    rounds.push({
      answered: outcomes.filter((o) => o.status === 200).length,
      noAnswer: outcomes.filter((o) => o.status === 0).length,
      charged: await chargedUnits(env, reader.accountId)
    })
  }
  // The charge commits after the answer is written, so a kill in between leaves a read answered and free;
  // a read charged without an answer is what must never happen.
  check(
    "SIGKILL during keyed reads",
    "0 reads charged without an answer (charged <= answered 200; a read answered just before the kill may be free)",
    rounds
      .map(
        (r) =>
          `${r.answered} answered, ${r.noAnswer} unanswered, ${r.charged} charged (${Math.max(0, r.charged - r.answered)} charged without an answer, ${Math.max(0, r.answered - r.charged)} free)`
      )
      .join("; "),
    rounds.every((r) => r.charged <= r.answered)
  )
}
