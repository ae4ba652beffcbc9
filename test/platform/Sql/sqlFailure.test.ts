import { describe, expect } from "bun:test"
import { SqlClient, type SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Reactivity } from "@effect/experimental"
import { Effect, Either } from "effect"
import { isUnreachable } from "../../../src/platform/Sql/Unavailable.ts"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { freePort } from "../../support/process.ts"

// 503 is for a database that cannot be reached; a failing query is a bug and must not look like an outage.
const { it } = runtimeFor(TestDatabase)

const failureOf = <A, R>(effect: Effect.Effect<A, SqlError.SqlError, R>) =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result) ? Effect.succeed(result.left) : Effect.die(new Error("expected a failure"))
  )

describe(`SQL failures on ${databaseKind}`, () => {
  it("a query error (division by zero, missing table) is not 'unreachable'", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const divide = yield* failureOf(sql`select 1 / 0`)
      const missing = yield* failureOf(sql`select * from no_such_table`)
      expect([isUnreachable(divide), isUnreachable(missing)]).toEqual([false, false])
    }))

  it("a read a replica cancels (SQLSTATE 40001, a conflict with recovery) is 'unreachable': retry, not a bug", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // The state a standby gives a query it cancels to replay WAL; raised here by the server with that code.
      const cancelled = yield* failureOf(
        sql.unsafe(
          "do $$ begin raise exception 'canceling statement due to conflict with recovery' using errcode = '40001'; end $$"
        )
      )
      expect(isUnreachable(cancelled)).toBe(true)
    }))

  it(
    "a refused connection is 'unreachable'",
    () =>
      Effect.gen(function* () {
        const refused = yield* failureOf(queryOnClosedPort(freePort()))
        expect(isUnreachable(refused)).toBe(true)
      }),
    30_000
  )
})

const queryOnClosedPort = (port: number) =>
  PgClient.make({ host: "127.0.0.1", port, database: "postgres", username: "postgres", maxConnections: 1 }).pipe(
    Effect.flatMap((sql) => sql`select 1`),
    Effect.scoped,
    Effect.provide(Reactivity.layer)
  )
