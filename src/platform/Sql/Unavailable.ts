import { SqlError } from "@effect/sql"
import { Effect, Predicate } from "effect"
import { ServiceUnavailable } from "../../domain/Errors.ts"

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "EAI_AGAIN"
])
// SQLSTATE: 08 connection exceptions; 57P01-03 shutdown / cannot connect now; 53300 too many connections;
// 57014 a statement stopped by statement_timeout (or a cancel); 25P03 a transaction ended by
// idle_in_transaction_session_timeout; 40001 on a read replica (DATABASE_READ_URL) a query cancelled by a
// conflict with recovery (the standby replaying WAL that removes rows the query still needs; the latest-scan
// reads then ask the primary: Scans/LatestScanReplica.ts). A database too
// slow to answer in time, or a replica that must cancel a read, is an outage for the caller to retry, not a bug.
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300", "57014", "25P03", "40001"])

const codeOf = (cause: unknown): string | undefined =>
  Predicate.hasProperty(cause, "code") && typeof cause.code === "string" ? cause.code : undefined

/** Could the database not be reached (retry later), as opposed to a query that is wrong (a bug)? */
export const isUnreachable = (error: SqlError.SqlError): boolean => {
  const code = codeOf(error.cause)
  if (code !== undefined) return NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith("08")
  const text = `${error.message} ${error.cause instanceof Error ? error.cause.message : ""}`
  // node-postgres's own: "Query read timeout", "Connection terminated", "Client was closed and is not queryable".
  return /connect|connection|timed out|timeout|terminated|socket|not queryable/i.test(text)
}

/**
 * An unreachable database is a typed 503 for the caller to retry; any other SQL failure is a defect (a 500
 * and an error log), never disguised as an outage.
 */
export const sqlFailure = (error: SqlError.SqlError): Effect.Effect<never, ServiceUnavailable> =>
  isUnreachable(error)
    ? Effect.zipRight(
        Effect.logWarning("database unreachable", error.message),
        Effect.fail(new ServiceUnavailable({ message: "The evidence database is unreachable; retry shortly." }))
      )
    : Effect.die(error)

type AtTheEdge<A> =
  A extends Effect.Effect<infer X, infer E, infer R>
    ? Effect.Effect<X, Exclude<E, SqlError.SqlError> | (SqlError.SqlError extends E ? ServiceUnavailable : never), R>
    : A extends (...args: infer P) => infer Out
      ? (...args: P) => AtTheEdge<Out>
      : A

/** A repository's methods as its callers see them: every SqlError mapped by `sqlFailure`. */
export type Repository<S> = { readonly [K in keyof S]: AtTheEdge<S[K]> }

const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

const edge = (value: unknown): unknown => {
  if (Effect.isEffect(value)) return Effect.catchIf(value, isSqlError, sqlFailure)
  if (typeof value === "function") return (...args: Array<unknown>) => edge(value(...args))
  return value
}

/**
 * The repository edge, applied once where a repository is built: whatever its SQL throws leaves it as
 * `ServiceUnavailable` or a defect, so no caller handles SqlError. (How long a caller waits on a database
 * that does not answer is bounded per request: Http/Middleware.ts and the fast path.)
 */
export const repository = <S extends Record<string, unknown>>(service: S): Repository<S> =>
  Object.fromEntries(Object.entries(service).map(([name, value]) => [name, edge(value)])) as Repository<S>
