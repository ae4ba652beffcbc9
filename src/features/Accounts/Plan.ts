import { Schema } from "effect"

export const PlanName = Schema.Literal("free", "pro", "whale", "enterprise")
export type PlanName = typeof PlanName.Type

export interface Limits {
  readonly monthlyQuota: number
  readonly requestsPerMinute: number
}

// The contract's plans. Enterprise limits are set per account.
const PLAN_LIMITS: Readonly<Record<Exclude<PlanName, "enterprise">, Limits>> = {
  free: { monthlyQuota: 100, requestsPerMinute: 10 },
  pro: { monthlyQuota: 5_000, requestsPerMinute: 30 },
  whale: { monthlyQuota: 25_000, requestsPerMinute: 60 }
}

export const limitsOf = (
  plan: PlanName,
  custom: { readonly monthlyQuota: number | null; readonly requestsPerMinute: number | null }
): Limits =>
  plan === "enterprise"
    ? { monthlyQuota: custom.monthlyQuota ?? 0, requestsPerMinute: custom.requestsPerMinute ?? 1 }
    : PLAN_LIMITS[plan]
