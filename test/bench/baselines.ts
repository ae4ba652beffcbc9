// The baselines the service is compared with: raw Bun.serve answering with the bytes the service gave
// for the same request, alone or after the same PostgreSQL round trips as the service (raw node-postgres).
import { Pool } from "pg"
import { hashKey } from "../../src/Accounts/ApiKey.ts"
import { freePort } from "../support/process.ts"
import { AUTHENTICATE, CHARGE, LATEST_SCAN } from "./serviceSql.ts"

export interface Answer {
  readonly status: number
  readonly body: ArrayBuffer
  readonly headers: Headers
}

export interface Captured {
  readonly key: string
  readonly answer: Answer
}

export interface Baseline {
  readonly url: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

const respond = (answer: Answer | undefined): Response =>
  answer === undefined ? new Response("", { status: 404 }) : new Response(answer.body, { status: answer.status, headers: answer.headers })

/** Sends every request to the service, `concurrency` at a time, and keeps each answer under its key. */
export const capture = async (
  requests: ReadonlyArray<{ readonly key: string; readonly request: () => Promise<Response> }>,
  concurrency = 32
): Promise<ReadonlyMap<string, Answer>> => {
  const answers = new Map<string, Answer>()
  let next = 0
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const response = await requests[i]!.request()
      answers.set(requests[i]!.key, { status: response.status, body: await response.arrayBuffer(), headers: response.headers })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return answers
}

/** Status code -> how many of the answers had it. */
export const statusMix = (answers: ReadonlyMap<string, Answer>): ReadonlyMap<number, number> => {
  const mix = new Map<number, number>()
  for (const answer of answers.values()) mix.set(answer.status, (mix.get(answer.status) ?? 0) + 1)
  return mix
}

const serve = (fetch: (request: Request) => Promise<Response> | Response, cleanup: () => Promise<void> = async () => {}): Baseline => {
  const server = Bun.serve({ port: freePort(), hostname: "127.0.0.1", fetch })
  return {
    url: `http://127.0.0.1:${server.port}`,
    pid: process.pid,
    stop: async () => {
      await server.stop(true)
      await cleanup()
    }
  }
}

/** Raw Bun.serve: each `METHOD /path` answered with the bytes the service gave for it (a POST body is read, not parsed). */
export const rawServe = (answers: ReadonlyMap<string, Answer>): Baseline =>
  serve(async (request) => {
    if (request.method === "POST") await request.arrayBuffer()
    return respond(answers.get(`${request.method} ${new URL(request.url).pathname}`))
  })

interface KeyRow {
  readonly key_id: string
  readonly account_id: string
  readonly monthly_quota: number
  readonly requests_per_minute: number
}

const bearerOf = (request: Request): string => (request.headers.get("authorization") ?? "").replace(/^Bearer /, "")

/**
 * Raw Bun.serve + node-postgres pool for POST /api/v1/token/risk: the service's two round trips on a
 * warm scan cache (key lookup by hash, then the one-statement rate + quota charge), then the bytes the
 * service gave for that mint.
 */
export const rawTokenRisk = (databaseUrl: string, poolSize: number, cost: number, answersByMint: ReadonlyMap<string, Answer>): Baseline => {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize })
  return serve(async (request) => {
    const { address } = (await request.json()) as { readonly address: string }
    const { rows } = await pool.query<KeyRow>(AUTHENTICATE, [hashKey(bearerOf(request))])
    const key = rows[0]
    if (key === undefined) return new Response("", { status: 401 })
    const { account_id: account, monthly_quota: quota, requests_per_minute: perMinute } = key
    await pool.query(CHARGE, [account, perMinute, account, cost, cost, quota, quota, key.key_id, account, account])
    return respond(answersByMint.get(address))
  }, () => pool.end())
}

/** Raw Bun.serve + node-postgres pool for GET /api/risk-check/{mint}: the latest-scan lookup, then the service's bytes for that path. */
export const rawLatestScan = (databaseUrl: string, poolSize: number, answers: ReadonlyMap<string, Answer>): Baseline => {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize })
  return serve(async (request) => {
    const path = new URL(request.url).pathname
    await pool.query(LATEST_SCAN, [path.slice(path.lastIndexOf("/") + 1)])
    return respond(answers.get(`GET ${path}`))
  }, () => pool.end())
}
