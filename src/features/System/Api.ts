import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

const HealthStatus = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  uptimeSeconds: Schema.Number.pipe(Schema.int())
}).annotations({ identifier: "HealthStatus" })

const ReadinessBody = {
  database: Schema.Literal("ok", "unreachable"),
  migration: Schema.NullOr(Schema.String).annotations({ description: "Latest applied migration." }),
  expectedMigration: Schema.String.annotations({ description: "Latest migration this build carries." })
}

export const ReadyStatus = Schema.Struct({ status: Schema.Literal("ready"), ...ReadinessBody }).annotations({
  identifier: "ReadyStatus"
})

// Documented as the 503 body; the handler sends it as a response (a probe reads it, it is no error envelope).
const NotReadyStatus = Schema.Struct({ status: Schema.Literal("not_ready"), ...ReadinessBody }).annotations({
  identifier: "NotReadyStatus",
  ...HttpApiSchema.annotations({ status: 503, description: "The database is unreachable or migrations are missing." })
})

const health = HttpApiEndpoint.get("health", "/health")
  .addSuccess(HealthStatus)
  .annotate(OpenApi.Summary, "Liveness")
  .annotate(OpenApi.Description, "200 while the process serves requests; touches no database. For restart probes.")

const ready = HttpApiEndpoint.get("ready", "/ready")
  .addSuccess(ReadyStatus)
  .addError(NotReadyStatus)
  .annotate(OpenApi.Summary, "Readiness")
  .annotate(
    OpenApi.Description,
    "200 when the database answers within a second and every migration this build carries is applied; 503 " +
      "otherwise (with the same fields). For load-balancer readiness checks. Not an error envelope: a probe reads the body."
  )

export class SystemApi extends HttpApiGroup.make("system")
  .add(health)
  .add(ready)
  .annotate(OpenApi.Title, "System")
  .annotate(OpenApi.Description, "Probes for operators and load balancers. No authentication, not rate limited.")
  // Operations endpoints like /metrics (README, "Probes, metrics, logs"), not part of the API contract.
  .annotate(OpenApi.Exclude, true) {}
