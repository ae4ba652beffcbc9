-- Each scan's liquidity in USD as a column, so the 24-hour liquidity trend read with the latest scan
-- (model 2.0's liquidity_drop) reads a number per earlier scan instead of detoasting its evidence.
-- Not backfilled: adding a nullable column is instant whatever the history's size, while an update of
-- every row would outlast the server's statement timeout on a large database. Scans stored before this
-- are read from their evidence (Scans/ScansRepo.ts, PEAK_24H).
alter table scans add column liquidity_usd double precision;
