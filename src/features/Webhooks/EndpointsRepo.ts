import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"

// An account's webhook endpoints and what was sent to them. Another account's endpoint does not exist
// for the caller. Secrets go in and out sealed (Secret.ts); this repository never sees them in the clear.

export interface Endpoint {
  readonly id: string
  readonly accountId: string
  readonly url: string
  readonly description: string | null
  readonly status: "enabled" | "disabled"
  readonly disabledReason: string | null
  readonly disabledAt: string | null
  readonly createdAt: string
}

interface Attempt {
  readonly attempt: number
  readonly attemptedAt: string
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string | null
}

export interface SentEvent {
  readonly id: string
  readonly type: string
  readonly watchId: string
  readonly scanId: string
  readonly status: "pending" | "delivered" | "failed"
  readonly attempts: number
  readonly nextAttemptAt: string | null
  readonly createdAt: string
  readonly deliveredAt: string | null
  readonly lastError: string | null
  readonly recentAttempts: ReadonlyArray<Attempt>
}

interface EndpointRow {
  readonly id: string
  readonly account_id: string
  readonly url: string
  readonly description: string | null
  readonly status: "enabled" | "disabled"
  readonly disabled_reason: string | null
  readonly disabled_at: Date | null
  readonly created_at: Date
}

interface EventRow {
  readonly id: string
  readonly type: string
  readonly watch_id: string
  readonly scan_id: string
  readonly status: "pending" | "delivered" | "failed"
  readonly attempts: number
  readonly not_before: Date
  readonly created_at: Date
  readonly delivered_at: Date | null
  readonly last_error: string | null
  readonly recent:
    | ReadonlyArray<{
        readonly attempt: number
        readonly attempted_at: string
        readonly status_code: number | null
        readonly latency_ms: number
        readonly error: string | null
      }>
    | string
}

const iso = (date: Date | string): string => new Date(date).toISOString()

const toEndpoint = (row: EndpointRow): Endpoint => ({
  id: row.id,
  accountId: row.account_id,
  url: row.url,
  description: row.description,
  status: row.status,
  disabledReason: row.disabled_reason,
  disabledAt: row.disabled_at === null ? null : iso(row.disabled_at),
  createdAt: iso(row.created_at)
})

const toEvent = (row: EventRow): SentEvent => {
  const recent =
    typeof row.recent === "string" ? (JSON.parse(row.recent) as Exclude<EventRow["recent"], string>) : row.recent
  return {
    id: row.id,
    type: row.type,
    watchId: row.watch_id,
    scanId: String(row.scan_id),
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.status === "pending" ? iso(row.not_before) : null,
    createdAt: iso(row.created_at),
    deliveredAt: row.delivered_at === null ? null : iso(row.delivered_at),
    lastError: row.last_error,
    recentAttempts: recent.map((a) => ({
      attempt: Number(a.attempt),
      attemptedAt: iso(a.attempted_at),
      statusCode: a.status_code === null ? null : Number(a.status_code),
      latencyMs: Number(a.latency_ms),
      error: a.error
    }))
  }
}

const isUuid = (text: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)

const ENDPOINT_COLUMNS = "id, account_id, url, description, status, disabled_reason, disabled_at, created_at"

/** How long the secret before a rotation still signs deliveries (receivers switch over meanwhile). */
const ROTATION_GRACE_SECONDS = 24 * 3600

