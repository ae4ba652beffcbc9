-- The scan history partitioned by day (issue 29): `scans` becomes a table partitioned by range of scanned_at,
-- one partition a UTC day (scans_pYYYYMMDD), created ahead of time, plus a default partition (scans_default)
-- that takes any scan no day partition covers, so an insert never fails for lack of a partition. Retention
-- (Scans/ScanRetention.ts) drops a day's partition whole once the day is out of the window, instead of
-- deleting its scans one by one.
--
-- A partitioned table's unique keys must contain the partition key: the primary key becomes (id, scanned_at)
-- and the hash's uniqueness (evidence_hash, scanned_at). The hash covers the scan's scannedAt, so a re-import
-- of the same scan still conflicts. ids still come from one sequence for all partitions, so they stay unique
-- and ordered by insertion as before (the watch-alert evaluator's cursor, latest_scans.scan_id). The foreign
-- key of scan_requests.completed_by_scan to scans (id) cannot stay (nothing is unique on id alone): retention
-- clears the column itself when the scan it names goes (sql/0009 did it with ON DELETE SET NULL).
--
-- How today's table is converted, whatever its size: it is not copied. It becomes the partition of every day
-- before the daily partitions start (scans_legacy, from MINVALUE to tomorrow 00:00 UTC), attached as it is.
-- The work is two index builds (the new unique keys) and one pass to check the range constraint, under a
-- SHARE lock that holds writers back and lets reads go on; the renames and the attach at the end are catalog
-- changes. No row is moved and no second copy of the history is written, so the disk it needs is the two
-- indexes (about 2 × 90 bytes a scan). Like sql/0014 it outlasts any statement timeout on a large history,
-- which is why migrations run on a connection of their own without one (Sql/Database.ts). Retention then
-- deletes its old scans as before, and drops it whole once its last day is out of the window. Scans dated
-- tomorrow or later (a skewed clock, test data) are set aside and inserted again through the new table.
-- A database with no scan yet gets no such partition: every day may have its own.

-- Where the daily partitions start: days before it are in scans_legacy (or scans_default once it is dropped).
create table scans_partitioning (
  only_row boolean primary key default true check (only_row),
  daily_from date not null
);

-- The partition of each day from first_day to last_day (UTC days) that does not exist yet, and how many it
-- made. Called after migrations by every process that starts, by retention, and here. Scans of those days
-- that an earlier insert put in scans_default are moved into the new partition (a partition cannot be made
-- over rows of the default). Two processes starting at once take turns on an advisory lock. The column list
-- of the move names every column but the generated one.
create function scans_ensure_partitions(first_day date, last_day date) returns integer
language plpgsql as $$
declare
  day date;
  name text;
  lo timestamptz;
  hi timestamptz;
  made integer := 0;
  moved bigint;
begin
  for day in
    select d::date from generate_series(
      greatest(first_day, (select p.daily_from from scans_partitioning p))::timestamp, last_day::timestamp, interval '1 day') d
  loop
    name := 'scans_p' || to_char(day, 'YYYYMMDD');
    continue when to_regclass(name) is not null;
    perform pg_advisory_xact_lock(hashtext('scans_ensure_partitions'));
    continue when to_regclass(name) is not null;
    lo := day::timestamp at time zone 'UTC';
    hi := (day + 1)::timestamp at time zone 'UTC';
    execute 'create temp table if not exists scans_moving (like scans) on commit drop';
    execute 'with gone as (delete from scans_default where scanned_at >= $1 and scanned_at < $2 returning *)
      insert into scans_moving select * from gone' using lo, hi;
    get diagnostics moved = row_count;
    execute format(
      'create table %I partition of scans for values from (%L) to (%L)
        with (autovacuum_vacuum_insert_scale_factor = 0.005)', name, lo, hi);
    if moved > 0 then
      execute 'insert into scans (id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd)
        overriding system value
        select id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd from scans_moving';
      execute 'truncate scans_moving';
    end if;
    made := made + 1;
  end loop;
  return made;
end $$;

do $$
declare
  tomorrow date := (now() at time zone 'UTC')::date + 1;
  boundary timestamptz := tomorrow::timestamp at time zone 'UTC';
  next_id bigint;
  converted boolean;
begin
  lock table scans in share mode;
  alter table scan_requests drop constraint scan_requests_completed_by_scan_fkey;
  next_id := nextval(pg_get_serial_sequence('scans', 'id'));

  create temp table scans_ahead on commit drop as
    select id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd
    from scans where scanned_at >= boundary;
  delete from scans where scanned_at >= boundary;
  converted := exists (select 1 from scans);

  if converted then
    create unique index scans_legacy_pkey on scans (id, scanned_at);
    create unique index scans_legacy_hash_key on scans (evidence_hash, scanned_at);
    alter table scans alter column id drop identity;
    alter table scans drop constraint scans_pkey, drop constraint scans_evidence_hash_key;
    alter table scans
      add constraint scans_legacy_pkey primary key using index scans_legacy_pkey,
      add constraint scans_legacy_hash_key unique using index scans_legacy_hash_key;
    execute format('alter table scans add constraint scans_legacy_range check (scanned_at < %L)', boundary);
    alter table scans rename to scans_legacy;
    alter index scans_latest rename to scans_legacy_latest;
    alter index scans_without_liquidity rename to scans_legacy_without_liquidity;
    alter index scans_by_age rename to scans_legacy_by_age;
    alter index scans_by_deployer rename to scans_legacy_by_deployer;
  else
    drop table scans;
  end if;

  create table scans (
    id bigint generated always as identity,
    mint text not null,
    scanned_at timestamptz not null,
    evidence jsonb not null,
    -- sha256 of the normalised evidence (which holds scannedAt): re-importing the same scan is a no-op.
    evidence_hash text not null,
    imported_at timestamptz not null default now(),
    deployer text generated always as (evidence -> 'deployer' ->> 'address') stored,
    evidence_v2 jsonb,
    liquidity_usd double precision,
    price_usd double precision,
    constraint scans_pkey primary key (id, scanned_at),
    constraint scans_evidence_hash_key unique (evidence_hash, scanned_at)
  ) partition by range (scanned_at);
  -- The indexes of sql/0001–0010 but scans_by_age, which only retention's deletes use: day partitions are
  -- dropped whole, so only scans_default and scans_legacy keep one (below and above).
  create index scans_latest on scans (mint, scanned_at desc, id desc) include (liquidity_usd, price_usd);
  create index scans_without_liquidity on scans (mint, scanned_at) where liquidity_usd is null;
  create index scans_by_deployer on scans (deployer, mint) where deployer is not null;
  perform setval(pg_get_serial_sequence('scans', 'id'), next_id);

  if converted then
    -- Its indexes match the table's, so they are taken as its partitions' (no build).
    execute format('alter table scans attach partition scans_legacy for values from (minvalue) to (%L)', boundary);
    insert into scans_partitioning (daily_from) values (tomorrow);
  else
    insert into scans_partitioning (daily_from) values ('-infinity');
  end if;

  create table scans_default partition of scans default with (autovacuum_vacuum_insert_scale_factor = 0.005);
  create index scans_default_by_age on scans_default (scanned_at, id);
  perform scans_ensure_partitions(tomorrow - 2, tomorrow + 1); -- yesterday to two days ahead, as on start

  insert into scans (id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd)
    overriding system value
    select id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd
    from scans_ahead;
  drop table scans_ahead;
end $$;
