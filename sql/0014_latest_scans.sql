-- The latest scan of each mint, one row per mint (Scans/ScansRepo.ts): what a cold lookup of the latest-scan
-- cache reads, a primary-key probe (a batch: one `mint = any($1)`) instead of a walk of the history's index
-- and the 24 hours of scans before the latest. Written by ScansRepo.record in the scan's own transaction,
-- only when the scan is the mint's newest (scanned_at, id); the trends read with a latest scan (the 24 h
-- liquidity peak, the price 24 h before) are computed then, from the history, and stored with it.
-- Retention never removes a mint's latest scan nor the day before it (Scans/ScanRetention.ts), so a row here
-- always names a scan still in `scans`.
create table latest_scans (
  mint text primary key,
  scan_id bigint not null,
  scanned_at timestamptz not null,
  evidence jsonb not null,
  -- Highest liquidity of the mint's scans in the 24 h before this one (ScansRepo PEAK_24H).
  peak_24h_usd double precision,
  price_usd double precision,
  -- Price of the earliest priced scan of the 24 h before this one (ScansRepo PRICE_24H_BEFORE).
  price_24h_before_usd double precision,
  -- The token scoring model's assessment of this scan with its trends, computed by the writer, so a cold read
  -- does not score it again; used only when its modelVersion is the reader's. Null for rows backfilled here
  -- (scored on read, as before, until the mint's next scan).
  -- json, not jsonb: its text as written, keys in the order the model gives them (answers carry its parts).
  assessment json
);

-- Backfilled from the history in this migration's transaction. Writers are held back meanwhile (SHARE lock)
-- so no scan is missed; on a large history this outlasts the server's statement timeout, which is why
-- migrations run on a connection of their own without it (Sql/Database.ts).
lock table scans in share mode;

insert into latest_scans (mint, scan_id, scanned_at, evidence, peak_24h_usd, price_usd, price_24h_before_usd)
select s.mint, s.id, s.scanned_at, s.evidence,
  greatest(
    (select max(p.liquidity_usd) from scans p
      where p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at),
    (select max(coalesce((p.evidence->'liquidity'->>'liquidityUsd')::float8, (p.evidence->'market'->>'liquidityUsd')::float8))
      from scans p where p.liquidity_usd is null
      and p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at)),
  s.price_usd,
  case when s.price_usd is null then null else (
    select p.price_usd from scans p
      where p.mint = s.mint and p.scanned_at >= s.scanned_at - interval '24 hours' and p.scanned_at < s.scanned_at
      and p.price_usd is not null
      order by p.scanned_at, p.id
      limit 1) end
from (
  select distinct on (mint) id, mint, scanned_at, evidence, price_usd from scans
  order by mint, scanned_at desc, id desc
) s;
