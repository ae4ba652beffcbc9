import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { Address } from "../../domain/Address.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import { watchPollsStatement } from "../Watches/WatchesRepo.ts"

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

/** A request a worker holds under a lease. */
export interface ClaimedScan {
  readonly id: string
  readonly mint: Address
  readonly reason: ScanReason
  /** Including this one. */
  readonly attempts: number
}

export type ScanReason = "rescan" | "watch" | "read" | "launch" | "event"

/** Queue depth for /metrics: pending requests and how long the oldest has waited. */
interface QueueDepth {
  readonly pending: number
  readonly oldestAgeSeconds: number
}

// Work sources in priority order (lowest first): a token just launched, a state event on a tracked mint
// (src/workers/Stream), someone asked (rescan), a watch is due, people read a stale scan.
const PRIORITY: Record<ScanReason, number> = { launch: -2, event: -1, rescan: 0, watch: 1, read: 2 }

/**
 * Idle scanner lanes wait for work up to their poll interval; a request queued by this process (the
 * watcher beside the scanner in `serve`, a rescan asked here) ends the wait at once. Other processes'
 * requests are found at the next poll.
 */
const makeWakeup = () => {
  const waiting = new Set<() => void>()
  return {
    wake: Effect.sync(() => {
      for (const resume of [...waiting]) resume()
    }),
    wait: (maxMs: number) =>
      Effect.async<void>((resume) => {
        const done = () => {
          clearTimeout(timer)
          waiting.delete(done)
          resume(Effect.void)
        }
        const timer = setTimeout(done, maxMs)
        waiting.add(done)
        return Effect.sync(() => {
          clearTimeout(timer)
          waiting.delete(done)
        })
      })
  }
}

