import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { Address } from "../../domain/Address.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"
import type { MarketFeedLine } from "./FeedLine.ts"

interface Row {
  readonly mint: string
  readonly observed_at: Date | string
  readonly volume_24h_usd: number
  readonly trades_24h: number | string
  readonly price_change_24h_pct: number
  readonly source: string
}

const toFigures = (row: Row): MarketFeedLine => ({
  mint: row.mint as Address,
  observedAt: new Date(row.observed_at).toISOString(),
  volume24hUsd: Number(row.volume_24h_usd),
  trades24h: Number(row.trades_24h),
  priceChange24hPct: Number(row.price_change_24h_pct),
  source: row.source
})

/** Of several lines for one mint, the one a stored row would end as: the latest observed, the last line on a tie. */
const latestPerMint = (lines: ReadonlyArray<MarketFeedLine>): ReadonlyArray<MarketFeedLine> => {
  const byMint = new Map<string, MarketFeedLine>()
  for (const line of lines) {
    const held = byMint.get(line.mint)
    if (held === undefined || Date.parse(line.observedAt) >= Date.parse(held.observedAt)) byMint.set(line.mint, line)
  }
  return [...byMint.values()]
}

/** The repository over SQL; the scanner builds it on its own client (Scanner/Worker.ts). */
export const makeMarketFiguresRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return repository({
    /**
     * Upserts the figures, one row per mint: a line replaces the stored row when observed later, or at the
     * same time with other figures (a correction). `inserted` counts the rows written, `duplicates` the rest.
     */
    record: (lines: ReadonlyArray<MarketFeedLine>) => {
      const rows = latestPerMint(lines)
      return rows.length === 0
        ? Effect.succeed({ inserted: 0, duplicates: 0 })
        : sql<{ mint: string }>`
            insert into market_figures as m (mint, observed_at, volume_24h_usd, trades_24h, price_change_24h_pct, source)
            select * from unnest(
              ${rows.map((r) => r.mint)}::text[],
              ${rows.map((r) => r.observedAt)}::timestamptz[],
              ${rows.map((r) => r.volume24hUsd)}::float8[],
              ${rows.map((r) => r.trades24h)}::bigint[],
              ${rows.map((r) => r.priceChange24hPct)}::float8[],
              ${rows.map((r) => r.source)}::text[]
            )
            on conflict (mint) do update set
              observed_at = excluded.observed_at,
              volume_24h_usd = excluded.volume_24h_usd,
              trades_24h = excluded.trades_24h,
              price_change_24h_pct = excluded.price_change_24h_pct,
              source = excluded.source,
              imported_at = now()
            where excluded.observed_at > m.observed_at
              or (excluded.observed_at = m.observed_at
                and (excluded.volume_24h_usd, excluded.trades_24h, excluded.price_change_24h_pct, excluded.source)
                  is distinct from (m.volume_24h_usd, m.trades_24h, m.price_change_24h_pct, m.source))
            returning mint`.pipe(
            Effect.map((written) => ({ inserted: written.length, duplicates: lines.length - written.length }))
          )
    },
    /** The stored figures of a mint, however old. */
    latest: (mint: Address) =>
      sql<Row>`
        select mint, observed_at, volume_24h_usd, trades_24h, price_change_24h_pct, source
        from market_figures where mint = ${mint}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toFigures))
      )
  })
})

// Market figures an operator imports from a feed (docs/market-feed.md): the latest observation per mint.
export class MarketFiguresRepo extends Effect.Service<MarketFiguresRepo>()("MarketFiguresRepo", {
  accessors: true,
  effect: makeMarketFiguresRepo
}) {}
