import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { riskCheckOf } from "../../../src/features/RiskCheck/Answer.ts"

// The README's "Demo mints" table is what a new user tries first: each mint must answer what the table says,
// from the data `npm start` seeds (300 tokens, seed 42: src/features/Demo/seed.ts), at the moment it was seeded.

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
const section = readme.slice(readme.indexOf("### Demo mints"), readme.indexOf("## Routes"))
const rows = [...section.matchAll(/^\| `([1-9A-HJ-NP-Za-km-z]{32,44})` \| (.+) \|$/gm)].map(([, mint, said]) => ({
  mint: mint!,
  said: said!
}))
const now = Date.now()
const dataset = generateDemoDataset({ now: new Date(now), tokens: 300, seed: 42 })

describe("the README's demo mints", () => {
  test("the table lists the showcase", () => {
    expect(rows.length).toBeGreaterThanOrEqual(15)
  })

  test.each(rows)("$mint answers what the README says ($said)", ({ mint, said }) => {
    const scans = dataset.scans.filter((scan) => scan.mint === mint)
    const latest = scans.toSorted((a, b) => Date.parse(b.scannedAt) - Date.parse(a.scannedAt))[0]
    const result = riskCheckOf(
      mint,
      latest === undefined ? undefined : { id: "0", evidence: latest as ScanEvidence },
      now,
      0
    )
    const verdict =
      /`(ok|warn|block|unknown)`/.exec(said)?.[1] ??
      (said.includes("honeypot") || said.includes("rug") ? "block" : undefined)
    if (verdict !== undefined && !said.includes("rugged token"))
      expect(result.verdict).toBe(verdict as typeof result.verdict)
    for (const freshness of ["stale", "cold"] as const) {
      if (said.includes(`\`${freshness}\``)) expect(result.freshness).toBe(freshness)
    }
    if (said.includes("never scanned")) expect(latest).toBeUndefined()
    else expect(latest).toBeDefined()
  })
})