// The queue a scanner drains: one pending request per mint; asking again raises its count.
export class ScanRequestsRepo extends Effect.Service<ScanRequestsRepo>()("ScanRequestsRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const wakeup = makeWakeup()
    return repository({
      /** Waits up to `maxMs`, or until a request is queued in this process. */
      awaitWork: (maxMs: number) => wakeup.wait(maxMs),
      request: (mint: Address) =>
        sql<Row>`
          insert into scan_requests (id, mint) values (${crypto.randomUUID()}, ${mint})
          on conflict (mint) where status = 'pending'
          do update set request_count = scan_requests.request_count + 1, last_requested_at = now(),
            reason = case when scan_requests.priority < ${PRIORITY.rescan} then scan_requests.reason else 'rescan' end,
            priority = least(scan_requests.priority, ${PRIORITY.rescan})
          returning id, mint, requested_at, last_requested_at, request_count`.pipe(
          Effect.map((rows) => toPending(rows[0]!)),
          Effect.tap(() => wakeup.wake)
        ),
      /**
       * Queues a scan for the stream (a launch or a state event) ahead of other work: a pending request
       * of the mint is raised to this priority, never lowered.
       */
      requestPriority: (mint: Address, reason: "launch" | "event") =>
        sql<Row>`
          insert into scan_requests (id, mint, reason, priority) values (${crypto.randomUUID()}, ${mint}, ${reason}, ${PRIORITY[reason]})
          on conflict (mint) where status = 'pending'
          do update set request_count = scan_requests.request_count + 1, last_requested_at = now(),
            reason = case when excluded.priority < scan_requests.priority then excluded.reason else scan_requests.reason end,
            priority = least(scan_requests.priority, excluded.priority), not_before = least(scan_requests.not_before, now())
          returning id, mint, requested_at, last_requested_at, request_count`.pipe(
          Effect.map((rows) => toPending(rows[0]!)),
          Effect.tap(() => wakeup.wake)
        ),
      pending: (limit: number) =>
        sql<Row>`
          select id, mint, requested_at, last_requested_at, request_count from scan_requests
          where status = 'pending' order by requested_at, id limit ${limit}`.pipe(
          Effect.map((rows) => rows.map(toPending))
        ),
      /**
       * Takes up to `limit` claimable requests (pending, due, not leased or lease expired) for `worker`
       * until the lease ends; concurrent workers skip each other's rows.
       */
      claim: (worker: string, limit: number, leaseMs: number) =>
        sql<{ id: string; mint: string; reason: ScanReason; attempts: number }>`
          update scan_requests r
          set leased_by = ${worker}, lease_until = now() + ${leaseMs} * interval '1 millisecond', attempts = r.attempts + 1
          where r.id in (
            select id from scan_requests
            where status = 'pending' and not_before <= now() and (lease_until is null or lease_until < now())
            order by priority, requested_at, id
            limit ${limit}
            for update skip locked
          )
          returning r.id, r.mint, r.reason, r.attempts`.pipe(
          Effect.map((rows) =>
            rows.map((row): ClaimedScan => ({ ...row, mint: row.mint as Address, attempts: Number(row.attempts) }))
          )
        ),
      /** A scan of a claimed request failed: retry after a backoff, or give up after `maxAttempts`. */
      fail: (id: string, worker: string, error: string, retryInMs: number, maxAttempts: number) =>
        sql`
          update scan_requests
          set last_error = ${error.slice(0, 500)}, leased_by = null, lease_until = null,
            not_before = now() + ${retryInMs} * interval '1 millisecond',
            status = case when attempts >= ${maxAttempts} then 'failed' else status end,
            completed_at = case when attempts >= ${maxAttempts} then now() else completed_at end
          where id = ${id} and leased_by = ${worker} and status = 'pending'`.pipe(Effect.asVoid),
      /** A claimed request whose scan was stored: completed even if the scan repeated the last one. */
      complete: (id: string, worker: string) =>
        sql`
          update scan_requests set status = 'completed', completed_at = now(), leased_by = null, lease_until = null
          where id = ${id} and leased_by = ${worker} and status = 'pending'`.pipe(Effect.asVoid),
      /**
       * Queues the scans that are due: watched mints whose latest scan is older than the watch's poll
       * interval, then mints read within `readWindowMs` whose latest scan is older than `staleMs`, most
       * read first. A mint with a pending request is left as it is.
       */
      enqueueDue: (options: { readonly staleMs: number; readonly readWindowMs: number; readonly limit: number }) =>
        sql<{ reason: ScanReason }>`
          with due_watches as (${watchPollsStatement(sql)}), watch_due as (
            select d.mint from due_watches d
            where coalesce((select max(s.scanned_at) from scans s where s.mint = d.mint), '-infinity') < now() - d.poll_seconds * interval '1 second'
            limit ${options.limit}
          ), read_due as (
            select r.mint from mint_reads r
            where r.last_read_at > now() - ${options.readWindowMs} * interval '1 millisecond'
              and exists (select 1 from scans s where s.mint = r.mint)
              and (select max(s.scanned_at) from scans s where s.mint = r.mint) < now() - ${options.staleMs} * interval '1 millisecond'
            order by r.reads desc
            limit ${options.limit}
          ), due as (
            select mint, 'watch' as reason, ${PRIORITY.watch}::smallint as priority from watch_due
            union all
            select mint, 'read', ${PRIORITY.read}::smallint from read_due where mint not in (select mint from watch_due)
          )
          insert into scan_requests (id, mint, reason, priority)
          select gen_random_uuid(), mint, reason, priority from due
          on conflict (mint) where status = 'pending' do nothing
          returning reason`.pipe(Effect.map((rows) => rows.length)),
      depth: () =>
        sql<{ pending: string; oldest: number | null }>`
          select count(*) as pending, extract(epoch from now() - min(requested_at))::float8 as oldest
          from scan_requests where status = 'pending'`.pipe(
          Effect.map(
            (rows): QueueDepth => ({
              pending: Number(rows[0]?.pending ?? 0),
              oldestAgeSeconds: Number(rows[0]?.oldest ?? 0)
            })
          )
        )
    })
  })
}) {}

