-- Watch contracts: an account's invalidation rules for a mint, stored only. Storing a watch starts no
-- scan and creates no dashboard list; monitor-position evaluates its rules against cached scans.
create table watches (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  mint text not null,
  label text,
  rules jsonb not null,
  poll_seconds integer not null check (poll_seconds between 30 and 86400),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index watches_by_account on watches (account_id, created_at desc, id);
