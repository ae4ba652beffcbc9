import { SqlClient, SqlError } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { ServiceUnavailable } from "../../domain/Errors.ts"
import { RequestLifecycle } from "../Request/Request.ts"
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
        sql.withTransaction(Effect.flatMap(work, (result) => Effect.map(answeredInTime, () => result))),
        (error): error is SqlError.SqlError => error instanceof SqlError.SqlError,
        sqlFailure
      )
  }))
}) {}

// A request whose deadline passed was answered 503 ("retry"): its work must not commit behind that answer.
// One that has not claims its answer here, so a deadline passing during the COMMIT no longer answers 503.
const answeredInTime = Effect.flatMap(Effect.serviceOption(RequestLifecycle), (lifecycle) =>
  Option.isSome(lifecycle) && !lifecycle.value.commitBeforeDeadline()
    ? Effect.fail(new ServiceUnavailable({ message: "The request's deadline passed before it could commit; retry." }))
    : Effect.void
)

/** No database: the work runs as it is (in-memory services have nothing to roll back). */
export const TransactionsNone = Layer.succeed(Transactions, Transactions.make({ run: (work) => work }))
