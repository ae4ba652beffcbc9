import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { latestMigration } from "../../platform/Sql/Migrations.ts"

export interface Readiness {
  readonly ready: boolean
  readonly database: "ok" | "unreachable"
  readonly migration: string | null
  readonly expectedMigration: string
}

const expectedMigration = latestMigration

// Readiness for a load balancer: the database answers within a second and every migration is applied.
export class Health extends Effect.Service<Health>()("Health", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      readiness: sql<{ migration_id: number; name: string }>`
        select migration_id, name from schema_migrations order by migration_id desc limit 1`.pipe(
        // disconnect: the probe answers at its second even while the query waits on a hung connection.
        Effect.disconnect,
        Effect.timeoutFail({ duration: Duration.seconds(1), onTimeout: () => new Error("database timed out") }),
        Effect.map(([row]): Readiness => {
          const migration = row === undefined ? null : `${String(row.migration_id).padStart(4, "0")}_${row.name}`
          return { ready: migration === expectedMigration, database: "ok", migration, expectedMigration }
        }),
        Effect.orElseSucceed(
          (): Readiness => ({ ready: false, database: "unreachable", migration: null, expectedMigration })
        )
      )
    }
  })
}) {}

export const HealthAlwaysReady = Layer.succeed(
  Health,
  Health.make({
    readiness: Effect.succeed<Readiness>({
      ready: true,
      database: "ok",
      migration: expectedMigration,
      expectedMigration
    })
  })
)
