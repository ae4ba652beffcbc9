import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import Pg from "pg"
import { testDatabaseUrl } from "../support/database.ts"
import { type Deployment, newDeployment, type RunningServer, runCli, startServer } from "../support/process.ts"
import { type RpcServer, startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld, type World } from "../support/solana/World.ts"

// The topology past one machine (docs/scaling.md), on one PostgreSQL: 3 stateless API processes, two of them
// reading risk-checks through DATABASE_READ_URL, and 2 scanner processes. Rescans asked at any API process
// are scanned once, by one scanner, and every API process answers from the new scan within 1 s of its
// commit. Only PostgreSQL can be shared by separate processes; the embedded database belongs to one process
// (DATA_DIR is locked), so this runs on PostgreSQL only.

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname
const API_PROCESSES = 3
const SCANNERS = 2
const MINTS = 8

interface Scanner {
  readonly process: Bun.Subprocess
  readonly output: () => string
}

const startScanner = (env: Record<string, string>): Scanner => {
  const child = Bun.spawn([process.execPath, MAIN, "scanner"], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe"
  })
  let output = ""
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk)
  }
  void drain(child.stdout)
  void drain(child.stderr)
  return { process: child, output: () => output }
}

const schemaOf = (deployment: Deployment): string =>
  decodeURIComponent(deployment.env.DATABASE_URL!).match(/search_path=(\w+)/)![1]!

const query = <A extends object>(url: string, statement: string) =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
    )
  )

/**
 * The deployment's URL as `role`, on a connection that refuses every write, as a streaming replica would;
 * the role only reads, and names the read pool's connections in pg_stat_activity.
 */
const readOnly = (url: string, role: string): string => {
  const parsed = new URL(url)
  parsed.username = role
  const options = [parsed.searchParams.get("options"), "-c default_transaction_read_only=on"].filter(Boolean)
  parsed.searchParams.set("options", options.join(" "))
  return parsed.toString()
}

interface Sighting {
  readonly sentAt: number
  readonly fresh: boolean
}

