// PostgreSQL bench databases: one per scan count (risk_api_bench_<scans>), built in bulk with SQL and
// kept for the next run, plus 1,000 enterprise accounts with one key each, made anew every run.
//
// Build time on the 2-core bench machine (PostgreSQL 15 on the same host, default settings): 1,000,000
// scans (250,000 mints, ~3 GB with indexes and TOAST) take about 62 s the first time, 10,000 about 2 s;
// a reused database costs only the marker check and reading its mint list back (~0.2 s).
import { base58 } from "@scure/base"
import { Schema } from "effect"
import { Client } from "pg"
import { generateDemoDataset } from "../../src/features/Demo/generate.ts"
import { displayPrefixOf, generateKey, hashKey } from "../../src/features/Accounts/ApiKey.ts"
import { ScanEvidence } from "../../src/domain/ScanEvidence.ts"
import { runCli } from "../support/process.ts"
import { fillAssessments, fillLatestScans, LATEST_SCAN } from "./serviceSql.ts"

const SCANS_PER_MINT = 4
const BATCH_ROWS = 50_000
const HOUR_MS = 3_600_000

export interface BenchDatabase {
  readonly url: string
  readonly scans: number
  readonly mints: ReadonlyArray<string>
  /** How long the build took, this run or the run that built it. */
  readonly buildSeconds: number
  readonly reused: boolean
  /** This run's time to build or reuse it. */
  readonly openSeconds: number
}

export interface BenchAccount {
  readonly key: string
  readonly accountId: string
}

export const withClient = async <A>(url: string, use: (client: Client) => Promise<A>): Promise<A> => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  try {
    return await use(client)
  } finally {
    await client.end()
  }
}

/** The admin URL answers a query: PostgreSQL is there. */
export const isReachable = (adminUrl: string): Promise<boolean> =>
  withClient(adminUrl, (client) => client.query("select 1")).then(
    () => true,
    () => false
  )

