import { SqlClient, SqlError } from "@effect/sql"
import { Duration, Effect, Predicate } from "effect"
import type { EntryReference, WatchRule } from "../../engines/DecisionRules/index.ts"
import type { ScanEvidence } from "../../domain/ScanEvidence.ts"
import type { Verdict } from "../../domain/Verdict.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import {
  newestScanIdStatement,
  previousScanStatement,
  scansAfterStatement,
  settledNewestScanId
} from "../Scans/ScanStatements.ts"
import { notifyingWatchesStatement } from "../Watches/WatchesRepo.ts"
import { type AlertState, alertsOf, blankState, entryOf, eventBody, stateOf } from "./Alerts.ts"

// Evaluates every new scan of a mint with notifying watches, in scan id order from a cursor, and writes
// the watches' new states, the events and the cursor in one transaction: an event is stored exactly when
// its scan counts as evaluated, so none is lost if the process dies, and none is raised twice.
//
// Scan ids are taken from a sequence when a row is inserted, so on PostgreSQL a lower id can commit after
// a higher one. The evaluator therefore reads only up to a high-water mark taken under a brief SHARE lock
// of `scans`: that lock waits for the inserts in flight, so every id below the mark is settled (committed
// or rolled back) when it is read. (The embedded database runs one transaction at a time anyway.)

const BATCH = 200

// SQLSTATE 55P03: lock_not_available (lock_timeout passed).
const isLockTimeout = (error: unknown): error is SqlError.SqlError =>
  error instanceof SqlError.SqlError && Predicate.hasProperty(error.cause, "code") && error.cause.code === "55P03"

interface ScanRow {
  readonly id: string
  readonly mint: string
  readonly scanned_at: Date
  readonly evidence: ScanEvidence
}

interface WatchRow {
  readonly id: string
  readonly account_id: string
  readonly mint: string
  readonly label: string | null
  readonly rules: ReadonlyArray<WatchRule>
  readonly notify_endpoint_id: string | null
  readonly state_scan_id: string | null
  readonly state_scanned_at: Date | null
  readonly verdict: Verdict | null
  readonly safety_score: number | null
  readonly hits: Readonly<Record<string, boolean>> | null
  readonly entry_price_usd: number | null
  readonly entry_liquidity_usd: number | null
}

const storedState = (row: WatchRow): AlertState | undefined =>
  row.state_scan_id === null
    ? undefined
    : {
        scanId: String(row.state_scan_id),
        scannedAt: new Date(row.state_scanned_at!).toISOString(),
        verdict: row.verdict ?? "unknown",
        safetyScore: row.safety_score,
        hits: row.hits ?? {},
        entry: { priceUsd: row.entry_price_usd, liquidityUsd: row.entry_liquidity_usd }
      }

