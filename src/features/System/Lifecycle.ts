import { inFlight } from "../../platform/Observability/Metrics.ts"

// Process-wide serving state: requests in flight and whether the server is draining for shutdown.
export const lifecycle = { inFlight: 0, draining: false }

/** Counts a request as in flight (the gauge and the shutdown drain) until the returned function is called. */
export const requestInFlight = (): (() => void) => {
  lifecycle.inFlight++
  inFlight.inc()
  return () => {
    lifecycle.inFlight--
    inFlight.dec()
  }
}
