-- The scanner (risk-api scanner): evidence format v2 next to the scoring view, a lease-based queue
-- shared by any number of workers, and a cheap read counter that tells it which mints people ask for.

-- The full v2 document of a scan; `evidence` stays the scoring view the routes read without decoding.
alter table scans add column evidence_v2 jsonb;

-- Claims: a worker takes a pending request with FOR UPDATE SKIP LOCKED and holds it for a lease; a
-- crashed worker's lease expires and another takes the job. Failures back off; after the last attempt
-- the request is failed with its last error.
alter table scan_requests drop constraint scan_requests_status_check;
alter table scan_requests add constraint scan_requests_status_check check (status in ('pending', 'completed', 'failed'));
alter table scan_requests
  add column reason text not null default 'rescan' check (reason in ('rescan', 'watch', 'read')),
  add column priority smallint not null default 0,
  add column attempts integer not null default 0,
  add column last_error text,
  add column leased_by text,
  add column lease_until timestamptz,
  add column not_before timestamptz not null default now();

drop index scan_requests_pending_by_age;
create index scan_requests_claimable on scan_requests (priority, requested_at) where status = 'pending';

-- How often each mint was read through the API (flushed in batches by every API process).
create table mint_reads (
  mint text primary key,
  reads bigint not null default 0,
  last_read_at timestamptz not null default now()
);

create index mint_reads_recent on mint_reads (last_read_at desc);
