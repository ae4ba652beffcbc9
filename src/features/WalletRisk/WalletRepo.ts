import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import type { WalletEvidenceLine, WalletExposure, WalletLabel } from "../../domain/WalletEvidence.ts"
import { repository } from "../../platform/Sql/Unavailable.ts"

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

// Wallet labels and counterparty exposures, imported as NDJSON (docs/wallet-evidence.md).
export class WalletRepo extends Effect.Service<WalletRepo>()("WalletRepo", {
  accessors: true,
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
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

    return repository({
      record: (lines: ReadonlyArray<WalletEvidenceLine>) =>
        Effect.forEach(lines, (line) => (line.type === "label" ? storeLabel(line) : storeExposure(line))).pipe(
          Effect.map((results) => {
            const stored = results.filter((rows) => rows.length > 0).length
            return { stored, unchanged: lines.length - stored }
          }),
          sql.withTransaction
        ),
      labelsOf: (addresses: ReadonlyArray<string>) =>
        addresses.length === 0
          ? Effect.succeed<ReadonlyArray<WalletLabel>>([])
          : sql<LabelRow>`select * from wallet_labels where address = any(${addresses}::text[]) order by address, observed_at desc, label`.pipe(
              Effect.map((rows) => rows.map(toLabel))
            ),
      exposuresOf: (wallet: string) =>
        sql<ExposureRow>`
          select * from wallet_exposures where wallet_address = ${wallet}
          order by hop_distance, exposure_amount_usd desc, counterparty_address`.pipe(
          Effect.map((rows) => rows.map(toExposure))
        )
    })
  })
}) {}

/** A repository that holds no evidence: for tests of routes that are not about wallets. */
export const WalletRepoEmpty = Layer.succeed(
  WalletRepo,
  WalletRepo.make({
    record: (lines) => Effect.succeed({ stored: 0, unchanged: lines.length }),
    labelsOf: () => Effect.succeed([]),
    exposuresOf: () => Effect.succeed([])
  })
)

/** Wallets operators labelled "exchange" (`risk-api import-wallets`), the latest label of each: the scanner reads them. */
export const exchangeLabelsStatement = (sql: SqlClient.SqlClient) =>
  sql<{ address: string; source: string; detail: string }>`
    select distinct on (address) address, source, detail from wallet_labels
    where label = 'exchange' order by address, observed_at desc`
