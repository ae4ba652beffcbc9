// What the insiders stage keeps between scans and its settings, apart from the stage so the scan's
// context can name them without importing the stage.

/** What the book keeps for a wallet: its first funder (null when its oldest transaction is no SOL transfer into it). */
export interface FunderRecord {
  readonly wallet: string
  readonly funder: string | null
  readonly signature: string | null
  readonly fundedSlot: number | null
  readonly lamports: string | null
  /** The slot the scan that read it was pinned at. */
  readonly readSlot: number
}

/** Where first funders are kept between scans. */
export interface FunderBook {
  readonly lookup: (wallets: ReadonlyArray<string>) => Promise<ReadonlyMap<string, FunderRecord>>
  readonly remember: (records: ReadonlyArray<FunderRecord>) => Promise<void>
}

/** A book in memory (one process; tests and `risk-api scan` without a database). */
export const memoryFunderBook = (): FunderBook & { readonly records: Map<string, FunderRecord> } => {
  const records = new Map<string, FunderRecord>()
  return {
    records,
    lookup: async (wallets) =>
      new Map(wallets.flatMap((wallet) => (records.has(wallet) ? [[wallet, records.get(wallet)!] as const] : []))),
    remember: async (rows) => {
      for (const row of rows) if (!records.has(row.wallet)) records.set(row.wallet, row)
    }
  }
}

export interface InsiderSettings {
  /** RPC calls the funders stage may make per scan, both hops (two a wallet). */
  readonly funderCalls: number
  readonly launchWindowSlots: number
  readonly launchTransactions: number
}

export const defaultInsiderSettings: InsiderSettings = {
  funderCalls: 40,
  launchWindowSlots: 10,
  launchTransactions: 25
}
