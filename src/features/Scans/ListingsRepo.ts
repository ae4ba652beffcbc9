import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ListingLine } from "../../domain/Listing.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"

// Community lists the operator imports; the scanner writes each mint's lists into its evidence (`listed`).
export class ListingsRepo extends Effect.Service<ListingsRepo>()("ListingsRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return repository({
      /** Upserts lines; a line already present with the same source changes nothing. */
      record: (lines: ReadonlyArray<ListingLine>) =>
        lines.length === 0
          ? Effect.succeed({ inserted: 0, duplicates: 0 })
          : sql<{ mint: string }>`
              insert into listings (mint, list, source)
              select distinct on (mint, list) mint, list, source
              from unnest(${lines.map((l) => l.mint)}::text[], ${lines.map((l) => l.list)}::text[], ${lines.map((l) => l.source)}::text[]) as t(mint, list, source)
              order by mint, list
              on conflict (mint, list) do update set source = excluded.source, imported_at = now()
              where listings.source is distinct from excluded.source
              returning mint`.pipe(
              Effect.map((rows) => ({ inserted: rows.length, duplicates: lines.length - rows.length }))
            ),
      listsOf: (mint: Address) =>
        sql<{
          list: string
          source: string
        }>`select list, source from listings where mint = ${mint} order by list limit 50`.pipe(
          Effect.map((rows) => rows.map((row) => ({ list: row.list, source: row.source })))
        )
    })
  })
}) {}
