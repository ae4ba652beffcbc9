import { Effect } from "effect"
import { inFlight as inFlightGauge } from "../../platform/Observability/Metrics.ts"

/**
 * The process's serving state: requests in flight (the gauge, and what the shutdown drain waits for) and
 * whether the server is draining (/ready answers 503, every answer closes its connection). The edge
 * (Http/Edge.ts) counts each request it serves; the server's shutdown (Http/Server.ts) drains.
 */
export class Lifecycle extends Effect.Service<Lifecycle>()("Lifecycle", {
  sync: () => {
    const state = { inFlight: 0, draining: false }
    return {
      inFlight: (): number => state.inFlight,
      draining: (): boolean => state.draining,
      /** From now on: not ready, and every answer closes its connection. */
      drain: (): void => {
        state.draining = true
      },
      /** Counts a request as in flight until the returned function is called. */
      enter: (): (() => void) => {
        state.inFlight++
        inFlightGauge.inc()
        return () => {
          state.inFlight--
          inFlightGauge.dec()
        }
      }
    }
  }
}) {}
