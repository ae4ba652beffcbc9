-- Labels sources put on addresses. One row per (address, label, source): a newer observation replaces
-- an older one, the same observation again changes nothing.
create table wallet_labels (
  address text not null,
  label text not null,
  category text not null,
  severity text not null check (severity in ('info', 'low', 'medium', 'high', 'critical')),
  source text not null,
  detail text not null default '',
  observed_at timestamptz not null,
  primary key (address, label, source)
);

-- A wallet's exposure to a counterparty, as the latest observation of that relation.
create table wallet_exposures (
  wallet_address text not null,
  counterparty_address text not null,
  counterparty_label text not null default '',
  category text not null,
  direction text not null check (direction in ('inbound', 'outbound')),
  exposure_type text not null,
  hop_distance integer not null check (hop_distance between 1 and 6),
  exposure_amount_usd double precision not null,
  exposure_pct double precision not null,
  tx_count integer not null,
  last_seen_at timestamptz not null,
  primary key (wallet_address, counterparty_address, direction, exposure_type)
);

create index wallet_exposures_by_counterparty on wallet_exposures (counterparty_address);

-- Launch history: which mints a deployer's scans name.
alter table scans add column deployer text generated always as (evidence -> 'deployer' ->> 'address') stored;
create index scans_by_deployer on scans (deployer, mint) where deployer is not null;