describe.skipIf(testDatabaseUrl === undefined)("3 API and 2 scanner processes on one PostgreSQL", () => {
  let world: World
  let rpc: RpcServer
  let deployment: Deployment
  let readUrl: string
  const reader = `reader_${crypto.randomUUID().replaceAll("-", "")}`
  const apis: Array<RunningServer> = []
  const scanners: Array<Scanner> = []

  beforeAll(async () => {
    world = makeWorld()
    rpc = startRpcServer(world)
    deployment = await newDeployment()
    // The first API process migrates and reads the primary; the other two read through DATABASE_READ_URL,
    // here the same database as a role that may only select, on a read-only connection: any write routed to
    // it fails.
    const apiEnv = { ...deployment.env, PUBLIC_RATE_LIMIT_PER_MINUTE: "100000" }
    apis.push(await startServer(apiEnv))
    const schema = schemaOf(deployment)
    // Each scan's commit time, as PostgreSQL's clock has it: a deferred trigger runs at the commit, just before
    // its WAL record is flushed (so a time slightly before the commit: a stricter bound, never a looser one).
    for (const statement of [
      `create table ${schema}.scan_commits (scan_id bigint primary key, committed_at timestamptz not null)`,
      `create function ${schema}.note_scan_commit() returns trigger language plpgsql as $$
        begin insert into ${schema}.scan_commits values (new.id, clock_timestamp()); return null; end $$`,
      `create constraint trigger note_scan_commit after insert on ${schema}.scans
        deferrable initially deferred for each row execute function ${schema}.note_scan_commit()`
    ])
      await query(testDatabaseUrl!, statement)
    await query(testDatabaseUrl!, `create role ${reader} login`)
    await query(testDatabaseUrl!, `grant usage on schema ${schema} to ${reader}`)
    await query(testDatabaseUrl!, `grant select on all tables in schema ${schema} to ${reader}`)
    readUrl = readOnly(deployment.env.DATABASE_URL!, reader)
    for (let i = 1; i < API_PROCESSES; i++) apis.push(await startServer({ ...apiEnv, DATABASE_READ_URL: readUrl }))
    const scannerEnv = {
      ...deployment.env,
      SOLANA_RPC_URL: rpc.url,
      SCANNER_POLL_MS: "20",
      SCANNER_CONCURRENCY: "4"
    }
    for (let i = 0; i < SCANNERS; i++) scanners.push(startScanner(scannerEnv))
  }, 120_000)

  afterAll(async () => {
    for (const child of [...apis.map((a) => a.process), ...scanners.map((s) => s.process)]) child.kill("SIGTERM")
    await Promise.all([...apis.map((a) => a.process.exited), ...scanners.map((s) => s.process.exited)])
    await rpc.stop()
    await query(testDatabaseUrl!, `drop owned by ${reader}`).catch(() => undefined)
    await query(testDatabaseUrl!, `drop role if exists ${reader}`).catch(() => undefined)
    await deployment.cleanup()
  })

  test("the read connection refuses writes", async () => {
    const client = new Pg.Client({ connectionString: readUrl })
    await client.connect()
    try {
      await expect(client.query("update scan_requests set status = status")).rejects.toThrow(
        "cannot execute UPDATE in a read-only transaction"
      )
    } finally {
      await client.end()
    }
  })

  test("rescans asked anywhere are scanned once each and seen by every API process within 1 s of their commit", async () => {
    const deployer = await world.signer()
    const mints: Array<string> = []
    for (let i = 0; i < MINTS; i++) {
      const mint = await world.mint({ program: i % 2 === 0 ? "token" : "token-2022", decimals: 6, deployer })
      await world.holders(mint, [{ owner: deployer.address, amount: 500_000n }, { amount: 500_000n }])
      mints.push(mint.address)
    }
    // Each rescan goes to another API process.
    for (const [i, mint] of mints.entries()) {
      const api = apis[i % apis.length]!
      const asked = await fetch(`${api.url}/api/risk-check/${mint}/rescan`, { method: "POST" })
      expect(asked.status).toBe(202)
    }

    // Every API process is asked about every mint, all at once, every 20 ms, until each has answered every
    // mint from its scan. Each answer is kept with the time its request was sent.
    const sightings = new Map<string, Array<Sighting>>()
    const fresh = (key: string) => sightings.get(key)?.some((s) => s.fresh) === true
    const keys = apis.flatMap((_, a) => mints.map((mint) => ({ a, mint, key: `${a}:${mint}` })))
    for (let round = 0; round < 3_000 && !keys.every(({ key }) => fresh(key)); round++) {
      await Promise.all(
        keys
          .filter(({ key }) => !fresh(key))
          .map(async ({ a, mint, key }) => {
            const sentAt = Date.now()
            const response = await fetch(`${apis[a]!.url}/api/risk-check/${mint}`)
            const answer = (await response.json()) as { scan_depth?: string }
            if (response.status !== 200)
              throw new Error(`${apis[a]!.url} answered ${response.status}: ${JSON.stringify(answer)}`)
            sightings.set(key, [...(sightings.get(key) ?? []), { sentAt, fresh: answer.scan_depth !== "none" }])
          })
      )
      const exited = [...scanners, ...apis].find((s) => s.process.exitCode !== null)
      if (exited !== undefined) throw new Error(`a process exited: ${exited.output()}`)
      await Bun.sleep(20)
    }
    const unseen = keys.filter(({ key }) => !fresh(key))
    if (unseen.length > 0) {
      throw new Error(
        `${unseen.length} of ${keys.length} never answered from a scan; scanners: ${scanners.map((s) => s.output()).join("\n")}`
      )
    }

    // Scanned once each: one scan row per mint, and the requests completed.
    const url = testDatabaseUrl!
    const schema = schemaOf(deployment)
    const scans = await query<{ mint: string; n: string }>(
      url,
      `select mint, count(*)::text as n from ${schema}.scans group by mint`
    )
    expect(scans.length).toBe(MINTS)
    expect(scans.every((row) => row.n === "1")).toBe(true)
    const pending = await query<{ n: string }>(
      url,
      `select count(*)::text as n from ${schema}.scan_requests where status <> 'completed'`
    )
    expect(pending[0]?.n).toBe("0")

    // Seen within 1 s of the commit: no API process answered "not scanned" to a request sent more than
    // 1 s after the scan's commit. Each API process is only answering from what it holds or reads, so
    // what this bounds is how soon it learns of the scan (the primary's notification) and, on the two
    // reading the read connection, that a read after it is not answered from before the commit.
    const committed = await query<{ mint: string; ms: string }>(
      url,
      `select s.mint, (extract(epoch from c.committed_at) * 1000)::bigint::text as ms
       from ${schema}.scans s join ${schema}.scan_commits c on c.scan_id = s.id`
    )
    const committedAt = new Map(committed.map((row) => [row.mint, Number(row.ms)]))
    expect(mints.filter((mint) => !committedAt.has(mint))).toEqual([])
    const stale = keys.flatMap(({ key, mint }) =>
      (sightings.get(key) ?? [])
        .filter((s) => !s.fresh && s.sentAt > committedAt.get(mint)! + 1_000)
        .map((s) => `${key} asked ${s.sentAt - committedAt.get(mint)!} ms after the commit`)
    )
    expect(stale).toEqual([])
    // Printed, not asserted: how long after the commit the first request answered from the scan was sent
    // (an upper bound on when the API process learnt of it, within the 20 ms between rounds and the load).
    const lags = keys.map(({ key, mint }) => sightings.get(key)!.find((s) => s.fresh)!.sentAt - committedAt.get(mint)!)
    // And the latest a request answered "not scanned" was sent, after the commit (the bound's margin).
    const lastStale = Math.max(
      0,
      ...keys.flatMap(({ key, mint }) =>
        sightings
          .get(key)!
          .filter((s) => !s.fresh)
          .map((s) => s.sentAt - committedAt.get(mint)!)
      )
    )
    const [load] = (
      await Bun.file("/proc/loadavg")
        .text()
        .catch(() => "?")
    ).split(" ")
    console.log(
      `topology: ${MINTS} mints scanned once each by ${SCANNERS} scanners; first answered from the scan at all ` +
        `${API_PROCESSES} API processes (2 on the read connection) by requests sent ${Math.min(...lags)} to ` +
        `${Math.max(...lags)} ms after the commit; the last answered "not scanned" was sent ${lastStale} ms after it ` +
        `(load average ${load})`
    )

    // The processes on the read connection answer batches (one read of the mints memory does not hold) and
    // keyed calls, whose charge is written on the primary.
    const created = await runCli(["accounts", "create", "--name", "topology", "--plan", "free"], deployment.env)
    const accountId = created.stdout.split("\n")[0]!.replace("account ", "").trim()
    const key = (await runCli(["keys", "create", accountId], deployment.env)).stdout.trim()
    for (const api of apis) {
      const batch = await fetch(`${api.url}/api/risk-check/batch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ addresses: mints })
      })
      const answers = (await batch.json()) as { results: Record<string, { scan_depth?: string }> }
      const scanned = Object.values(answers.results).filter(
        (r) => r.scan_depth !== undefined && r.scan_depth !== "none"
      )
      expect([batch.status, scanned.length]).toEqual([200, MINTS])
      const keyed = await fetch(`${api.url}/api/v1/token/risk`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ address: mints[0] })
      })
      expect(keyed.status).toBe(200)
    }
    for (const api of apis) expect(api.output()).not.toMatch(/read-only transaction|permission denied/)
    // And their reads of the latest scans went to the read connection.
    const readerQueries = await query<{ query: string }>(
      url,
      `select query from pg_stat_activity where usename = '${reader}'`
    )
    expect(readerQueries.some((row) => row.query.includes("from latest_scans"))).toBe(true)
  }, 180_000)
})
