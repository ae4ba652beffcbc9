// A baseline server in a process of its own, so it can be pinned to the service's cores (pinning.ts):
// `bun test/bench/baselineServer.ts <spec.json>` prints "listening <port>" and serves until SIGTERM.
// The spec (written by baselines.ts) holds the service's captured answers and, for the database-bound
// kinds, the database to run the service's statements against with raw node-postgres.
import { Pool } from "pg"
import { hashKey } from "../../src/features/Accounts/ApiKey.ts"
import {
  AUTHENTICATE,
  CHARGE_CALLS,
  chargeCallsParameters,
  CONFIRM,
  FRESH_MS,
  LATEST_SCAN,
  LATEST_VERDICTS,
  MODEL_VERSION,
  REVALIDATE_KEYS,
  REVALIDATE_MS
} from "./serviceSql.ts"

export interface StoredAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  /** base64 */
  readonly body: string
}

export type BaselineSpec =
  | { readonly kind: "raw"; readonly answers: ReadonlyArray<readonly [string, StoredAnswer]> }
  | {
      readonly kind: "token-risk"
      readonly answers: ReadonlyArray<readonly [string, StoredAnswer]>
      readonly databaseUrl: string
      readonly poolSize: number
      readonly cost: number
    }
  | {
      /** POST /api/risk-check/batch: the mints not in `warm` read in one statement, then the service's bytes. */
      readonly kind: "latest-batch"
      readonly answers: ReadonlyArray<readonly [string, StoredAnswer]>
      readonly warm: ReadonlyArray<string>
      readonly databaseUrl: string
      readonly poolSize: number
    }
  | {
      readonly kind: "latest-scan"
      readonly answers: ReadonlyArray<readonly [string, StoredAnswer]>
      readonly databaseUrl: string
      readonly poolSize: number
    }

interface KeyRow {
  readonly key_id: string
  readonly account_id: string
  readonly monthly_quota: number
  readonly requests_per_minute: number
  readonly version: string
}

const spec = (await Bun.file(process.argv[2]!).json()) as BaselineSpec
const answers = new Map(
  spec.answers.map(([key, answer]) => [
    key,
    {
      status: answer.status,
      headers: new Headers(answer.headers.map(([name, value]) => [name, value])),
      body: Buffer.from(answer.body, "base64")
    }
  ])
)
type Loaded = NonNullable<ReturnType<typeof answers.get>>

const respond = (answer: Loaded | undefined): Response =>
  answer === undefined
    ? new Response("", { status: 404 })
    : new Response(answer.body, { status: answer.status, headers: answer.headers })

const bearerOf = (request: Request): string => (request.headers.get("authorization") ?? "").replace(/^Bearer /, "")

const pool = spec.kind === "raw" ? undefined : new Pool({ connectionString: spec.databaseUrl, max: spec.poolSize })

const fetchOf = (): ((request: Request) => Promise<Response>) => {
  switch (spec.kind) {
    // Raw Bun.serve: each `METHOD /path` answered with the bytes the service gave for it (a POST body is read, not parsed).
    case "raw":
      return async (request) => {
        if (request.method === "POST") await request.arrayBuffer()
        return respond(answers.get(`${request.method} ${new URL(request.url).pathname}`))
      }
    // POST /api/v1/token/risk with the service's current round trips on a warm scan cache: the key from
    // memory (looked up once, then revalidated every REVALIDATE_MS with the service's statement, as
    // src/features/Accounts/KeyCache.ts does), then the rate + quota charge with its reservation (one statement, one call: the bench's calls are
    // spread over many accounts),
    // then the reservation's confirmation once the answer is written, gathered with the others in flight
    // (src/features/Accounts/Quota.ts chargeHeld, src/features/Accounts/Metered.ts).
    case "token-risk": {
      const { cost } = spec
      let confirming: Array<readonly [string, number]> = []
      let flushing = false
      const flush = (): void => {
        const ids = confirming
        confirming = []
        if (ids.length === 0) {
          flushing = false
          return
        }
        pool!.query(CONFIRM, [ids.map(([id]) => id), ids.map(([, units]) => units)]).then(flush, flush)
      }
      const confirmLater = (id: string, units: number) => {
        confirming.push([id, units])
        if (flushing) return
        flushing = true
        flush()
      }
      const keys = new Map<string, { readonly row: KeyRow; checkedAt: number }>()
      setInterval(() => {
        const startedAt = Date.now()
        const held = [...keys.values()]
        if (held.length === 0) return
        void pool!
          .query<{ readonly key_id: string }>(REVALIDATE_KEYS, [
            held.map((key) => key.row.key_id),
            held.map((key) => key.row.version)
          ])
          .then(
            ({ rows }) => {
              const changed = new Set(rows.map((row) => row.key_id))
              for (const key of held) if (!changed.has(key.row.key_id)) key.checkedAt = startedAt
            },
            () => undefined
          )
      }, REVALIDATE_MS)
      return async (request) => {
        const { address } = (await request.json()) as { readonly address: string }
        const hash = hashKey(bearerOf(request))
        const now = Date.now()
        let key = keys.get(hash)
        if (key === undefined || now - key.checkedAt >= FRESH_MS) {
          const { rows } = await pool!.query<KeyRow>(AUTHENTICATE, [hash])
          if (rows[0] === undefined) return new Response("", { status: 401 })
          key = { row: rows[0], checkedAt: now }
          keys.set(hash, key)
        }
        const {
          key_id: keyId,
          account_id: accountId,
          monthly_quota: monthlyQuota,
          requests_per_minute: requestsPerMinute
        } = key.row
        const reservation = crypto.randomUUID()
        await pool!.query(CHARGE_CALLS, [
          ...chargeCallsParameters(
            { keyId, accountId, scopes: [], limits: { monthlyQuota, requestsPerMinute } },
            cost,
            1,
            reservation
          )
        ])
        // As the service: the reservation is confirmed after Bun wrote the answer, confirmations gathered
        // into one statement while the previous one runs.
        setImmediate(() => confirmLater(reservation, cost))
        return respond(answers.get(address))
      }
    }
    // The cold part of a batch: what is not warm (the service's memory) is read with the service's one
    // statement for many mints (its stored verdicts: the service's read of cold mints it will not keep);
    // every request is answered with the all-warm batch's bytes.
    case "latest-batch": {
      const warm = new Set(spec.warm)
      return async (request) => {
        const { addresses } = (await request.json()) as { readonly addresses: ReadonlyArray<string> }
        const cold = addresses.filter((mint) => !warm.has(mint))
        if (cold.length > 0) await pool!.query(LATEST_VERDICTS, [cold, MODEL_VERSION, []])
        return respond(answers.get("POST /api/risk-check/batch"))
      }
    }
    // GET /api/risk-check/{mint} with the cache off: the latest-scan lookup, then the service's bytes for that path.
    case "latest-scan":
      return async (request) => {
        const path = new URL(request.url).pathname
        await pool!.query(LATEST_SCAN, [path.slice(path.lastIndexOf("/") + 1)])
        return respond(answers.get(`GET ${path}`))
      }
  }
}

const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: fetchOf() })
process.on("SIGTERM", () => {
  void server.stop(true)
  void (pool?.end() ?? Promise.resolve()).finally(() => process.exit(0))
})
console.log(`listening ${server.port}`)
