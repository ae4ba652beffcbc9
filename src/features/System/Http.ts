import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { RiskApi } from "../../Api.ts"
import type { ReadyStatus } from "./Api.ts"
import { Health, type Readiness } from "./Health.ts"
import { VERSION } from "./Version.ts"
import { Lifecycle } from "./Lifecycle.ts"

const startedAt = Date.now()

const notReady = (readiness: Omit<Readiness, "ready">): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.orDie(
    HttpServerResponse.json(
      { status: "not_ready", ...readiness },
      {
        status: 503,
        headers: { "cache-control": "no-store", "retry-after": "5" }
      }
    )
  )

export const SystemHttp = HttpApiBuilder.group(RiskApi, "system", (handlers) =>
  Effect.gen(function* () {
    const health = yield* Health
    const lifecycle = yield* Lifecycle
    return handlers
      .handle("health", () =>
        Effect.succeed({
          status: "ok" as const,
          version: VERSION,
          uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000)
        })
      )
      .handle("ready", () =>
        Effect.flatMap(
          health.readiness,
          // A draining server answers not ready, so the load balancer stops sending it traffic.
          ({ ready, ...readiness }): Effect.Effect<typeof ReadyStatus.Type | HttpServerResponse.HttpServerResponse> =>
            ready && !lifecycle.draining()
              ? Effect.succeed({ status: "ready" as const, ...readiness })
              : notReady(readiness)
        )
      )
  })
)
