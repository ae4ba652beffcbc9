import { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Layer, Schedule } from "effect"

// How often each mint is read through the API, so the scanner refreshes what people ask for first. The
// hot path only bumps a number in a Map; a background fiber adds the counts to `mint_reads` every few
// seconds in one statement. Counts are advisory: when the database is down they are kept and retried,
// bounded, and the surplus is dropped rather than grow without limit.

/** Distinct mints held between flushes; reads of further mints wait for the next window. */
const MAX_PENDING_MINTS = 100_000

export class ReadCounter extends Effect.Service<ReadCounter>()("ReadCounter", {
  sync: () => {
    let pending = new Map<string, number>()
    return {
      count: (mint: string): void => {
        const seen = pending.get(mint)
        if (seen !== undefined) pending.set(mint, seen + 1)
        else if (pending.size < MAX_PENDING_MINTS) pending.set(mint, 1)
      },
      /** The counts since the last drain. */
      drain: (): ReadonlyMap<string, number> => {
        const drained = pending
        pending = new Map()
        return drained
      },
      /** Counts that could not be written, added back (within the bound). */
      restore: (counts: ReadonlyMap<string, number>): void => {
        for (const [mint, reads] of counts) {
          const seen = pending.get(mint)
          if (seen !== undefined) pending.set(mint, seen + reads)
          else if (pending.size < MAX_PENDING_MINTS) pending.set(mint, reads)
        }
      }
    }
  }
}) {}

const flushReadCounts = (counts: ReadonlyMap<string, number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    counts.size === 0
      ? Effect.void
      : sql`
          insert into mint_reads (mint, reads, last_read_at)
          select mint, reads, now() from unnest(${[...counts.keys()]}::text[], ${[...counts.values()]}::bigint[]) as t(mint, reads)
          on conflict (mint) do update set reads = mint_reads.reads + excluded.reads, last_read_at = excluded.last_read_at`.pipe(
          Effect.asVoid
        )
  )

const FlushInterval = Config.integer("READ_COUNT_FLUSH_MS").pipe(
  Config.validate({
    message: "READ_COUNT_FLUSH_MS must be between 100 and 600000",
    validation: (n) => n >= 100 && n <= 600_000
  }),
  Config.withDefault(5_000)
)

/** Writes the counts every READ_COUNT_FLUSH_MS, and once more when the server stops. */
export const ReadCountsFlushLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const counter = yield* ReadCounter
    const sql = yield* SqlClient.SqlClient
    const every = yield* FlushInterval
    const flush = Effect.suspend(() => {
      const counts = counter.drain()
      return flushReadCounts(counts).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.tapError(() => Effect.sync(() => counter.restore(counts))),
        Effect.catchAllCause((cause) => Effect.logDebug("read counts not written; kept for the next flush", cause))
      )
    })
    yield* Effect.addFinalizer(() => flush)
    yield* flush.pipe(Effect.repeat(Schedule.spaced(Duration.millis(every))), Effect.forkScoped)
  })
)

/** A relation (mint, reads): the mints read through the API within the last `windowMs`, with their read counts. */
export const recentReadsStatement = (sql: SqlClient.SqlClient, windowMs: number) =>
  sql`select r.mint, r.reads from mint_reads r where r.last_read_at > now() - ${windowMs} * interval '1 millisecond'`
