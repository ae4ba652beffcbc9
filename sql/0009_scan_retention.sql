-- Retention of the scan history (`risk-api prune-scans`, Scans/ScanRetention.ts). Pruning walks the scans
-- older than the window along this index, a batch at a time, so each batch is an index range whatever the
-- size of the table. Built here without CONCURRENTLY (migrations run in a transaction): on a large history
-- it holds inserts back for as long as the build takes (about 10 s a million scans here).
create index scans_by_age on scans (scanned_at, id);

-- A completed scan request names the scan that completed it; when pruning removes that scan the request
-- stays completed and forgets which scan. NOT VALID: every existing row satisfied the constraint it
-- replaces. The index turns the constraint's action on each deleted scan into a probe, not a table scan.
alter table scan_requests drop constraint scan_requests_completed_by_scan_fkey;
alter table scan_requests add constraint scan_requests_completed_by_scan_fkey
  foreign key (completed_by_scan) references scans (id) on delete set null not valid;
create index scan_requests_by_completing_scan on scan_requests (completed_by_scan) where completed_by_scan is not null;

-- What pruning removed from each mint's history, for readers of the whole history (a deployer's launches:
-- first seen, peak liquidity, scan count): folded in by the statement that deletes the scans.
create table scans_pruned (
  mint text primary key,
  first_scanned_at timestamptz not null,
  peak_liquidity_usd double precision,
  scans bigint not null
);

-- The 24 h liquidity trend read with every latest scan (Scans/ScansRepo.ts PEAK_24H) takes the liquidity of
-- a day of the mint's scans: 288 at a 5-minute refresh. Carried in the latest-scan index it comes from a few
-- index pages instead of a heap page a scan (an index-only scan wherever the visibility map allows, so
-- autovacuum visits scans after 0.5% new rows instead of 20%). Scans stored before the liquidity column have
-- a partial index of their own. Rebuilding scans_latest holds writes back for the build, as above.
drop index scans_latest;
create index scans_latest on scans (mint, scanned_at desc, id desc) include (liquidity_usd);
create index scans_without_liquidity on scans (mint, scanned_at) where liquidity_usd is null;
alter table scans set (autovacuum_vacuum_insert_scale_factor = 0.005);
