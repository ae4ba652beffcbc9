import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { Address } from "../Domain/Address.ts"
import { sqlFailure } from "../Sql/Unavailable.ts"

export interface PendingScanRequest {
  readonly id: string
  readonly mint: string
  readonly requestedAt: Date
  readonly lastRequestedAt: Date
  readonly requestCount: number
}

// The queue an external scanner drains: one pending request per mint; asking again raises its count.
export class ScanRequests extends Effect.Tag("ScanRequests")<ScanRequests, {
  readonly request: (mint: Address) => Effect.Effect<PendingScanRequest, ServiceUnavailable>
  readonly pending: (limit: number) => Effect.Effect<ReadonlyArray<PendingScanRequest>, ServiceUnavailable>
}>() {}

interface Row {
  readonly id: string
  readonly mint: string
  readonly requested_at: Date
  readonly last_requested_at: Date
  readonly request_count: number
}

const toPending = (row: Row): PendingScanRequest => ({
  id: row.id,
  mint: row.mint,
  requestedAt: new Date(row.requested_at),
  lastRequestedAt: new Date(row.last_requested_at),
  requestCount: Number(row.request_count)
})

export const ScanRequestsSql = Layer.effect(
  ScanRequests,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      request: (mint) =>
        sql<Row>`
          insert into scan_requests (id, mint) values (${crypto.randomUUID()}, ${mint})
          on conflict (mint) where status = 'pending'
          do update set request_count = scan_requests.request_count + 1, last_requested_at = now()
          returning id, mint, requested_at, last_requested_at, request_count`.pipe(
          Effect.map((rows) => toPending(rows[0]!)),
          Effect.catchTag("SqlError", sqlFailure)
        ),
      pending: (limit) =>
        sql<Row>`
          select id, mint, requested_at, last_requested_at, request_count from scan_requests
          where status = 'pending' order by requested_at, id limit ${limit}`.pipe(
          Effect.map((rows) => rows.map(toPending)),
          Effect.catchTag("SqlError", sqlFailure)
        )
    }
  })
)

export const ScanRequestsMemory = Layer.sync(ScanRequests, () => {
  const byMint = new Map<string, PendingScanRequest>()
  return {
    request: (mint) =>
      Effect.sync(() => {
        const now = new Date()
        const existing = byMint.get(mint)
        const next = existing === undefined
          ? { id: crypto.randomUUID(), mint, requestedAt: now, lastRequestedAt: now, requestCount: 1 }
          : { ...existing, lastRequestedAt: now, requestCount: existing.requestCount + 1 }
        byMint.set(mint, next)
        return next
      }),
    pending: (limit) =>
      Effect.sync(() =>
        [...byMint.values()].sort((a, b) => a.requestedAt.getTime() - b.requestedAt.getTime()).slice(0, limit)
      )
  }
})
