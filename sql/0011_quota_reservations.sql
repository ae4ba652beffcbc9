-- Keyed reads are charged in short statements that commit at once, so an account's rows are never locked
-- while an answer is written (one busy account's calls used to run one at a time behind that lock).
--
-- A read's units are charged with a reservation: `charge_calls` raises `quota_usage.used` and records the
-- units here; the read confirms its units once its answer has been written (taken off the reservation:
-- they stay charged) or refunds them on failure (taken off the reservation and off `used`). A reservation
-- whose process died before settling is refunded when its lease expires, by any server process
-- (src/Accounts/Quota.ts). Units still reserved are not "charged": the usage an operator reads is `used`
-- minus the open reservations. No foreign key: a reservation lives for seconds.
create table quota_reservations (
  id uuid primary key,
  account_id uuid not null,
  period date not null,
  -- Units not yet confirmed or refunded; a row at 0 is settled, and deleted by the next sweep.
  cost bigint not null check (cost >= 0),
  expires_at timestamptz not null
);

create index quota_reservations_by_expiry on quota_reservations (expires_at);
create index quota_reservations_by_account on quota_reservations (account_id, period);

-- Charges up to `calls` calls of one account at once (a server process gathers an account's concurrent
-- calls into one statement): the minute limit admits what fits in the current one-minute window (UTC),
-- the monthly quota (calendar month, UTC) what fits of those, each costing `cost`; the units charged are
-- reserved under `reservation` for `lease_seconds`. Rate-admitted calls count toward the minute even when
-- the quota refuses them. Both rows are locked for the statement only, so processes on one database agree.
create function charge_calls(
  account uuid, key uuid, per_minute integer, monthly_quota bigint, cost bigint, calls integer,
  reservation uuid, lease_seconds integer
) returns table (
  rate_admitted integer, admitted integer, rate_count integer, used bigint, period text, rate_reset integer, quota_reset integer
) language plpgsql as $$
#variable_conflict use_column
declare
  minute timestamptz := date_trunc('minute', now());
  month_start timestamp := date_trunc('month', now() at time zone 'utc');
  counted integer;
  used_before bigint;
  by_rate integer;
  by_quota integer;
begin
  insert into rate_windows (account_id, window_start, count) values (account, minute, 0) on conflict (account_id) do nothing;
  select case when r.window_start = minute then r.count else 0 end into counted
    from rate_windows r where r.account_id = account for update;
  insert into quota_usage (account_id, period, used) values (account, month_start::date, 0) on conflict (account_id, period) do nothing;
  select u.used into used_before from quota_usage u where u.account_id = account and u.period = month_start::date for update;
  by_rate := greatest(0, least(calls, per_minute - counted));
  by_quota := case when cost = 0 then by_rate else least(by_rate, greatest(0, (monthly_quota - used_before) / cost))::integer end;
  if by_rate > 0 then
    update rate_windows set window_start = minute, count = counted + by_rate where account_id = account;
  end if;
  if by_quota > 0 and cost > 0 then
    update quota_usage set used = used_before + by_quota * cost where account_id = account and quota_usage.period = month_start::date;
    insert into quota_reservations (id, account_id, period, cost, expires_at)
      values (reservation, account, month_start::date, by_quota * cost, now() + make_interval(secs => lease_seconds));
  end if;
  update api_keys set last_used_at = now()
    where id = key and (last_used_at is null or last_used_at < now() - interval '10 seconds');
  return query select
    by_rate, by_quota, counted + by_rate, used_before + by_quota * cost, to_char(month_start, 'YYYY-MM-DD'),
    ceil(extract(epoch from minute + interval '1 minute' - now()))::integer,
    ceil(extract(epoch from (month_start + interval '1 month') at time zone 'utc' - now()))::integer;
end
$$;
