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

/** One launch-window transaction as the stage keeps it: its slot, and each owner's change in the mint with its token account. */
export interface LaunchRecord {
  readonly signature: string
  readonly slot: bigint
  readonly changes: ReadonlyArray<{ readonly owner: string; readonly change: bigint; readonly account: string | null }>
}

/** Where a mint's launch window is kept between scans, keyed by the window's signatures (a changed window is read again). */
export interface LaunchMemory {
  readonly get: (mint: string, signatures: ReadonlyArray<string>) => ReadonlyArray<LaunchRecord> | undefined
  readonly set: (mint: string, signatures: ReadonlyArray<string>, records: ReadonlyArray<LaunchRecord>) => void
}

/** A launch memory in this process, the `capacity` mints last used (a few records each). */
export const memoryLaunches = (capacity: number): LaunchMemory => {
  const entries = new Map<string, { readonly key: string; readonly records: ReadonlyArray<LaunchRecord> }>()
  return {
    get: (mint, signatures) => {
      const entry = entries.get(mint)
      if (entry === undefined || entry.key !== signatures.join(",")) return undefined
      entries.delete(mint)
      entries.set(mint, entry)
      return entry.records
    },
    set: (mint, signatures, records) => {
      entries.delete(mint)
      entries.set(mint, { key: signatures.join(","), records })
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break
        entries.delete(oldest)
      }
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
