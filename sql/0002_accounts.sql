-- Accounts pay by plan. Plan limits live in code (src/domain/Plan.ts); enterprise accounts carry their
-- own. Keys are stored only as a sha256 of the whole key.
create table accounts (
  id uuid primary key,
  name text not null,
  plan text not null check (plan in ('free', 'pro', 'whale', 'enterprise')),
  monthly_quota integer check (monthly_quota >= 0),
  requests_per_minute integer check (requests_per_minute > 0),
  created_at timestamptz not null default now(),
  constraint enterprise_has_limits check (
    plan <> 'enterprise' or (monthly_quota is not null and requests_per_minute is not null)
  )
);

create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  key_hash text not null unique,
  display_prefix text not null,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);

create index api_keys_by_account on api_keys (account_id, created_at);

-- Cost units charged per account and calendar month (UTC). Updated only by atomic conditional upserts,
-- so processes sharing the database never let an account past its quota.
create table quota_usage (
  account_id uuid not null references accounts (id),
  period date not null,
  used bigint not null default 0 check (used >= 0),
  primary key (account_id, period)
);

-- One fixed one-minute window per account.
create table rate_windows (
  account_id uuid primary key references accounts (id),
  window_start timestamptz not null,
  count integer not null
);

-- Public risk-check calls that named a key in X-Api-Key: counted for support, never charged.
create table public_usage (
  account_id uuid not null references accounts (id),
  period date not null,
  requests bigint not null default 0,
  primary key (account_id, period)
);
