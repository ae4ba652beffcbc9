-- Each wallet's first funder: the source of the SOL transfer in its oldest transaction (issue 27). It never
-- changes, so the scanner reads it once per wallet and every later scan, of any token, reuses it.
-- funder is null when the wallet's oldest transaction is no SOL transfer into it (observed, not unknown).
create table wallet_funders (
  wallet text primary key,
  funder text,
  signature text,
  funded_slot bigint,
  lamports numeric(20, 0),
  read_slot bigint not null,
  read_at timestamptz not null default now()
);
create index wallet_funders_funder on wallet_funders (funder) where funder is not null;