export class WebhookEndpointsRepo extends Effect.Service<WebhookEndpointsRepo>()("WebhookEndpointsRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(ENDPOINT_COLUMNS)
    const events = (endpointId: string, limit: number, eventId: string | null) =>
      sql<EventRow>`
        select e.id, e.type, e.watch_id, e.scan_id::text as scan_id, e.status, e.attempts, e.not_before, e.created_at,
          e.delivered_at, e.last_error,
          coalesce((
            select json_agg(json_build_object('attempt', a.attempt, 'attempted_at', a.attempted_at, 'status_code', a.status_code,
              'latency_ms', a.latency_ms, 'error', a.error) order by a.id desc)
            from (select * from webhook_attempts where event_id = e.id order by id desc limit 10) a
          ), '[]'::json) as recent
        from webhook_events e
        where e.endpoint_id = ${endpointId} and (${eventId}::uuid is null or e.id = ${eventId}::uuid)
        order by e.seq desc
        limit ${limit}`.pipe(Effect.map((rows) => rows.map(toEvent)))
    return repository({
      /**
       * Stores an endpoint unless the account already has `limit` (none then): counted and inserted under a
       * lock of the account's endpoints, so concurrent calls on any process cannot pass the cap.
       */
      create: (
        accountId: string,
        endpoint: { readonly url: string; readonly description: string | null; readonly sealedSecret: string },
        limit: number
      ) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`select pg_advisory_xact_lock(hashtextextended(${`webhooks:${accountId}`}, 0))`
            const [count] = yield* sql<{
              count: string
            }>`select count(*) from webhook_endpoints where account_id = ${accountId}`
            if (Number(count?.count ?? 0) >= limit) return Option.none<Endpoint>()
            const rows = yield* sql<EndpointRow>`
            insert into webhook_endpoints (id, account_id, url, description, secret)
            values (${crypto.randomUUID()}, ${accountId}, ${endpoint.url}, ${endpoint.description}, ${endpoint.sealedSecret})
            returning ${columns}`
            return Option.some(toEndpoint(rows[0]!))
          })
        ),
      find: (accountId: string, id: string) =>
        isUuid(id)
          ? sql<EndpointRow>`select ${columns} from webhook_endpoints where id = ${id} and account_id = ${accountId}`.pipe(
              Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toEndpoint))
            )
          : Effect.succeed(Option.none<Endpoint>()),
      list: (accountId: string) =>
        sql<EndpointRow>`
          select ${columns} from webhook_endpoints where account_id = ${accountId} order by created_at desc, id`.pipe(
          Effect.map((rows) => rows.map(toEndpoint))
        ),
      remove: (accountId: string, id: string) =>
        isUuid(id)
          ? sql`delete from webhook_endpoints where id = ${id} and account_id = ${accountId} returning id`.pipe(
              Effect.map((rows) => rows.length > 0)
            )
          : Effect.succeed(false),
      /** A new secret; the old one keeps signing for ROTATION_GRACE_SECONDS. */
      rotate: (accountId: string, id: string, sealedSecret: string) =>
        isUuid(id)
          ? sql<EndpointRow>`
            update webhook_endpoints
            set previous_secret = secret, previous_secret_until = now() + ${ROTATION_GRACE_SECONDS} * interval '1 second',
              secret = ${sealedSecret}
            where id = ${id} and account_id = ${accountId}
            returning ${columns}`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toEndpoint)))
          : Effect.succeed(Option.none<Endpoint>()),
      /** The endpoint's events, newest first, each with its last attempts. */
      events: (endpointId: string, limit: number) => events(endpointId, limit, null),
      /**
       * Queues an event again from its first attempt, and enables its endpoint (a disabled endpoint comes
       * back this way). The event keeps its place in the endpoint's order.
       */
      redeliver: (endpointId: string, eventId: string) =>
        isUuid(eventId)
          ? sql.withTransaction(
              Effect.gen(function* () {
                const updated = yield* sql`
              update webhook_events set status = 'pending', attempts = 0, not_before = now(), leased_by = null,
                lease_until = null, delivered_at = null
              where id = ${eventId} and endpoint_id = ${endpointId}
              returning id`
                if (updated.length === 0) return Option.none<SentEvent>()
                yield* sql`
              update webhook_endpoints set status = 'enabled', disabled_reason = null, disabled_at = null
              where id = ${endpointId}`
                return Option.fromNullable((yield* events(endpointId, 1, eventId))[0])
              })
            )
          : Effect.succeed(Option.none<SentEvent>())
    })
  })
}) {}

/** For apps and tests without a database: no endpoints, and none can be made. */
export const WebhookEndpointsNone = Layer.succeed(
  WebhookEndpointsRepo,
  WebhookEndpointsRepo.make({
    create: () => Effect.succeed(Option.none()),
    find: () => Effect.succeed(Option.none()),
    list: () => Effect.succeed([]),
    remove: () => Effect.succeed(false),
    rotate: () => Effect.succeed(Option.none()),
    events: () => Effect.succeed([]),
    redeliver: () => Effect.succeed(Option.none())
  })
)
