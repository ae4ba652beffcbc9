import type { Caller } from "./Accounts.ts"

// The SQL text of the quota (src/features/Accounts/Quota.ts): the charge, the keyed reads' charge, their
// confirmation and refunds.

/**
 * How long a reservation may stay open before any process refunds it: far past the longest a read can
 * take from its charge to its written answer (REQUEST_TIMEOUT_MS is at most 9 s), so only a reservation
 * whose process died is ever refunded this way.
 */
const RESERVATION_LEASE_SECONDS = 60

// Per-minute limit (fixed one-minute windows, UTC) and monthly quota (calendar month, UTC). Both are
// checked and raised in one atomic statement, so any number of processes on one database agree.
// A call admitted by the minute limit counts toward it even if it then fails. Keyed calls (reads and
// writes) are charged with CHARGE_CALLS instead; this one charges without a reservation.
// $1 account, $2 key, $3 requests per minute, $4 monthly quota, $5 cost.
export const CHARGE = `
  with clock as (
    select date_trunc('minute', now()) as minute,
           date_trunc('month', now() at time zone 'utc') as month_start
  ),
  rate as (
    insert into rate_windows as r (account_id, window_start, count)
    select $1::uuid, minute, 1 from clock
    on conflict (account_id) do update
      set window_start = excluded.window_start,
          count = case when r.window_start = excluded.window_start then r.count + 1 else 1 end
      where r.window_start <> excluded.window_start or r.count < $3::int
    returning count
  ),
  quota as (
    insert into quota_usage as u (account_id, period, used)
    select $1::uuid, month_start::date, $5::bigint from clock, rate
    where $5::bigint <= $4::bigint
    on conflict (account_id, period) do update set used = u.used + excluded.used
      where u.used + excluded.used <= $4::bigint
    returning used
  ),
  touched as (
    update api_keys set last_used_at = now()
    where id = $2::uuid and (last_used_at is null or last_used_at < now() - interval '10 seconds')
  )
  select
    (select count from rate) as rate_count,
    (select count from rate_windows, clock where account_id = $1::uuid and window_start = minute) as rate_current,
    (select used from quota) as used,
    (select used from quota_usage, clock where account_id = $1::uuid and period = month_start::date) as used_current,
    (select to_char(month_start, 'YYYY-MM-DD') from clock) as period,
    (select ceil(extract(epoch from minute + interval '1 minute' - now()))::int from clock) as rate_reset,
    (select ceil(extract(epoch from (month_start + interval '1 month') at time zone 'utc' - now()))::int from clock) as quota_reset`

export const chargeParameters = (caller: Caller, cost: number) =>
  [caller.accountId, caller.keyId, caller.limits.requestsPerMinute, caller.limits.monthlyQuota, cost] as const

/**
 * Charges up to $6 keyed reads of one account, each costing $5, in one statement that commits at once
 * (sql/0011_quota_reservations.sql `charge_calls`): the units charged are reserved under $7 for the lease.
 * $1 account, $2 key, $3 requests per minute, $4 monthly quota, $5 cost, $6 calls, $7 reservation id, $8 lease (s).
 */
export const CHARGE_CALLS =
  "select * from charge_calls($1::uuid, $2::uuid, $3::int, $4::bigint, $5::bigint, $6::int, $7::uuid, $8::int)"

export const chargeCallsParameters = (caller: Caller, cost: number, calls: number, reservationId: string) =>
  [...chargeParameters(caller, cost), calls, reservationId, RESERVATION_LEASE_SECONDS] as const

/**
 * CHARGE_CALLS with one reservation per admitted call (sql/0017_write_charges.sql `charge_calls_each`): the
 * i-th call's units are reserved under $6[i]. For writes, which confirm each their own inside their transaction.
 * $1 account, $2 key, $3 requests per minute, $4 monthly quota, $5 cost, $6 reservation ids, $7 lease (s).
 */
export const CHARGE_CALLS_EACH =
  "select * from charge_calls_each($1::uuid, $2::uuid, $3::int, $4::bigint, $5::bigint, $6::uuid[], $7::int)"

export const chargeCallsEachParameters = (caller: Caller, cost: number, reservationIds: ReadonlyArray<string>) =>
  [...chargeParameters(caller, cost), reservationIds, RESERVATION_LEASE_SECONDS] as const

/** Confirms reads: their units stay charged, taken off their reservations. $1 reservation ids, $2 units (one pair per read). */
export const CONFIRM = `
  update quota_reservations r set cost = r.cost - settled.units
  from (select id, sum(units) as units from unnest($1::uuid[], $2::bigint[]) as t (id, units) group by id) settled
  where r.id = settled.id`

/**
 * Confirms a write's units inside the write's own transaction, so they stay charged exactly when the write
 * commits: the reservation still holds them, or no row (its lease ended and it was refunded: the write must
 * not commit). Its row is locked from here to the COMMIT only. $1 reservation id, $2 units.
 */
export const CONFIRM_WRITE = `
  update quota_reservations set cost = cost - $2::bigint where id = $1::uuid and cost >= $2::bigint returning id`

/**
 * Refunds calls, each once (its reservation still holds its units; a reservation is never refunded more
 * than it holds): $1 reservation ids, $2 units (one pair per call).
 */
export const REFUND_RESERVED = `
  with settled as (
    select id, sum(units) as units from unnest($1::uuid[], $2::bigint[]) as t (id, units) group by id
  ),
  held as (
    select r.id, r.account_id, r.period, least(r.cost, settled.units) as units
    from quota_reservations r join settled on settled.id = r.id
    where r.cost > 0
    for update of r
  ),
  released as (
    update quota_reservations r set cost = r.cost - held.units
    from held where r.id = held.id
    returning held.account_id, held.period, held.units
  ),
  totals as (select account_id, period, sum(units) as units from released group by account_id, period)
  update quota_usage u set used = u.used - totals.units
  from totals where u.account_id = totals.account_id and u.period = totals.period`

/** Deletes settled reservations and refunds what is left of those past their lease (their process died). */
export const REFUND_EXPIRED = `
  with ended as (
    delete from quota_reservations
    where id in (select id from quota_reservations where cost = 0 or expires_at < now() for update skip locked)
    returning account_id, period, cost
  ),
  totals as (select account_id, period, sum(cost) as cost from ended where cost > 0 group by account_id, period)
  update quota_usage u set used = u.used - totals.cost
  from totals where u.account_id = totals.account_id and u.period = totals.period`
