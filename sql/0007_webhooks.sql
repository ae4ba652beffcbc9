-- Watch alerts: an account's webhook endpoints, the events a new scan raises on its watches (an outbox
-- written in the same transaction as the evaluation) and every delivery attempt.

create table webhook_endpoints (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  url text not null,
  description text,
  -- The signing secret, recoverable for signing: `enc:v1:` AES-256-GCM under WEBHOOK_SECRET_KEY, or `plain:`.
  secret text not null,
  -- The secret before the last rotation, still signed with until previous_secret_until (receivers roll over).
  previous_secret text,
  previous_secret_until timestamptz,
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  created_at timestamptz not null default now()
);

create index webhook_endpoints_by_account on webhook_endpoints (account_id, created_at desc, id);

-- A watch opts in to alerts: every endpoint of its account (notify), or one (notify_endpoint_id).
alter table watches
  add column notify boolean not null default false,
  add column notify_endpoint_id uuid;

create index watches_notify_by_mint on watches (mint) where notify;

-- What the evaluator last saw for a watch: which rules held, the verdict, and the entry reference of the
-- change metrics (liquidity_change_pct, drawdown_pct), so the next scan raises only what changed.
create table watch_alert_states (
  watch_id uuid primary key references watches (id) on delete cascade,
  scan_id bigint not null,
  scanned_at timestamptz not null,
  verdict text not null,
  safety_score integer,
  hits jsonb not null,
  entry_price_usd double precision,
  entry_liquidity_usd double precision
);

-- The last scan id evaluated. Starts at the newest scan: history is not replayed as alerts.
create table webhook_scan_cursor (
  id smallint primary key check (id = 1),
  last_scan_id bigint not null
);
insert into webhook_scan_cursor (id, last_scan_id) select 1, coalesce(max(id), 0) from scans;

-- The outbox: one row per event and endpoint, claimed by delivery workers (FOR UPDATE SKIP LOCKED and a
-- lease, as the scan queue). `body` is the exact JSON sent (and signed) on every attempt; `seq` orders an
-- endpoint's events as their scans were evaluated.
create table webhook_events (
  id uuid primary key,
  seq bigint generated always as identity,
  account_id uuid not null,
  endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
  watch_id uuid not null,
  type text not null check (type in ('watch.triggered', 'watch.cleared')),
  scan_id bigint not null,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  last_error text,
  last_status integer,
  not_before timestamptz not null default now(),
  leased_by text,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);

create index webhook_events_pending on webhook_events (endpoint_id, seq) where status = 'pending';
create index webhook_events_by_endpoint on webhook_events (endpoint_id, seq desc);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  event_id uuid not null references webhook_events (id) on delete cascade,
  attempt integer not null,
  attempted_at timestamptz not null default now(),
  status_code integer,
  latency_ms integer not null,
  error text
);

create index webhook_attempts_by_event on webhook_attempts (event_id, id desc);