export class WatchAlerts extends Effect.Service<WatchAlerts>()("WatchAlerts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const pending = sql<{ cursor: string; newest: string }>`
      select (select last_scan_id from webhook_scan_cursor where id = 1)::text as cursor,
        (${newestScanIdStatement(sql)})::text as newest`.pipe(Effect.map((rows) => rows[0]!))

    // Undefined while a long write (a bulk import) holds the table past the lock timeout: the next tick tries again.
    const highWater = settledNewestScanId(sql).pipe(Effect.catchIf(isLockTimeout, () => Effect.succeed(undefined)))

    // The state a watch was in before `scan` when it has none yet: the mint's previous scan, if any.
    const baselineOf = (watch: WatchRow, scan: ScanRow) =>
      Effect.map(previousScanStatement(sql, scan.mint, scan.scanned_at, scan.id), (rows): AlertState => {
        const previous = rows[0]
        const entry: EntryReference = entryOf(previous?.evidence ?? scan.evidence)
        return previous === undefined ? blankState(entry) : stateOf(watch.rules, previous, entry).state
      })

    const evaluateScan = (scan: ScanRow) =>
      Effect.gen(function* () {
        const watches = yield* sql<WatchRow>`
          select w.id, w.account_id, w.mint, w.label, w.rules, w.notify_endpoint_id,
            st.scan_id::text as state_scan_id, st.scanned_at as state_scanned_at, st.verdict, st.safety_score, st.hits,
            st.entry_price_usd, st.entry_liquidity_usd
          from (${notifyingWatchesStatement(sql)}) w left join watch_alert_states st on st.watch_id = w.id
          where w.mint = ${scan.mint}
          order by w.created_at, w.id`
        let events = 0
        for (const watch of watches) {
          const stored = storedState(watch)
          // A scan older than the one the watch was last evaluated on (a late import) changes nothing.
          if (stored !== undefined && Date.parse(stored.scannedAt) > new Date(scan.scanned_at).getTime()) continue
          const before = stored ?? (yield* baselineOf(watch, scan))
          const after = stateOf(watch.rules, scan, before.entry)
          yield* sql`
            insert into watch_alert_states (watch_id, scan_id, scanned_at, verdict, safety_score, hits, entry_price_usd, entry_liquidity_usd)
            values (${watch.id}, ${scan.id}::bigint, ${scan.scanned_at}, ${after.state.verdict}, ${after.state.safetyScore},
              ${JSON.stringify(after.state.hits)}::jsonb, ${after.state.entry.priceUsd}, ${after.state.entry.liquidityUsd})
            on conflict (watch_id) do update set scan_id = excluded.scan_id, scanned_at = excluded.scanned_at,
              verdict = excluded.verdict, safety_score = excluded.safety_score, hits = excluded.hits`
          const alerts = alertsOf(before, after)
          if (alerts.length === 0) continue
          const endpoints = yield* sql<{ id: string }>`
            select id from webhook_endpoints
            where account_id = ${watch.account_id} and status = 'enabled'
              and (${watch.notify_endpoint_id}::uuid is null or id = ${watch.notify_endpoint_id}::uuid)
            order by created_at, id`
          const now = new Date()
          for (const endpoint of endpoints) {
            for (const alert of alerts) {
              const id = crypto.randomUUID()
              const body = eventBody({ id, alert, watch, before, after: after.state, now })
              yield* sql`
                insert into webhook_events (id, account_id, endpoint_id, watch_id, type, scan_id, body)
                values (${id}, ${watch.account_id}, ${endpoint.id}, ${watch.id}, ${alert.type}, ${scan.id}::bigint, ${body})`
              events++
            }
          }
        }
        return events
      })

    /** Evaluates the scans after the cursor up to `upTo`, one batch; how many scans and events. */
    const evaluateBatch = (upTo: string) =>
      sql.withTransaction(
        Effect.gen(function* () {
          // One evaluator at a time across processes; the others find the row locked and let it work.
          const cursor = yield* sql<{ id: string }>`
          select last_scan_id::text as id from webhook_scan_cursor where id = 1 for update skip locked`
          const from = cursor[0]?.id
          if (from === undefined || BigInt(from) >= BigInt(upTo)) return { scans: 0, events: 0, done: true }
          const scans: ReadonlyArray<ScanRow> = yield* scansAfterStatement(
            sql,
            { from, upTo, limit: BATCH },
            notifyingWatchesStatement(sql)
          )
          let events = 0
          for (const scan of scans) events += yield* evaluateScan(scan)
          const reached = scans.length === BATCH ? scans[BATCH - 1]!.id : upTo
          yield* sql`update webhook_scan_cursor set last_scan_id = ${reached}::bigint where id = 1`
          return { scans: scans.length, events, done: reached === upTo }
        })
      )

    return repository({
      /** Evaluates every scan stored so far; how many scans were evaluated and events stored. */
      evaluate: () =>
        Effect.gen(function* () {
          const { cursor, newest } = yield* pending
          if (BigInt(newest) <= BigInt(cursor)) return { scans: 0, events: 0 }
          const upTo = yield* highWater
          if (upTo === undefined) return { scans: 0, events: 0 }
          let scans = 0
          let events = 0
          while (true) {
            const batch = yield* evaluateBatch(upTo)
            scans += batch.scans
            events += batch.events
            if (batch.done) return { scans, events }
          }
        })
    })
  })
}) {}

/** Evaluates new scans every `everyMs` until interrupted. */
export const runWatchAlerts = (everyMs: number) =>
  Effect.gen(function* () {
    const alerts = yield* WatchAlerts
    while (true) {
      yield* alerts.evaluate().pipe(
        Effect.tap(({ events }) => (events > 0 ? Effect.logDebug(`${events} watch alert events stored`) : Effect.void)),
        Effect.catchAllCause((cause) => Effect.logWarning("watch alert evaluation failed; retrying", cause))
      )
      yield* Effect.sleep(Duration.millis(everyMs))
    }
  })
