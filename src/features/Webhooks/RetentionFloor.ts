import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { RetentionFloor } from "../Scans/ScanRetention.ts"

/**
 * The scan history's retention keeps what the watch-alert evaluator has not passed yet: its cursor
 * (`webhook_scan_cursor`, owned here) as the floor Scans/ScanRetention.ts asks for.
 */
export const WebhookRetentionFloor = Layer.effect(
  RetentionFloor,
  Effect.map(SqlClient.SqlClient, (sql) => ({
    passed: sql`select last_scan_id as scan_id from webhook_scan_cursor where id = 1`
  }))
)
