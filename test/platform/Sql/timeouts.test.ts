import { describe, expect, test } from "bun:test"
import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Either, Layer, Redacted } from "effect"
import { ServiceUnavailable } from "../../../src/domain/Errors.ts"
import { pooledClient, QUERY_TIMEOUT_MARGIN_MS, withStatementTimeout } from "../../../src/platform/Sql/Database.ts"
import { isUnreachable, repository } from "../../../src/platform/Sql/Unavailable.ts"
import { databaseKind, testDatabaseUrl } from "../../support/database.ts"

// A database too slow to answer is an outage (503), never a defect (500); and a client whose query the
// driver gave up on is never handed to the next query while that query still runs on it.

const withUrl = (url: string) =>
  pooledClient({ url: Redacted.make(url) }, { maxConnections: 1, connectTimeoutMs: 2_000 })
const client = Layer.suspend(() => withUrl(Redacted.value(withStatementTimeout(Redacted.make(testDatabaseUrl!), 200))))

const failureOf = <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result) ? Effect.succeed(result.left) : Effect.die(new Error("expected a failure"))
  )

describe(`database timeouts on ${databaseKind}`, () => {
  test("SQLSTATE 57014 (statement_timeout) and 25P03 (idle in transaction) are 'unreachable', a division by zero is not", () => {
    const withCode = (code: string) =>
      new SqlError.SqlError({
        cause: Object.assign(new Error("canceling statement due to statement timeout"), { code }),
        message: "Failed to execute statement"
      })
    const readTimeout = new SqlError.SqlError({
      cause: new Error("Client was closed and is not queryable"),
      message: "Failed to execute statement"
    })
    expect([withCode("57014"), withCode("25P03"), readTimeout, withCode("22012")].map(isUnreachable)).toEqual([
      true,
      true,
      true,
      false
    ])
  })

  // PGlite enforces no statement_timeout (it runs one statement at a time on one thread), and the embedded
  // database is given none: these two hold PostgreSQL's timeouts.
  test.skipIf(testDatabaseUrl === undefined)(
    "a statement stopped by statement_timeout leaves a repository as ServiceUnavailable, not a defect",
    async () => {
      const program = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const repo = repository({ sleep: () => sql`select pg_sleep(2)` })
        return yield* Effect.either(repo.sleep())
      })
      const result = await Effect.runPromise(program.pipe(Effect.provide(client), Effect.scoped))
      expect(Either.isLeft(result) && result.left instanceof ServiceUnavailable).toBe(true)
    },
    20_000
  )

  test.skipIf(testDatabaseUrl === undefined)(
    "a query the driver gave up on (query_timeout) does not hand its busy client to the next query",
    async () => {
      // No statement_timeout: only the driver's read timeout ends the wait, while PostgreSQL still runs the sleep.
      const url = new URL(testDatabaseUrl!)
      url.searchParams.set("query_timeout", String(QUERY_TIMEOUT_MARGIN_MS))
      const warnings: Array<string> = []
      const onWarning = (warning: Error) => warnings.push(warning.message)
      process.on("warning", onWarning)
      try {
        const program = Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [before] = yield* sql<{ pid: number }>`select pg_backend_pid() as pid`
          const timedOut = yield* failureOf(sql`select pg_sleep(3)`)
          const [after] = yield* sql<{ pid: number }>`select pg_backend_pid() as pid`
          return { unreachable: isUnreachable(timedOut), sameClient: before!.pid === after!.pid }
        })
        const got = await Effect.runPromise(program.pipe(Effect.provide(withUrl(url.toString())), Effect.scoped))
        expect({ ...got, warnings }).toEqual({ unreachable: true, sameClient: false, warnings: [] })
      } finally {
        process.off("warning", onWarning)
      }
    },
    20_000
  )
})
