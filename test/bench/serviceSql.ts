import { LATEST_TRENDS } from "../../src/Scans/ScansRepo.ts"

// The service's statements, same text (src/Accounts/Accounts.ts authenticate, src/Accounts/Quota.ts charge,
// src/Scans/ScansRepo.ts latestScanStatement); @effect/sql numbers the interpolations $1, $2, ... in order.
export const AUTHENTICATE = `
              select k.id as key_id, k.account_id, k.scopes, k.expires_at, k.revoked_at,
                a.plan, a.monthly_quota, a.requests_per_minute
              from api_keys k join accounts a on a.id = k.account_id
              where k.key_hash = $1`

export const CHARGE = `
          with clock as (
            select date_trunc('minute', now()) as minute,
                   date_trunc('month', now() at time zone 'utc') as month_start
          ),
          rate as (
            insert into rate_windows as r (account_id, window_start, count)
            select $1, minute, 1 from clock
            on conflict (account_id) do update
              set window_start = excluded.window_start,
                  count = case when r.window_start = excluded.window_start then r.count + 1 else 1 end
              where r.window_start <> excluded.window_start or r.count < $2::int
            returning count
          ),
          quota as (
            insert into quota_usage as u (account_id, period, used)
            select $3::uuid, month_start::date, $4::bigint from clock, rate
            where $5::int <= $6::int
            on conflict (account_id, period) do update set used = u.used + excluded.used
              where u.used + excluded.used <= $7::bigint
            returning used
          ),
          touched as (
            update api_keys set last_used_at = now()
            where id = $8 and (last_used_at is null or last_used_at < now() - interval '10 seconds')
          )
          select
            (select count from rate) as rate_count,
            (select count from rate_windows, clock where account_id = $9 and window_start = minute) as rate_current,
            (select used from quota) as used,
            (select used from quota_usage, clock where account_id = $10 and period = month_start::date) as used_current,
            (select to_char(month_start, 'YYYY-MM-DD') from clock) as period,
            (select ceil(extract(epoch from minute + interval '1 minute' - now()))::int from clock) as rate_reset,
            (select ceil(extract(epoch from (month_start + interval '1 month') at time zone 'utc' - now()))::int from clock) as quota_reset`

export const LATEST_SCAN = `
    select s.id, s.mint, s.evidence, ${LATEST_TRENDS} from (
      select id, mint, evidence, scanned_at, price_usd from scans
      where mint = $1
      order by scanned_at desc, id desc
      limit 1
    ) s`
