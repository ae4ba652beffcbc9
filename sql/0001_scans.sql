-- Scans are append-only history: one row per observation of a mint. Reads take the latest per mint
-- through scans_latest, so the lookup stays an index probe however long the history grows.
create table scans (
  id bigint generated always as identity primary key,
  mint text not null,
  scanned_at timestamptz not null,
  evidence jsonb not null,
  -- sha256 of the normalised evidence: re-importing the same scan is a no-op.
  evidence_hash text not null unique,
  imported_at timestamptz not null default now()
);

create index scans_latest on scans (mint, scanned_at desc, id desc);

-- Requests for an external scanner. At most one pending request per mint; a newer imported scan
-- completes it.
create table scan_requests (
  id uuid primary key,
  mint text not null,
  status text not null default 'pending' check (status in ('pending', 'completed')),
  requested_at timestamptz not null default now(),
  last_requested_at timestamptz not null default now(),
  request_count integer not null default 1,
  completed_at timestamptz,
  completed_by_scan bigint references scans (id)
);

create unique index scan_requests_one_pending on scan_requests (mint) where status = 'pending';
create index scan_requests_pending_by_age on scan_requests (requested_at) where status = 'pending';
