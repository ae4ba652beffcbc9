import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Address } from "../../domain/Address.ts"
import { recentReadsStatement } from "../../features/Scans/ReadCounter.ts"
import { latestDeployersStatement, scannedSinceStatement } from "../../features/Scans/ScanStatements.ts"
import { watchedMintsStatement } from "../../features/Watches/WatchesRepo.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { StreamEvent } from "./Decode.ts"

/** A launch as the stream saw it: the evidence's `launch` block. */
interface LaunchSeen {
  readonly program: string
  readonly kind: string
  readonly slot: bigint
  readonly signature: string
  readonly blockTime: Date | null
  readonly receivedAt: Date
}

// Events seen on the stream, each recorded once over every watcher process (the first insert wins and
// queues the scan), and the mints the stream tracks for state events.
export class StreamEventsRepo extends Effect.Service<StreamEventsRepo>()("StreamEventsRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return repository({
      /** True when this call recorded the event (no watcher had). */
      recordOnce: (event: StreamEvent, backfilled: boolean) =>
        sql<{ signature: string }>`
          insert into stream_events (signature, mint, kind, program, slot, block_time, backfilled)
          values (${event.signature}, ${event.mint}, ${event.kind}, ${event.program}, ${event.slot.toString()}, ${event.blockTime}, ${backfilled})
          on conflict do nothing
          returning signature`.pipe(Effect.map((rows) => rows.length === 1)),
      /**
       * Mints to watch for state events, at most `limit`: mints with a live watch, then the most read
       * within the window, then the newest launches within it.
       */
      tracked: (limit: number, windowMs: number) =>
        sql<{ mint: string }>`
          with candidates as (
            select w.mint, 0 as rank, 0::bigint as weight from (${watchedMintsStatement(sql)}) w
            union all
            select r.mint, 1, r.reads from (${recentReadsStatement(sql, windowMs)}) r
            union all
            select mint, 2, extract(epoch from received_at)::bigint from stream_events
            where kind in ('create', 'create_v2', 'create_pool', 'migrate', 'complete')
              and received_at > now() - ${windowMs} * interval '1 millisecond'
          )
          select mint from candidates group by mint order by min(rank), max(weight) desc limit ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => row.mint as Address))
        ),
      /** The mint's launch (its first launch event), if the stream saw one. */
      launchOf: (mint: Address) =>
        sql<{
          program: string
          kind: string
          slot: string
          signature: string
          block_time: Date | null
          received_at: Date
        }>`
          select program, kind, slot::text as slot, signature, block_time, received_at from stream_events
          where mint = ${mint} and kind in ('create', 'create_v2', 'create_pool')
          order by received_at limit 1`.pipe(
          Effect.map(
            (rows) =>
              rows.map(
                (row): LaunchSeen => ({
                  program: row.program,
                  kind: row.kind,
                  slot: BigInt(row.slot),
                  signature: row.signature,
                  blockTime: row.block_time === null ? null : new Date(row.block_time),
                  receivedAt: new Date(row.received_at)
                })
              )[0]
          )
        ),
      /** The deployer of each of these mints, as its latest scan names it (mints without one are absent). */
      deployersOf: (mints: ReadonlyArray<string>) =>
        sql<{ mint: string; deployer: string }>`${latestDeployersStatement(sql, mints)}`.pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.mint, row.deployer])))
        ),
      /** Deletes at most `batch` events received more than `days` days ago, oldest first; answers how many. */
      pruneBatch: (days: number, batch: number) =>
        sql<{ signature: string }>`
          with doomed as (
            select signature, mint, kind from stream_events
            where received_at < now() - ${days} * interval '1 day'
            order by received_at limit ${batch}
          )
          delete from stream_events e using doomed d
          where e.signature = d.signature and e.mint = d.mint and e.kind = d.kind
          returning e.signature`.pipe(Effect.map((rows) => rows.length)),
      /** Of these mints, the ones with a scan stored at or after `since`. */
      scannedSince: (mints: ReadonlyArray<string>, since: Date) =>
        sql<{ mint: string }>`${scannedSinceStatement(sql, mints, since)}`.pipe(
          Effect.map((rows) => rows.map((row) => row.mint))
        )
    })
  })
}) {}
