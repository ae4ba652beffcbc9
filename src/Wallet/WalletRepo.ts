import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { ServiceUnavailable } from "../Domain/Errors.ts"
import type { ScanEvidence } from "../Domain/ScanEvidence.ts"
import type { WalletEvidenceLine, WalletExposure, WalletLabel } from "../Domain/WalletEvidence.ts"
import { RUG_PEAK_LIQUIDITY_USD, RUG_REMAINING_SHARE, RUG_REMAINING_USD } from "../Deployer/History.ts"
import { sqlFailure } from "../Sql/Unavailable.ts"

/** A mint a deployer launched: its latest scan, when it was first seen, and its peak liquidity. */
export interface Launch {
  readonly mint: string
  readonly firstSeenAt: string
  readonly latest: ScanEvidence
  readonly peakLiquidityUsd: number | null
  readonly scanCount: number
}

export interface DeployerRecord {
  readonly launches: number
  readonly rugged: number
  readonly honeypots: number
}

export interface StoreResult {
  readonly stored: number
  readonly unchanged: number
}

// Wallet labels, counterparty exposures, and the launch history read from token scans.
export class WalletStore extends Effect.Tag("WalletStore")<WalletStore, {
  readonly record: (lines: ReadonlyArray<WalletEvidenceLine>) => Effect.Effect<StoreResult, ServiceUnavailable>
  readonly labelsOf: (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<WalletLabel>, ServiceUnavailable>
  readonly exposuresOf: (wallet: string) => Effect.Effect<ReadonlyArray<WalletExposure>, ServiceUnavailable>
  readonly launchesOf: (deployer: string) => Effect.Effect<ReadonlyArray<Launch>, ServiceUnavailable>
  /** Launch, rug and honeypot counts of each deployer, from the latest scan of each of their mints. */
  readonly deployerRecords: (deployers: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, DeployerRecord>, ServiceUnavailable>
}>() {}

interface LabelRow {
  readonly address: string
  readonly label: string
  readonly category: string
  readonly severity: WalletLabel["severity"]
  readonly source: string
  readonly detail: string
  readonly observed_at: Date
}

interface ExposureRow {
  readonly wallet_address: string
  readonly counterparty_address: string
  readonly counterparty_label: string
  readonly category: string
  readonly direction: WalletExposure["direction"]
  readonly exposure_type: string
  readonly hop_distance: number
  readonly exposure_amount_usd: number
  readonly exposure_pct: number
  readonly tx_count: number
  readonly last_seen_at: Date
}

const iso = (value: Date | string): string => new Date(value).toISOString()

const toLabel = (row: LabelRow): WalletLabel => ({
  type: "label",
  address: row.address as WalletLabel["address"],
  label: row.label,
  category: row.category,
  severity: row.severity,
  source: row.source,
  detail: row.detail,
  observedAt: iso(row.observed_at)
})

const toExposure = (row: ExposureRow): WalletExposure => ({
  type: "exposure",
  walletAddress: row.wallet_address as WalletExposure["walletAddress"],
  counterpartyAddress: row.counterparty_address as WalletExposure["counterpartyAddress"],
  counterpartyLabel: row.counterparty_label,
  category: row.category,
  direction: row.direction,
  exposureType: row.exposure_type,
  hopDistance: Number(row.hop_distance),
  exposureAmountUsd: Number(row.exposure_amount_usd),
  exposurePct: Number(row.exposure_pct),
  txCount: Number(row.tx_count),
  lastSeenAt: iso(row.last_seen_at)
})

export const WalletStoreSql = Layer.effect(
  WalletStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The liquidity a scan observed, as the scoring reads it (pool figure, else market figure).
    const liquidityOf = sql.literal(
      "coalesce((evidence -> 'liquidity' ->> 'liquidityUsd')::float8, (evidence -> 'market' ->> 'liquidityUsd')::float8)"
    )

    // An upsert that changes nothing when the stored observation is as new and identical.
    const storeLabel = (label: WalletLabel) =>
      sql`
        insert into wallet_labels as w (address, label, category, severity, source, detail, observed_at)
        values (${label.address}, ${label.label}, ${label.category}, ${label.severity}, ${label.source}, ${label.detail}, ${label.observedAt})
        on conflict (address, label, source) do update set
          category = excluded.category, severity = excluded.severity, detail = excluded.detail, observed_at = excluded.observed_at
        where excluded.observed_at > w.observed_at
          or (excluded.observed_at = w.observed_at and (w.category, w.severity, w.detail) is distinct from (excluded.category, excluded.severity, excluded.detail))
        returning 1 as changed`

    const storeExposure = (e: WalletExposure) =>
      sql`
        insert into wallet_exposures as w (wallet_address, counterparty_address, counterparty_label, category, direction,
          exposure_type, hop_distance, exposure_amount_usd, exposure_pct, tx_count, last_seen_at)
        values (${e.walletAddress}, ${e.counterpartyAddress}, ${e.counterpartyLabel}, ${e.category}, ${e.direction},
          ${e.exposureType}, ${e.hopDistance}, ${e.exposureAmountUsd}, ${e.exposurePct}, ${e.txCount}, ${e.lastSeenAt})
        on conflict (wallet_address, counterparty_address, direction, exposure_type) do update set
          counterparty_label = excluded.counterparty_label, category = excluded.category, hop_distance = excluded.hop_distance,
          exposure_amount_usd = excluded.exposure_amount_usd, exposure_pct = excluded.exposure_pct,
          tx_count = excluded.tx_count, last_seen_at = excluded.last_seen_at
        where excluded.last_seen_at > w.last_seen_at
          or (excluded.last_seen_at = w.last_seen_at and
            (w.counterparty_label, w.category, w.hop_distance, w.exposure_amount_usd, w.exposure_pct, w.tx_count)
            is distinct from (excluded.counterparty_label, excluded.category, excluded.hop_distance,
              excluded.exposure_amount_usd, excluded.exposure_pct, excluded.tx_count))
        returning 1 as changed`

    return {
      record: (lines) =>
        Effect.forEach(lines, (line) => line.type === "label" ? storeLabel(line) : storeExposure(line)).pipe(
          Effect.map((results) => {
            const stored = results.filter((rows) => rows.length > 0).length
            return { stored, unchanged: lines.length - stored }
          }),
          sql.withTransaction,
          Effect.catchTag("SqlError", sqlFailure)
        ),
      labelsOf: (addresses) =>
        addresses.length === 0
          ? Effect.succeed([])
          : sql<LabelRow>`select * from wallet_labels where address = any(${addresses}::text[]) order by address, observed_at desc, label`.pipe(
            Effect.map((rows) => rows.map(toLabel)),
            Effect.catchTag("SqlError", sqlFailure)
          ),
      exposuresOf: (wallet) =>
        sql<ExposureRow>`
          select * from wallet_exposures where wallet_address = ${wallet}
          order by hop_distance, exposure_amount_usd desc, counterparty_address`.pipe(
          Effect.map((rows) => rows.map(toExposure)),
          Effect.catchTag("SqlError", sqlFailure)
        ),
      launchesOf: (deployer) =>
        sql<{ mint: string; evidence: ScanEvidence; first_seen: Date; peak: number | null; scans: string }>`
          select latest.mint, latest.evidence, history.first_seen, history.peak, history.scans
          from (select distinct mint from scans where deployer = ${deployer}) launched
          cross join lateral (
            select min(scanned_at) as first_seen, count(*) as scans,
              max(${liquidityOf}) as peak
            from scans where scans.mint = launched.mint
          ) history
          cross join lateral (
            select mint, evidence from scans where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
          ) latest
          order by history.first_seen desc, latest.mint`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              mint: row.mint,
              firstSeenAt: iso(row.first_seen),
              latest: row.evidence, // stored in decoded form (see ScanCache)
              peakLiquidityUsd: row.peak === null ? null : Number(row.peak),
              scanCount: Number(row.scans)
            }))
          ),
          Effect.catchTag("SqlError", sqlFailure)
        ),
      deployerRecords: (deployers) =>
        deployers.length === 0
          ? Effect.succeed(new Map())
          : sql<{ deployer: string; launches: string; rugged: string; honeypots: string }>`
              select launched.deployer, count(*) as launches,
                count(*) filter (where latest.evidence ->> 'outcome' = 'rugged' or (
                  history.peak >= ${RUG_PEAK_LIQUIDITY_USD} and latest.liquidity < history.peak * ${RUG_REMAINING_SHARE}
                  and latest.liquidity < ${RUG_REMAINING_USD})) as rugged,
                count(*) filter (where (latest.evidence -> 'trading' ->> 'isHoneypot')::boolean) as honeypots
              from (select distinct deployer, mint from scans where deployer = any(${deployers}::text[])) launched
              cross join lateral (
                select max(${liquidityOf}) as peak from scans where scans.mint = launched.mint
              ) history
              cross join lateral (
                select evidence, ${liquidityOf} as liquidity from scans
                where scans.mint = launched.mint order by scanned_at desc, id desc limit 1
              ) latest
              group by launched.deployer`.pipe(
            Effect.map((rows) =>
              new Map(rows.map((row) => [row.deployer, {
                launches: Number(row.launches),
                rugged: Number(row.rugged),
                honeypots: Number(row.honeypots)
              }]))
            ),
            Effect.catchTag("SqlError", sqlFailure)
          )
    }
  })
)

/** A store that holds no evidence: for tests of routes that are not about wallets. */
export const WalletStoreEmpty = Layer.succeed(WalletStore, {
  record: (lines) => Effect.succeed({ stored: 0, unchanged: lines.length }),
  labelsOf: () => Effect.succeed([]),
  exposuresOf: () => Effect.succeed([]),
  launchesOf: () => Effect.succeed([]),
  deployerRecords: () => Effect.succeed(new Map())
})
