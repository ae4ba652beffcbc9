-- The v2 document of a scan, stored compressed by the writer (issue 29: fewer bytes a scan). A scanner's
-- document is about 11 KB of JSON; as jsonb with PostgreSQL's pglz it took about 6.9 KB, most of a stored
-- scan. ScansRepo.record now writes it here, zstd-compressed JSON text (Scans/ScanDocument.ts: about 4.3 KB),
-- and leaves evidence_v2 null; only ScansRepo.latestDocument reads it, in the server, so no statement needs it
-- as jsonb. Scans written before keep their evidence_v2 as it is and are read from it (no row is rewritten):
-- day partitions that retention drops take them away with time.
--
-- Adding a nullable column without a default is a change of the catalog alone, on every partition at once:
-- no rewrite, no scan of the history, whatever its size. EXTERNAL storage: the bytes are compressed already,
-- so PostgreSQL moves them out of line as they are instead of trying its own compression on them first.
alter table scans add column evidence_v2_zstd bytea;
alter table scans alter column evidence_v2_zstd set storage external;

-- The partition maker of sql/0018 moves rows out of scans_default naming every column but the generated one:
-- the same, with the new column.
create or replace function scans_ensure_partitions(first_day date, last_day date) returns integer
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
      execute 'insert into scans (id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd,
          evidence_v2_zstd)
        overriding system value
        select id, mint, scanned_at, evidence, evidence_hash, imported_at, evidence_v2, liquidity_usd, price_usd,
          evidence_v2_zstd from scans_moving';
      execute 'truncate scans_moving';
    end if;
    made := made + 1;
  end loop;
  return made;
end $$;
