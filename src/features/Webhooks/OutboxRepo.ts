import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"

// The delivery side of the outbox. Workers claim with FOR UPDATE SKIP LOCKED under a lease (as the scan
// queue does); only the oldest pending event of an enabled endpoint is claimable, so an endpoint receives
// its events in the order of their scans, one at a time, whatever the number of workers.

interface ClaimedEvent {
  readonly id: string
  readonly endpointId: string
  readonly url: string
  readonly body: string
  /** This attempt's number, from 1. */
  readonly attempt: number
  /** Sealed secrets to sign with: the current one, and the previous one during a rotation's grace period. */
  readonly secrets: ReadonlyArray<string>
}

export interface AttemptOutcome {
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

interface ClaimRow {
  readonly id: string
  readonly endpoint_id: string
  readonly url: string
  readonly body: string
  readonly attempts: number
  readonly secret: string
  readonly previous_secret: string | null
}

export class WebhookOutbox extends Effect.Service<WebhookOutbox>()("WebhookOutbox", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const recordAttempt = (id: string, attempt: number, outcome: AttemptOutcome) =>
      sql`
        insert into webhook_attempts (event_id, attempt, status_code, latency_ms, error)
        values (${id}, ${attempt}, ${outcome.statusCode}, ${Math.round(outcome.latencyMs)}, ${outcome.error?.slice(0, 500) ?? null})`
    return repository({
      claim: (worker: string, leaseMs: number) =>
        sql<ClaimRow>`
          update webhook_events e
          set leased_by = ${worker}, lease_until = now() + ${leaseMs} * interval '1 millisecond', attempts = e.attempts + 1
          from webhook_endpoints ep
          where ep.id = e.endpoint_id and e.id = (
            select p.id from webhook_events p
            join webhook_endpoints pe on pe.id = p.endpoint_id and pe.status = 'enabled'
            where p.status = 'pending' and p.not_before <= now() and (p.lease_until is null or p.lease_until < now())
              and not exists (
                select 1 from webhook_events q where q.endpoint_id = p.endpoint_id and q.status = 'pending' and q.seq < p.seq
              )
            order by p.seq
            limit 1
            for update of p skip locked
          )
          returning e.id, e.endpoint_id, ep.url, e.body, e.attempts, ep.secret,
            case when ep.previous_secret_until > now() then ep.previous_secret end as previous_secret`.pipe(
          Effect.map((rows) =>
            Option.map(
              Option.fromNullable(rows[0]),
              (row): ClaimedEvent => ({
                id: row.id,
                endpointId: row.endpoint_id,
                url: row.url,
                body: row.body,
                attempt: Number(row.attempts),
                secrets: row.previous_secret === null ? [row.secret] : [row.secret, row.previous_secret]
              })
            )
          )
        ),
      /** Delivered: recorded even if the lease had passed to another worker (delivery is at least once). */
      delivered: (event: ClaimedEvent, outcome: AttemptOutcome) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* recordAttempt(event.id, event.attempt, outcome)
            yield* sql`
            update webhook_events
            set status = 'delivered', delivered_at = now(), last_status = ${outcome.statusCode}, last_error = null,
              leased_by = null, lease_until = null
            where id = ${event.id} and status = 'pending'`
          })
        ),
      /**
       * A failed attempt: retried after `retryInMs`, or, after `maxAttempts`, the event fails and its endpoint
       * is disabled with the reason (true then).
       */
      failed: (event: ClaimedEvent, worker: string, outcome: AttemptOutcome, retryInMs: number, maxAttempts: number) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* recordAttempt(event.id, event.attempt, outcome)
            const rows = yield* sql<{ status: string; attempts: number }>`
            update webhook_events
            set last_error = ${outcome.error?.slice(0, 500) ?? null}, last_status = ${outcome.statusCode},
              leased_by = null, lease_until = null, not_before = now() + ${retryInMs} * interval '1 millisecond',
              status = case when attempts >= ${maxAttempts} then 'failed' else status end
            where id = ${event.id} and leased_by = ${worker} and status = 'pending'
            returning status, attempts`
            if (rows[0]?.status !== "failed") return false
            const since = yield* sql<{
              first: Date
            }>`select min(attempted_at) as first from webhook_attempts where event_id = ${event.id}`
            const hours = ((Date.now() - new Date(since[0]?.first ?? Date.now()).getTime()) / 3_600_000).toFixed(1)
            yield* sql`
            update webhook_endpoints
            set status = 'disabled', disabled_at = now(),
              disabled_reason = ${`event ${event.id} failed ${rows[0].attempts} attempts over ${hours} h; last: ${outcome.error ?? `HTTP ${outcome.statusCode}`}`.slice(0, 500)}
            where id = ${event.endpointId}`
            return true
          })
        )
    })
  })
}) {}
