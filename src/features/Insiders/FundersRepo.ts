import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { repository } from "../../platform/Sql/Unavailable.ts"

// The wallet_funders table (sql/0013_funders.sql): each wallet's first funder, read once by the scanner's
// funders stage and reused by every later scan. A wallet's first funder never changes, so a row is never
// overwritten: the first one written stands.

export interface FunderRow {
  readonly wallet: string
  /** null: the wallet's oldest transaction is no SOL transfer into it. */
  readonly funder: string | null
  readonly signature: string | null
  readonly fundedSlot: number | null
  readonly lamports: string | null
  /** The slot the scan that read it was pinned at. */
  readonly readSlot: number
}

interface Row {
  readonly wallet: string
  readonly funder: string | null
  readonly signature: string | null
  readonly funded_slot: string | number | null
  readonly lamports: string | number | null
  readonly read_slot: string | number
}

const toFunder = (row: Row): FunderRow => ({
  wallet: row.wallet,
  funder: row.funder,
  signature: row.signature,
  fundedSlot: row.funded_slot === null ? null : Number(row.funded_slot),
  lamports: row.lamports === null ? null : String(row.lamports),
  readSlot: Number(row.read_slot)
})

export const makeFundersRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** The rows known for these wallets. */
    lookup: (wallets: ReadonlyArray<string>) =>
      wallets.length === 0
        ? Effect.succeed(new Map<string, FunderRow>())
        : sql<Row>`
            select wallet, funder, signature, funded_slot, lamports, read_slot from wallet_funders
            where wallet = any(${[...wallets]}::text[])`.pipe(
            Effect.map((rows) => new Map(rows.map((row) => [row.wallet, toFunder(row)])))
          ),
    /** Keeps rows not already known; a known wallet's row is left as it is. */
    remember: (rows: ReadonlyArray<FunderRow>) =>
      rows.length === 0
        ? Effect.void
        : sql`
            insert into wallet_funders (wallet, funder, signature, funded_slot, lamports, read_slot)
            select * from unnest(
              ${rows.map((row) => row.wallet)}::text[],
              ${rows.map((row) => row.funder)}::text[],
              ${rows.map((row) => row.signature)}::text[],
              ${rows.map((row) => (row.fundedSlot === null ? null : String(row.fundedSlot)))}::bigint[],
              ${rows.map((row) => row.lamports)}::numeric[],
              ${rows.map((row) => String(row.readSlot))}::bigint[]
            )
            on conflict (wallet) do nothing`.pipe(Effect.asVoid),
    /** Wallets first funded by `funder` (for the insiders graph and operators). */
    fundedBy: (funder: string, limit = 100) =>
      sql<Row>`
        select wallet, funder, signature, funded_slot, lamports, read_slot from wallet_funders
        where funder = ${funder} order by wallet limit ${limit}`.pipe(Effect.map((rows) => rows.map(toFunder)))
  }
})

/** The funders table as the routes read it (the insiders graph): SQL failures are 503 or a defect, once. */
export class Funders extends Effect.Service<Funders>()("Funders", {
  effect: Effect.map(makeFundersRepo, (repo) => repository({ lookup: repo.lookup }))
}) {}

/** No funder known (tests of the app in memory, without a database). */
export const FundersNone = Layer.succeed(
  Funders,
  Funders.make({ lookup: () => Effect.succeed(new Map<string, FunderRow>()) })
)
