-- Each scan's price in USD as a column, beside its liquidity (sql/0008): the latest scan is read with the
-- change against the earliest priced scan of the 24 hours before it (Scans/ScansRepo.ts PRICE_24H_BEFORE).
-- Not backfilled, for the reason 0008 gives; the price change is new, so scans stored before this simply
-- do not take part in it (no fallback to their evidence, unlike the liquidity).
alter table scans add column price_usd double precision;

-- The latest-scan index carries the price too, so the reference price comes from an index page. The new
-- index is built before the old one is dropped: the build holds writes back (about 10 s a million scans,
-- as in 0009), but reads go on through the old index until the drop at the end.
create index scans_latest_priced on scans (mint, scanned_at desc, id desc) include (liquidity_usd, price_usd);
drop index scans_latest;
alter index scans_latest_priced rename to scans_latest;

-- Market figures an operator imports from a market feed (`risk-api import-market`, docs/market-feed.md):
-- what plain RPC cannot read. One row per mint, the latest observation; the scanner merges a row observed
-- within SCANNER_MARKET_MAX_AGE_SECONDS of a scan into that scan's `market` fact.
create table market_figures (
  mint text primary key,
  observed_at timestamptz not null,
  volume_24h_usd double precision not null,
  trades_24h bigint not null,
  price_change_24h_pct double precision not null,
  source text not null,
  imported_at timestamptz not null default now()
);
