-- Community token lists an operator imports (`risk-api import-listings`): a mint is "listed" on each list
-- that includes it. Separate from the curated issuer-verified list, which ships with the scanner.
create table listings (
  mint text not null,
  list text not null,
  source text not null,
  imported_at timestamptz not null default now(),
  primary key (mint, list)
);
