import { BunContext } from "@effect/platform-bun"
import { PgMigrator } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import scans from "../../../sql/0001_scans.sql" with { type: "text" }
import accounts from "../../../sql/0002_accounts.sql" with { type: "text" }
import wallets from "../../../sql/0003_wallets.sql" with { type: "text" }
import watches from "../../../sql/0004_watches.sql" with { type: "text" }
import scanner from "../../../sql/0005_scanner.sql" with { type: "text" }
import listings from "../../../sql/0006_listings.sql" with { type: "text" }
import webhooks from "../../../sql/0007_webhooks.sql" with { type: "text" }
import scanLiquidity from "../../../sql/0008_scan_liquidity.sql" with { type: "text" }
import scanRetention from "../../../sql/0009_scan_retention.sql" with { type: "text" }
import scanPriceAndMarket from "../../../sql/0010_scan_price_and_market.sql" with { type: "text" }
import quotaReservations from "../../../sql/0011_quota_reservations.sql" with { type: "text" }
import stream from "../../../sql/0012_stream.sql" with { type: "text" }
import funders from "../../../sql/0013_funders.sql" with { type: "text" }
import latestScans from "../../../sql/0014_latest_scans.sql" with { type: "text" }
import streamRetention from "../../../sql/0016_stream_retention.sql" with { type: "text" }
import writeCharges from "../../../sql/0017_write_charges.sql" with { type: "text" }
import scansPartitioned from "../../../sql/0018_scans_partitioned.sql" with { type: "text" }
import latestVerdicts from "../../../sql/0019_latest_verdicts.sql" with { type: "text" }
import scanDocumentZstd from "../../../sql/0020_scan_document_zstd.sql" with { type: "text" }

// Embedded as text so the compiled binary carries them; fromRecord keys are `<id>_<name>`.
const migrations: Record<string, string> = {
  "0001_scans": scans,
  "0002_accounts": accounts,
  "0003_wallets": wallets,
  "0004_watches": watches,
  "0005_scanner": scanner,
  "0006_listings": listings,
  "0007_webhooks": webhooks,
  "0008_scan_liquidity": scanLiquidity,
  "0009_scan_retention": scanRetention,
  "0010_scan_price_and_market": scanPriceAndMarket,
  "0011_quota_reservations": quotaReservations,
  "0012_stream": stream,
  "0013_funders": funders,
  "0014_latest_scans": latestScans,
  "0016_stream_retention": streamRetention,
  "0017_write_charges": writeCharges,
  "0018_scans_partitioned": scansPartitioned,
  "0019_latest_verdicts": latestVerdicts,
  "0020_scan_document_zstd": scanDocumentZstd
}

const run = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text).raw)

/**
 * The day partitions of the scan history (sql/0018) from yesterday to two days ahead, made where missing: run
 * after the migrations by every process that starts (on PostgreSQL on the migrations' own connection, without
 * the statement timeout), and by retention (hourly from cron, README). A scan no day partition covers goes to
 * scans_default, so an insert never fails for want of one; this keeps the days it will be written in covered.
 * Not more ahead: every partition, empty or not, is planned and opened by each read of a mint's history that
 * no time bound prunes (the latest-scan upsert is bounded below by the inserted scans' time, so the days ahead
 * and the default partition are what it still reads), and 14 empty days ahead cost such a read tens of
 * milliseconds in the history bench.
 */
export const ENSURE_SCAN_PARTITIONS = `select scans_ensure_partitions(
  (now() at time zone 'UTC')::date - 1, (now() at time zone 'UTC')::date + 2) as made`

/**
 * The migrations up to and including `last` (`<id>_<name>`), without anything after them: how tests and the
 * history bench build a database as an earlier release left it, to convert it with the rest.
 */
export const migratorThrough = (last: string) =>
  PgMigrator.layer({
    loader: PgMigrator.fromRecord(
      Object.fromEntries(
        Object.entries(migrations)
          .filter(([name]) => name <= last)
          .map(([name, text]) => [name, run(text)])
      )
    ),
    table: "schema_migrations"
  }).pipe(Layer.provide(BunContext.layer)) // the migrator's types ask for a platform; it only uses one for schema dumps

export const latestMigration = Object.keys(migrations).sort().at(-1) ?? ""

export const MigrationsLive = Layer.effectDiscard(run(ENSURE_SCAN_PARTITIONS)).pipe(
  Layer.provideMerge(migratorThrough(latestMigration))
)
