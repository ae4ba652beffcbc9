-- Metered writes (src/features/Accounts/Metered.ts meteredWrite) hold no lock of the account's quota rows
-- while they run: their units are reserved as reads' are (`charge_calls`, sql/0011, a statement that commits
-- at once), then each write confirms its own reservation inside its transaction.
--
-- `charge_calls_each` is `charge_calls` with one reservation per admitted call (`reservations[i]` for the
-- i-th, each holding `cost`), so concurrent writes of one account confirm different rows and never wait
-- for one another.
create function charge_calls_each(
  account uuid, key uuid, per_minute integer, monthly_quota bigint, cost bigint, reservations uuid[],
  lease_seconds integer
) returns table (
  rate_admitted integer, admitted integer, rate_count integer, used bigint, period text, rate_reset integer, quota_reset integer
) language plpgsql as $$
#variable_conflict use_column
declare
  outcome record;
begin
  select * into outcome from charge_calls(
    account, key, per_minute, monthly_quota, charge_calls_each.cost, cardinality(reservations), reservations[1],
    lease_seconds
  );
  if outcome.admitted > 1 and charge_calls_each.cost > 0 then
    update quota_reservations q set cost = charge_calls_each.cost where q.id = reservations[1];
    insert into quota_reservations (id, account_id, period, cost, expires_at)
      select r.id, q.account_id, q.period, q.cost, q.expires_at
      from quota_reservations q, unnest(reservations[2:outcome.admitted]) as r (id)
      where q.id = reservations[1];
  end if;
  return query select
    outcome.rate_admitted, outcome.admitted, outcome.rate_count, outcome.used, outcome.period, outcome.rate_reset,
    outcome.quota_reset;
end
$$;

-- The watch cap (a maximum of unexpired watches per account) is kept the same way: a set-watch call first
-- reserves a slot in a short statement that commits at once (`reserve_watch_slots`; a server process gathers
-- an account's concurrent calls into one), then its transaction stores the watch and takes its slot back in
-- one statement (src/features/Watches/WatchesRepo.ts). Unexpired watches plus unexpired slots never pass
-- the cap, and no lock is held while a watch is written. A slot whose process died expires with its lease.
-- No foreign key: a slot lives for seconds.
create table watch_slots (
  id uuid primary key,
  account_id uuid not null,
  expires_at timestamptz not null
);

create index watch_slots_by_account on watch_slots (account_id, expires_at);

-- Reserves up to cardinality(slots) slots for the account (the first ones of `slots`), as many as its cap
-- leaves: under a lock of the account's watches held for this statement only, it counts in statements of
-- their own, whose snapshots see every watch and slot committed before the lock was granted. Returns how
-- many were reserved. Expired slots of the account are deleted on the way.
create function reserve_watch_slots(account uuid, cap integer, slots uuid[], lease_seconds integer)
returns integer language plpgsql as $$
declare
  live bigint;
  held bigint;
  granted integer;
begin
  perform pg_advisory_xact_lock(hashtextextended('watches:' || account::text, 0));
  delete from watch_slots s where s.account_id = account and s.expires_at <= clock_timestamp();
  select count(*) into live from watches w where w.account_id = account and w.expires_at > now();
  select count(*) into held from watch_slots s where s.account_id = account;
  granted := greatest(0, least(cardinality(slots), cap - live - held))::integer;
  if granted > 0 then
    insert into watch_slots (id, account_id, expires_at)
      select r.id, account, clock_timestamp() + make_interval(secs => lease_seconds)
      from unnest(slots[1:granted]) as r (id);
  end if;
  return granted;
end
$$;