/** In-memory double: the queue without leases' clock (claims hold until completed or failed). */
export const ScanRequestsMemory = Layer.sync(ScanRequestsRepo, () => {
  const byMint = new Map<
    string,
    PendingScanRequest & { attempts: number; leasedBy: string | null; reason: ScanReason }
  >()
  const pendingList = () =>
    [...byMint.values()].sort(
      (a, b) => PRIORITY[a.reason] - PRIORITY[b.reason] || a.requestedAt.getTime() - b.requestedAt.getTime()
    )
  const upsert = (mint: Address, reason: ScanReason) => {
    const now = new Date()
    const existing = byMint.get(mint)
    const next =
      existing === undefined
        ? {
            id: crypto.randomUUID(),
            mint,
            requestedAt: now,
            lastRequestedAt: now,
            requestCount: 1,
            attempts: 0,
            leasedBy: null,
            reason
          }
        : {
            ...existing,
            lastRequestedAt: now,
            requestCount: existing.requestCount + 1,
            reason: PRIORITY[reason] < PRIORITY[existing.reason] ? reason : existing.reason
          }
    byMint.set(mint, next)
    const { attempts: _, leasedBy: __, reason: ___, ...pending } = next
    return pending
  }
  const remove = (id: string, worker: string) => {
    for (const [mint, request] of byMint) if (request.id === id && request.leasedBy === worker) byMint.delete(mint)
  }
  const wakeup = makeWakeup()
  return ScanRequestsRepo.make({
    awaitWork: wakeup.wait,
    request: (mint) =>
      Effect.tap(
        Effect.sync(() => upsert(mint, "rescan")),
        () => wakeup.wake
      ),
    requestPriority: (mint, reason) =>
      Effect.tap(
        Effect.sync(() => upsert(mint, reason)),
        () => wakeup.wake
      ),
    pending: (limit) =>
      Effect.sync(() =>
        pendingList()
          .slice(0, limit)
          .map(({ attempts: _, leasedBy: __, reason: ___, ...pending }) => pending)
      ),
    claim: (worker, limit) =>
      Effect.sync(() =>
        pendingList()
          .filter((request) => request.leasedBy === null)
          .slice(0, limit)
          .map((request) => {
            request.leasedBy = worker
            request.attempts++
            return { id: request.id, mint: request.mint as Address, reason: request.reason, attempts: request.attempts }
          })
      ),
    fail: (id, worker, _error, _retryInMs, maxAttempts) =>
      Effect.sync(() => {
        for (const [mint, request] of byMint) {
          if (request.id !== id || request.leasedBy !== worker) continue
          request.leasedBy = null
          if (request.attempts >= maxAttempts) byMint.delete(mint)
        }
      }),
    complete: (id, worker) => Effect.sync(() => remove(id, worker)),
    enqueueDue: () => Effect.succeed(0),
    depth: () =>
      Effect.sync(() => {
        const oldest = pendingList()[0]
        return {
          pending: byMint.size,
          oldestAgeSeconds: oldest === undefined ? 0 : (Date.now() - oldest.requestedAt.getTime()) / 1000
        }
      })
  })
})

/**
 * Completes the pending requests that newly stored scans answer (a scan of the mint taken at or after the
 * request), in the caller's transaction: ScansRepo.record runs it with the insert. This file is the one
 * writer of scan_requests.
 */
export const completeAnsweredStatement = (
  sql: SqlClient.SqlClient,
  inserted: ReadonlyArray<{ readonly id: string; readonly mint: string; readonly scanned_at: Date }>
) =>
  sql`
    update scan_requests r
    set status = 'completed', completed_at = now(), completed_by_scan = i.id
    from unnest(
      ${inserted.map((r) => String(r.id))}::bigint[],
      ${inserted.map((r) => r.mint)}::text[],
      ${inserted.map((r) => new Date(r.scanned_at).toISOString())}::timestamptz[]
    ) as i(id, mint, scanned_at)
    where r.status = 'pending' and r.mint = i.mint and i.scanned_at >= r.requested_at`
