import { Effect, FiberRef } from "effect"
import type { Reservation, Standing } from "../Accounts/Quota.ts"

// One per request, created by the API middleware. Handlers record the account's standing and the
// quota they reserved; the middleware turns those into rate-limit headers, and refunds the reservation
// when the response is a failure or the request is interrupted.
export interface RequestContext {
  readonly id: string
  standing: { readonly rate: Standing["rate"]; readonly quota?: Standing["quota"] } | undefined
  refund: { readonly cost: number; readonly run: Effect.Effect<void> } | undefined
  retryAfterSeconds: number | undefined
  refusal: "rate_limited" | "quota_exceeded" | undefined
  accountId: string | undefined
}

export const CurrentRequest = FiberRef.unsafeMake<RequestContext>({
  id: "",
  standing: undefined,
  refund: undefined,
  retryAfterSeconds: undefined,
  refusal: undefined,
  accountId: undefined
})

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/

/** The client's X-Request-Id when it is a safe token, otherwise a fresh one (never echo arbitrary bytes). */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && CLIENT_REQUEST_ID.test(header) ? header : crypto.randomUUID()

export const newRequestContext = (header: string | undefined): RequestContext => ({
  id: requestIdFrom(header),
  standing: undefined,
  refund: undefined,
  retryAfterSeconds: undefined,
  refusal: undefined,
  accountId: undefined
})

export const currentRequestId = Effect.map(FiberRef.get(CurrentRequest), (context) => context.id)
