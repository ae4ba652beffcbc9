import { Effect } from "effect"
import { latency, refusals, requests } from "./Metrics.ts"

/** What is recorded of every answered request, on either path: its metrics and one log line. */
export interface RequestRecord {
  readonly method: string
  readonly path: string
  readonly route: string
  readonly status: number
  readonly seconds: number
  readonly requestId: string
  readonly accountId: string | undefined
  /** The code of a refusal by a limit, for the refusals metric. */
  readonly errorCode: string | undefined
}

export const countRequest = (record: RequestRecord): void => {
  requests.inc({ method: record.method, route: record.route, status: String(record.status) })
  latency.observe({ method: record.method, route: record.route }, record.seconds)
  if (record.errorCode === "rate_limited" || record.errorCode === "quota_exceeded")
    refusals.inc({ reason: record.errorCode })
}

/** The fields of a request's log line: the key never appears, the account id does. */
export const requestFields = (record: RequestRecord): Record<string, string | number> => ({
  method: record.method,
  route: record.route,
  path: record.path,
  status: record.status,
  durationMs: Math.round(record.seconds * 100_000) / 100,
  requestId: record.requestId,
  ...(record.accountId === undefined ? {} : { accountId: record.accountId })
})

export const requestLine = (record: RequestRecord) =>
  Effect.logInfo("request").pipe(Effect.annotateLogs(requestFields(record)))
