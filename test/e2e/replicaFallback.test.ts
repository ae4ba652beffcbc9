import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import type { Address } from "../../src/domain/Address.ts"
import { ScansRepo } from "../../src/features/Scans/ScansRepo.ts"
import { testDatabaseUrl } from "../support/database.ts"
import { cleanScan, decodeScan, minutesAgo, newAddress } from "../support/fixtures.ts"
import { freePort, type RunningServer, startServer } from "../support/process.ts"
import { tcpProxy } from "../support/tcpProxy.ts"
import {
  type StreamingReplica,
  startStreamingReplica,
  streamingReplicaUnavailable
} from "../support/streamingReplica.ts"

// A read replica (DATABASE_READ_URL) that is down does not take risk-check down: the server starts without
// it, its reads are answered by the primary, and they go back to the replica once it is up and current
// (Scans/LatestScanReplica.ts). A real primary and streaming replica made for this file
// (test/support/streamingReplica.ts), and API processes as an operator runs them. PostgreSQL only.

const skip = testDatabaseUrl === undefined || streamingReplicaUnavailable !== undefined
if (testDatabaseUrl !== undefined && streamingReplicaUnavailable !== undefined)
  console.log(`read replica fallback tests skipped: ${streamingReplicaUnavailable}`)

const SECRET = "replica-secret-0f3a"

