import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { Address } from "../Domain/Address.ts"
import { repository } from "../Sql/Unavailable.ts"

export interface PendingScanRequest {
  readonly id: string
  readonly mint: string
  readonly requestedAt: Date
  readonly lastRequestedAt: Date
  readonly requestCount: number
}

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

// The queue a scanner drains: one pending request per mint; asking again raises its count.
export class ScanRequestsRepo extends Effect.Service<ScanRequestsRepo>()("ScanRequestsRepo", {
  accessors: true,
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return repository({
      request: (mint: Address) =>
        sql<Row>`
          insert into scan_requests (id, mint) values (${crypto.randomUUID()}, ${mint})
          on conflict (mint) where status = 'pending'
          do update set request_count = scan_requests.request_count + 1, last_requested_at = now()
          returning id, mint, requested_at, last_requested_at, request_count`.pipe(
          Effect.map((rows) => toPending(rows[0]!))
        ),
      pending: (limit: number) =>
        sql<Row>`
          select id, mint, requested_at, last_requested_at, request_count from scan_requests
          where status = 'pending' order by requested_at, id limit ${limit}`.pipe(
          Effect.map((rows) => rows.map(toPending))
        )
    })
  })
}) {}

export const ScanRequestsMemory = Layer.sync(ScanRequestsRepo, () => {
  const byMint = new Map<string, PendingScanRequest>()
  return ScanRequestsRepo.make({
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
  })
})
