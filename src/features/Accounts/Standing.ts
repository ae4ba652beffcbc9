// Its own module, apart from the quota repository, so `meta` (a contract schema) names it without the SQL code.

/** The account's standing after a call: what `meta.quota` and the rate-limit headers report. */
export interface Standing {
  readonly rate: { readonly limit: number; readonly remaining: number; readonly resetSeconds: number }
  readonly quota: {
    readonly limit: number
    readonly used: number
    readonly remaining: number
    readonly resetSeconds: number
  }
}
