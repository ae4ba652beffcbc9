// Every limitation a decision can carry, in the order they are listed.
export const LIMITATIONS = [
  "cache_only_v0",
  "not_financial_advice",
  "does_not_execute_trades",
  "top_trader_flow_not_live_yet",
  "wallet_profile_may_be_missing",
  "stale_evidence",
  "single_scan_history",
  "entry_price_missing"
] as const
export type Limitation = (typeof LIMITATIONS)[number]

// Every decision is answered from cached scans only; these always apply.
const BASE_LIMITATIONS: ReadonlyArray<Limitation> = LIMITATIONS.slice(0, 4)

export const limitationsWhen = (
  conditions: ReadonlyArray<readonly [Limitation, boolean]>
): ReadonlyArray<Limitation> => [
  ...BASE_LIMITATIONS,
  ...conditions.flatMap(([limitation, applies]) => (applies ? [limitation] : []))
]
