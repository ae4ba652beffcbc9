import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import { sqlFailure } from "./Unavailable.ts"

/**
 * Work that commits as one: every database call inside `run` shares one transaction, rolled back when the
 * work fails or is interrupted (a process killed mid-way commits nothing).
 */
export class Transactions extends Effect.Service<Transactions>()("Transactions", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => ({
    run: <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | ServiceUnavailable, R> =>
      // The work's own calls went through their repositories' edge; what is left is BEGIN and COMMIT.
      Effect.catchIf(
        sql.withTransaction(work),
        (error): error is SqlError.SqlError => error instanceof SqlError.SqlError,
        sqlFailure
      )
  }))
}) {}

/** No database: the work runs as it is (in-memory services have nothing to roll back). */
export const TransactionsNone = Layer.succeed(Transactions, Transactions.make({ run: (work) => work }))
