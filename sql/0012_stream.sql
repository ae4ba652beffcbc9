-- The launch and event stream (risk-api watcher): launches and state events queue scans ahead of
-- everything else, and each event is recorded once, so N watcher processes queue it once.

alter table scan_requests drop constraint scan_requests_reason_check;
alter table scan_requests add constraint scan_requests_reason_check
  check (reason in ('rescan', 'watch', 'read', 'launch', 'event'));

-- One row per (transaction, mint, kind) seen on the stream: the first watcher to insert it queues the
-- scan; the others find it there. A launch row is also the evidence's `launch` block.
create table stream_events (
  signature text not null,
  mint text not null,
  kind text not null,
  program text not null,
  slot bigint not null,
  block_time timestamptz,
  received_at timestamptz not null default now(),
  backfilled boolean not null default false,
  primary key (signature, mint, kind)
);

create index stream_events_by_mint on stream_events (mint, received_at desc);