describe.skipIf(skip)("risk-check with a read replica that is down", () => {
  let cluster: StreamingReplica
  let primary: ManagedRuntime.ManagedRuntime<ScansRepo | SqlClient.SqlClient, unknown>
  const servers: Array<RunningServer> = []

  beforeAll(async () => {
    cluster = await startStreamingReplica()
    primary = ManagedRuntime.make(
      ScansRepo.Default.pipe(Layer.provideMerge(PgClient.layer({ url: Redacted.make(cluster.primaryUrl) })))
    )
  }, 120_000)
  afterAll(async () => {
    for (const server of servers) server.process.kill("SIGTERM")
    await Promise.all(servers.map((server) => server.process.exited))
    await primary?.dispose()
    await cluster?.stop()
  })

  const onPrimary = <A extends object>(statement: string) =>
    primary.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)))
  const onReplica = async <A extends object>(statement: string) => {
    const replica = ManagedRuntime.make(PgClient.layer({ url: Redacted.make(cluster.replicaUrl), maxConnections: 1 }))
    try {
      return await replica.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)))
    } finally {
      await replica.dispose()
    }
  }
  const record = async (symbol: string) => {
    const mint = newAddress()
    await primary.runPromise(ScansRepo.record([decodeScan(cleanScan(mint, { scannedAt: minutesAgo(5), symbol }))]))
    return mint
  }
  const check = async (server: RunningServer, mint: Address) => {
    const response = await fetch(`${server.url}/api/risk-check/${mint}`)
    const body = (await response.json()) as { scan_depth?: string; symbol?: string }
    return { status: response.status, scanned: body.scan_depth !== undefined && body.scan_depth !== "none" }
  }
  const batch = async (server: RunningServer, mints: ReadonlyArray<Address>) => {
    const response = await fetch(`${server.url}/api/risk-check/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ addresses: mints })
    })
    const body = (await response.json()) as { results: Record<string, { scan_depth?: string }> }
    const scanned = Object.values(body.results ?? {}).filter(
      (r) => r.scan_depth !== undefined && r.scan_depth !== "none"
    )
    return { status: response.status, scanned: scanned.length }
  }
  const metric = async (server: RunningServer, name: string) => {
    const text = await (await fetch(`${server.url}/metrics`)).text()
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
  }
  const pause = async () => {
    await onReplica("select pg_wal_replay_pause()")
    for (let i = 0; i < 500; i++) {
      const [row] = await onReplica<{ state: string }>("select pg_get_wal_replay_pause_state() as state")
      if (row?.state === "paused") return
      await Bun.sleep(20)
    }
    throw new Error("the replica's replay did not pause in 10 s")
  }
  // Whether `server` reads the replica now: with replay paused, a latest_scans row written on the primary
  // without a notification (as no writer of ours does) is on the primary only; "not scanned" came from the
  // replica. Only while the replica is up.
  const readsReplica = async (server: RunningServer, template: Address) => {
    const mint = newAddress()
    await pause()
    try {
      await onPrimary(
        `insert into latest_scans
         select (jsonb_populate_record(null::latest_scans, to_jsonb(l) || jsonb_build_object('mint', '${mint}'))).*
         from latest_scans l where mint = '${template}'`
      )
      const answer = await check(server, mint)
      expect(answer.status).toBe(200)
      return !answer.scanned
    } finally {
      await onReplica("select pg_wal_replay_resume()")
    }
  }
  const untilReadsReplica = async (server: RunningServer, template: Address) => {
    for (let i = 0; i < 120; i++) {
      if (await readsReplica(server, template)) return true
      await Bun.sleep(250)
    }
    return false
  }

  test("a read URL on a closed port: the server starts and answers from the primary, without the URL's password in its log", async () => {
    const closed = `postgres://postgres:${SECRET}@127.0.0.1:${freePort()}/postgres`
    const server = await startServer({ DATABASE_URL: cluster.primaryUrl, DATABASE_READ_URL: closed })
    servers.push(server)
    const mints = [await record("A1"), await record("A2"), await record("A3")]
    for (const mint of mints) expect(await check(server, mint)).toEqual({ status: 200, scanned: true })
    expect(await batch(server, [...mints, newAddress()])).toEqual({ status: 200, scanned: 3 })
    // The replica was tried (to compare it with the primary) and is reported down.
    let up = await metric(server, "risk_api_read_replica_up")
    for (let i = 0; i < 100 && up !== 0; i++) {
      await Bun.sleep(100)
      up = await metric(server, "risk_api_read_replica_up")
    }
    expect(up).toBe(0)
    expect(server.output()).not.toContain(SECRET)
  }, 90_000)

  test("a replica stopped mid-run: answered from the primary; read again once it is back", async () => {
    const server = await startServer({
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_READ_URL: `postgres://postgres:${SECRET}@${new URL(cluster.replicaUrl).host}/postgres`
    })
    servers.push(server)
    const template = await record("T")
    expect(await untilReadsReplica(server, template)).toBe(true)
    expect(await metric(server, "risk_api_read_replica_up")).toBe(1)

    // Scanned before and while the replica is down; none of them in the server's cache yet.
    const before = [await record("B1"), await record("B2"), await record("B3")]
    await cluster.stopReplica()
    const during = [await record("D1"), await record("D2")]
    for (const mint of [...before, ...during]) expect(await check(server, mint)).toEqual({ status: 200, scanned: true })
    const batched = [await record("E1"), await record("E2"), newAddress()]
    expect(await batch(server, batched)).toEqual({ status: 200, scanned: 2 })
    // One read found the replica down; the breaker sent every later one straight to the primary.
    expect(await metric(server, "risk_api_read_replica_fallbacks_total")).toBe(1)
    expect(await metric(server, "risk_api_read_replica_up")).toBe(0)

    await cluster.startReplica()
    expect(await untilReadsReplica(server, template)).toBe(true)
    expect(await metric(server, "risk_api_read_replica_up")).toBe(1)
    const after = [await record("F1"), ...before]
    for (const mint of after) expect(await check(server, mint)).toEqual({ status: 200, scanned: true })
    expect(server.output()).toContain("read replica failed; reading the primary")
    expect(server.output()).toContain("read replica answering again")
    expect(server.output()).not.toContain(SECRET)
  }, 120_000)

  test("a replica that hangs (connections accepted, nothing answered): answered from the primary once the reads in flight give up", async () => {
    const proxy = await tcpProxy({ host: "127.0.0.1", port: Number(new URL(cluster.replicaUrl).port) })
    try {
      const server = await startServer({
        DATABASE_URL: cluster.primaryUrl,
        DATABASE_READ_URL: `postgres://postgres@127.0.0.1:${proxy.port}/postgres`
      })
      servers.push(server)
      const template = await record("T")
      expect(await untilReadsReplica(server, template)).toBe(true)
      proxy.hang()
      const [first, ...rest] = [await record("H1"), await record("H2"), await record("H3")]
      // The reads in flight wait for the pool's connect or query timeout, past the request deadline (503).
      let answer = await check(server, first!)
      for (let i = 0; i < 60 && !(answer.status === 200 && answer.scanned); i++) {
        await Bun.sleep(250)
        answer = await check(server, first!)
      }
      expect(answer).toEqual({ status: 200, scanned: true })
      for (const mint of rest) expect(await check(server, mint)).toEqual({ status: 200, scanned: true })
      expect(await metric(server, "risk_api_read_replica_up")).toBe(0)
      proxy.restore()
      expect(await untilReadsReplica(server, template)).toBe(true)
    } finally {
      proxy.close()
    }
  }, 120_000)
})