export const databaseUrlOf = (adminUrl: string, name: string): string => {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** A random Solana address: base58 of 32 random bytes, as real mints are. */
export const randomMint = (): string => base58.encode(crypto.getRandomValues(new Uint8Array(32)))

const decodeScan = Schema.decodeUnknownSync(ScanEvidence)
const encodeScan = Schema.encodeSync(ScanEvidence)

/** Evidence of the demo generator, in the form the importer stores (decoded, then encoded again). */
const evidenceTemplates = (): ReadonlyArray<string> =>
  generateDemoDataset({ now: new Date(), tokens: 300 }).scans.map((scan) =>
    JSON.stringify(encodeScan(decodeScan(scan)))
  )

const markerOf = async (client: Client, scans: number): Promise<number | undefined> => {
  const found = await client.query<{ present: boolean }>("select to_regclass('bench_dataset') is not null as present")
  if (found.rows[0]?.present !== true) return undefined
  const marker = await client.query<{ build_seconds: string }>(
    "select build_seconds from bench_dataset where scans = $1",
    [scans]
  )
  return marker.rows[0] === undefined ? undefined : Number(marker.rows[0].build_seconds)
}

const readMints = async (client: Client): Promise<ReadonlyArray<string>> =>
  (await client.query<{ mint: string }>("select mint from bench_mints order by position")).rows.map((row) => row.mint)

const recreate = async (adminUrl: string, name: string): Promise<void> =>
  withClient(adminUrl, async (client) => {
    await client.query(`drop database if exists ${name} with (force)`)
    await client.query(`create database ${name}`)
  })

const migrate = async (url: string): Promise<void> => {
  const result = await runCli(["migrate"], { DATABASE_URL: url, LOG_LEVEL: "warning" })
  if (result.code !== 0) throw new Error(`migrate failed: ${result.stderr}`)
}

const insertTemplates = async (client: Client, templates: ReadonlyArray<string>): Promise<void> => {
  await client.query("create table bench_templates (idx int primary key, evidence jsonb not null)")
  await client.query(
    "insert into bench_templates select idx - 1, evidence::jsonb from unnest($1::text[]) with ordinality as t(evidence, idx)",
    [templates]
  )
}

const insertMints = async (client: Client, mints: ReadonlyArray<string>): Promise<void> => {
  await client.query("create table bench_mints (position int primary key, mint text not null)")
  await client.query(
    "insert into bench_mints select position - 1, mint from unnest($1::text[]) with ordinality as t(mint, position)",
    [mints]
  )
}

// Each row is a demo template with its mint and scannedAt replaced; evidence_hash only has to be unique.
const INSERT_SCANS = `
  insert into scans (mint, scanned_at, liquidity_usd, evidence, evidence_hash)
  select t.mint, t.at::timestamptz,
    coalesce((b.evidence->'liquidity'->>'liquidityUsd')::float8, (b.evidence->'market'->>'liquidityUsd')::float8),
    jsonb_set(jsonb_set(b.evidence, '{mint}', to_jsonb(t.mint)), '{scannedAt}', to_jsonb(t.at)),
    t.mint || '@' || t.at
  from unnest($1::text[], $2::text[], $3::int[]) as t(mint, at, template)
  join bench_templates b on b.idx = t.template`

interface MintScans {
  readonly mint: string
  readonly scans: number
}

/**
 * Scans in the order they would have arrived: every mint's oldest scan first, its latest last (6 to
 * 30 hours apart). The latest scans are spread over the last 3 days, so verdicts and freshness vary.
 */
const insertScans = async (client: Client, mints: ReadonlyArray<MintScans>, templateCount: number): Promise<void> => {
  const now = Date.now()
  const latest = mints.map(() => now - Math.floor(Math.random() * 72 * HOUR_MS))
  let pending: { mints: Array<string>; ats: Array<string>; templates: Array<number> } = {
    mints: [],
    ats: [],
    templates: []
  }
  const flush = async () => {
    if (pending.mints.length > 0) await client.query(INSERT_SCANS, [pending.mints, pending.ats, pending.templates])
    pending = { mints: [], ats: [], templates: [] }
  }
  for (let age = SCANS_PER_MINT - 1; age >= 0; age--) {
    for (const [i, { mint, scans }] of mints.entries()) {
      if (age >= scans) continue
      pending.mints.push(mint)
      pending.ats.push(new Date(latest[i]! - age * (6 + (i % 24)) * HOUR_MS).toISOString())
      pending.templates.push((i * 7 + age) % templateCount)
      if (pending.mints.length === BATCH_ROWS) await flush()
    }
  }
  await flush()
}

const WRITERS = 2 // one per core: the insert is CPU-bound in PostgreSQL (jsonb_set, TOAST compression, 4 indexes)

/** SCANS_PER_MINT scans per mint, but the last mint when `scans` is not a multiple; one writer per connection. */
const writeScans = (url: string, mints: ReadonlyArray<string>, scans: number, templateCount: number) => {
  const all = mints.map((mint, i) => ({ mint, scans: Math.min(SCANS_PER_MINT, scans - i * SCANS_PER_MINT) }))
  return Promise.all(
    Array.from({ length: WRITERS }, (_, w) =>
      withClient(url, async (client) => {
        await client.query("set synchronous_commit = off")
        await insertScans(
          client,
          all.filter((_, i) => i % WRITERS === w),
          templateCount
        )
      })
    )
  )
}

const build = async (url: string, scans: number): Promise<void> => {
  await migrate(url)
  const mints = Array.from({ length: Math.ceil(scans / SCANS_PER_MINT) }, randomMint)
  const templates = evidenceTemplates()
  await withClient(url, async (client) => {
    await insertTemplates(client, templates)
    await insertMints(client, mints)
  })
  await writeScans(url, mints, scans, templates.length)
  await withClient(url, async (client) => {
    await client.query("drop table bench_templates")
    await fillLatestScans(client)
    await fillAssessments(client, url)
    await client.query("vacuum analyze scans")
    await client.query("vacuum analyze latest_scans")
  })
}

/** Written last: a database without it is an interrupted build. */
const writeMarker = (url: string, scans: number, seconds: number) =>
  withClient(url, async (client) => {
    await client.query(
      "create table bench_dataset (scans bigint primary key, build_seconds numeric not null, built_at timestamptz not null default now())"
    )
    await client.query("insert into bench_dataset (scans, build_seconds) values ($1, $2)", [scans, seconds.toFixed(1)])
  })

/**
 * The bench database of `scans` scans: reused when a previous run completed it (its bench_dataset
 * marker names the same count), otherwise dropped and built anew. Migrations are applied either way
 * by the server on start.
 */
export const benchDatabase = async (adminUrl: string, scans: number): Promise<BenchDatabase> => {
  const name = `risk_api_bench_${scans}`
  const url = databaseUrlOf(adminUrl, name)
  const started = performance.now()
  const exists = await withClient(
    adminUrl,
    async (client) => (await client.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1
  )
  const marker = exists ? await withClient(url, (client) => markerOf(client, scans)) : undefined
  if (marker === undefined) {
    await recreate(adminUrl, name)
    await build(url, scans)
    await writeMarker(url, scans, (performance.now() - started) / 1000)
  }
  const { mints, buildSeconds } = await withClient(url, async (client) => ({
    mints: await readMints(client),
    buildSeconds: (await markerOf(client, scans)) ?? Number.NaN
  }))
  return {
    url,
    scans,
    mints,
    buildSeconds,
    reused: marker !== undefined,
    openSeconds: (performance.now() - started) / 1000
  }
}

/**
 * `count` enterprise accounts with limits no bench reaches, one token:risk:read key each. Every run
 * starts them afresh (accounts cascade to keys, usage and rate windows), since keys are stored hashed.
 */
export const benchAccounts = (url: string, count: number): Promise<ReadonlyArray<BenchAccount>> =>
  withClient(url, async (client) => {
    const accounts = Array.from({ length: count }, () => ({ key: generateKey(), accountId: crypto.randomUUID() }))
    await client.query("truncate accounts cascade")
    await client.query(
      `insert into accounts (id, name, plan, monthly_quota, requests_per_minute)
       select id, 'bench ' || n, 'enterprise', 2000000000, 1000000000 from unnest($1::uuid[]) with ordinality as t(id, n)`,
      [accounts.map((account) => account.accountId)]
    )
    await client.query(
      `insert into api_keys (id, account_id, key_hash, display_prefix, scopes)
       select gen_random_uuid(), account_id, key_hash, display_prefix, '{token:risk:read}'
       from unnest($1::uuid[], $2::text[], $3::text[]) as t(account_id, key_hash, display_prefix)`,
      [
        accounts.map((a) => a.accountId),
        accounts.map((a) => hashKey(a.key)),
        accounts.map((a) => displayPrefixOf(a.key))
      ]
    )
    return accounts
  })

/** The plan PostgreSQL runs the service's latest-scan lookup with, e.g. "Index Scan using scans_latest on scans, 0.041 ms". */
export const latestScanPlan = (url: string, mint: string): Promise<string> =>
  withClient(url, async (client) => {
    const lines = (await client.query<{ "QUERY PLAN": string }>(`explain (analyze) ${LATEST_SCAN}`, [mint])).rows.map(
      (row) => row["QUERY PLAN"]
    )
    const scan =
      lines
        .find((line) => /Scan/.test(line))
        ?.replace(/^[\s>-]+/, "")
        .replace(/\s+\(.*$/, "") ?? "?"
    const time = /Execution Time: ([\d.]+ ms)/.exec(lines.join("\n"))?.[1] ?? "?"
    return `${scan}, ${time}`
  })
