import type { Standing } from "./Quota.ts"

/** What the headers report: the minute window, and the monthly quota on keyed routes. */
export interface HeaderStanding {
  readonly rate: Standing["rate"]
  readonly quota?: Standing["quota"] | undefined
  /** Set on a refusal: seconds until the limit that refused resets. */
  readonly retryAfterSeconds?: number | undefined
}

/** IETF RateLimit draft headers plus the widely used X-RateLimit-* ones, for the per-minute window. */
export const rateLimitHeadersOf = ({ quota, rate, retryAfterSeconds }: HeaderStanding): Record<string, string> => {
  const headers: Record<string, string> = {
    "ratelimit-policy": `"minute";q=${rate.limit};w=60${quota === undefined ? "" : `, "month";q=${quota.limit}`}`,
    ratelimit: `"minute";r=${rate.remaining};t=${rate.resetSeconds}`,
    "x-ratelimit-limit": String(rate.limit),
    "x-ratelimit-remaining": String(rate.remaining),
    "x-ratelimit-reset": String(rate.resetSeconds)
  }
  if (quota !== undefined) {
    headers["x-quota-limit"] = String(quota.limit)
    headers["x-quota-remaining"] = String(quota.remaining)
  }
  if (retryAfterSeconds !== undefined) headers["retry-after"] = String(retryAfterSeconds)
  return headers
}
