import { describe, expect, test } from "bun:test"
import { Glob } from "bun"

// One owner per table (docs/architecture.md, "Table owners"): a table's SQL is written only in its owning
// feature's folder. Another feature reads it through the owner's repository, or embeds a statement the
// owner's repository exports; a need the owner cannot import (a cycle) is a service tag the needing
// feature defines and the owner provides (Scans' RetentionFloor, Watches' NotifyEndpoints).
const OWNERS: Readonly<Record<string, string>> = {
  scans: "src/features/Scans/",
  scans_pruned: "src/features/Scans/",
  scans_default: "src/features/Scans/",
  scans_partitioning: "src/features/Scans/",
  latest_scans: "src/features/Scans/",
  scan_requests: "src/features/Scans/",
  mint_reads: "src/features/Scans/",
  listings: "src/features/Scans/",
  accounts: "src/features/Accounts/",
  api_keys: "src/features/Accounts/",
  quota_usage: "src/features/Accounts/",
  rate_windows: "src/features/Accounts/",
  quota_reservations: "src/features/Accounts/",
  public_usage: "src/features/Accounts/",
  wallet_labels: "src/features/WalletRisk/",
  wallet_exposures: "src/features/WalletRisk/",
  watches: "src/features/Watches/",
  watch_slots: "src/features/Watches/",
  webhook_endpoints: "src/features/Webhooks/",
  watch_alert_states: "src/features/Webhooks/",
  webhook_scan_cursor: "src/features/Webhooks/",
  webhook_events: "src/features/Webhooks/",
  webhook_attempts: "src/features/Webhooks/",
  market_figures: "src/features/Market/",
  stream_events: "src/workers/Stream/",
  wallet_funders: "src/features/Insiders/"
}

const root = `${import.meta.dir}/../..`
const read = (path: string) => Bun.file(`${root}/${path}`).text()
const filesUnder = (pattern: string) => [...new Glob(pattern).scanSync({ cwd: root })].sort()

// A table named where SQL names one: after from, join, into, update, table (lock table, alter table) or a
// comma in a from list; comments are left out, so prose about scans is not a reference.
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1")
const referencesIn = (text: string, table: string) =>
  new RegExp(
    `\\b(from|join|into|update|table|exists)\\s+(\\(\\s*select\\s+1\\s+from\\s+)?${table}\\b(?!\\.)`,
    "i"
  ).test(withoutComments(text))

describe("table owners", () => {
  test("every table the migrations create has an owner", async () => {
    const created = new Set<string>()
    for (const file of filesUnder("sql/*.sql")) {
      for (const match of (await read(file)).matchAll(/create table (?:if not exists )?([a-z_]+)/gi)) {
        created.add(match[1]!)
      }
    }
    expect(created.size).toBeGreaterThan(0)
    expect([...created].filter((table) => OWNERS[table] === undefined)).toEqual([])
  })

  test("each owner's folder names its tables (the check sees SQL)", async () => {
    const sources = await Promise.all(filesUnder("src/**/*.ts").map(async (path) => ({ path, text: await read(path) })))
    const unseen = Object.entries(OWNERS).filter(
      ([table, owner]) => !sources.some(({ path, text }) => path.startsWith(owner) && referencesIn(text, table))
    )
    expect(unseen.map(([table]) => table)).toEqual([])
  })

  test("no file outside a table's owner names the table in SQL", async () => {
    const outside: Array<string> = []
    for (const path of filesUnder("src/**/*.ts")) {
      const text = await read(path)
      for (const [table, owner] of Object.entries(OWNERS)) {
        if (!path.startsWith(owner) && referencesIn(text, table)) outside.push(`${path}: ${table}`)
      }
    }
    expect(outside).toEqual([])
  })

  test("the check finds a reference it must refuse", () => {
    expect(referencesIn("select count(*) from scans where mint = $1", "scans")).toBe(true)
    expect(referencesIn("lock table scans in share mode", "scans")).toBe(true)
    expect(referencesIn("exists (select 1 from watches w where w.mint = s.mint)", "watches")).toBe(true)
    expect(referencesIn("// reads from scans", "scans")).toBe(false)
    expect(referencesIn("const scans = yield* sql`select 1`", "scans")).toBe(false)
  })
})
