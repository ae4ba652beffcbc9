// A baseline server in a process of its own, so it can be pinned to the service's cores (pinning.ts):
// `bun test/bench/baselineServer.ts <spec.json>` prints "listening <port>" and serves until SIGTERM.
// The spec (written by baselines.ts) holds the service's captured answers and, for the database-bound
// kinds, the database to run the service's statements against with raw node-postgres.
import { Pool, type PoolClient } from "pg"
import { hashKey } from "../../src/Accounts/ApiKey.ts"
import { AUTHENTICATE, CHARGE, LATEST_SCAN } from "./serviceSql.ts"

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
}

const spec = (await Bun.file(process.argv[2]!).json()) as BaselineSpec
const answers = new Map(spec.answers.map(([key, answer]) => [key, {
  status: answer.status,
  headers: new Headers(answer.headers.map(([name, value]) => [name, value])),
  body: Buffer.from(answer.body, "base64")
}]))
type Loaded = NonNullable<ReturnType<typeof answers.get>>

const respond = (answer: Loaded | undefined): Response =>
  answer === undefined ? new Response("", { status: 404 }) : new Response(answer.body, { status: answer.status, headers: answer.headers })

const bearerOf = (request: Request): string => (request.headers.get("authorization") ?? "").replace(/^Bearer /, "")

const pool = spec.kind === "raw" ? undefined : new Pool({ connectionString: spec.databaseUrl, max: spec.poolSize })

const fetchOf = (): (request: Request) => Promise<Response> => {
  switch (spec.kind) {
    // Raw Bun.serve: each `METHOD /path` answered with the bytes the service gave for it (a POST body is read, not parsed).
    case "raw":
      return async (request) => {
        if (request.method === "POST") await request.arrayBuffer()
        return respond(answers.get(`${request.method} ${new URL(request.url).pathname}`))
      }
    // POST /api/v1/token/risk with the service's current round trips on a warm scan cache: the key lookup,
    // then BEGIN and the one-statement rate + quota charge on a connection held until the answer is
    // written, then COMMIT (src/Accounts/Quota.ts chargeHeld, src/Accounts/Metered.ts): 4 statements.
    case "token-risk": {
      const { cost } = spec
      return async (request) => {
        const { address } = (await request.json()) as { readonly address: string }
        const { rows } = await pool!.query<KeyRow>(AUTHENTICATE, [hashKey(bearerOf(request))])
        const key = rows[0]
        if (key === undefined) return new Response("", { status: 401 })
        const { account_id: account, monthly_quota: quota, requests_per_minute: perMinute } = key
        const client: PoolClient = await pool!.connect()
        try {
          await client.query("BEGIN")
          await client.query(CHARGE, [account, perMinute, account, cost, cost, quota, quota, key.key_id, account, account])
        } catch (error) {
          client.release(true)
          throw error
        }
        // As the service: the commit runs on the next turn of the event loop, after Bun wrote the answer.
        setImmediate(() => {
          client.query("COMMIT").then(() => client.release(), (error: unknown) => client.release(error as Error))
        })
        return respond(answers.get(address))
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
