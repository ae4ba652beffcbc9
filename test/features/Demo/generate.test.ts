import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { isSolanaAddress } from "../../../src/domain/Address.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { freshnessOf, verdictOf } from "../../../src/domain/Verdict.ts"
import { generateDemoDataset, MIN_DEMO_TOKENS } from "../../../src/features/Demo/generate.ts"
import { USDC_MINT } from "../../../src/features/Demo/showcase.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"

const now = new Date("2026-11-22T12:00:00.000Z")
const dataset = generateDemoDataset({ now })
const decode = Schema.decodeUnknownSync(ScanEvidence)
const evidences = dataset.scans.map((scan) => decode(scan))

const historyOf = (mint: string) => evidences.filter((evidence) => evidence.mint === mint)
const latestByMint = new Map(evidences.map((evidence) => [evidence.mint as string, evidence]))

const cellOf = (evidence: ScanEvidence) => {
  const ageSeconds = (now.getTime() - Date.parse(evidence.scannedAt)) / 1000
  return `${verdictOf(assessToken(evidence).safetyScore)}_${freshnessOf(ageSeconds)}`
}

const showcaseLatest = (key: string) => {
  const evidence = latestByMint.get(dataset.showcase[key] ?? "")
  if (evidence === undefined) throw new Error(`showcase ${key} has no scan`)
  return { evidence, assessment: assessToken(evidence), cell: cellOf(evidence) }
}

describe("the demo dataset", () => {
  test("is the same for the same now, seed and size", () => {
    expect(Bun.deepEquals(generateDemoDataset({ now, seed: 42, tokens: 300 }), dataset)).toBe(true)
    const other = generateDemoDataset({ now, seed: 7, tokens: 40 })
    expect(Bun.deepEquals(generateDemoDataset({ now, seed: 7, tokens: 40 }), other)).toBe(true)
    expect(other.scans[0]).not.toEqual(dataset.scans[0])
  })

  test("has every scan decode, ordered by scan time", () => {
    expect(evidences.length).toBe(dataset.scans.length)
    const times = dataset.scans.map((scan) => scan.scannedAt)
    expect(times).toEqual([...times].sort())
  })

  test("has the requested number of tokens, each with 1 to 4 scans after its creation", () => {
    expect(latestByMint.size).toBe(300)
    const odd = [...latestByMint.keys()].flatMap((mint) => {
      const history = historyOf(mint)
      const created = history[0]?.createdAt
      const beforeCreation =
        created === null || created === undefined
          ? []
          : history.filter((evidence) => Date.parse(evidence.scannedAt) < Date.parse(created))
      return history.length < 1 || history.length > 4 || beforeCreation.length > 0
        ? [{ mint, scans: history.length }]
        : []
    })
    expect(odd).toEqual([])
  })

  test("covers every verdict x freshness cell with latest scans", () => {
    const cells = new Map<string, number>()
    for (const evidence of latestByMint.values()) cells.set(cellOf(evidence), (cells.get(cellOf(evidence)) ?? 0) + 1)
    const expected = ["ok", "warn", "block"].flatMap((verdict) =>
      ["fresh", "stale", "cold"].map((band) => `${verdict}_${band}`)
    )
    expect(expected.filter((cell) => (cells.get(cell) ?? 0) === 0)).toEqual([])
  })

  test("keeps fresh scans at most 2 minutes old", () => {
    const fresh = [...latestByMint.values()].filter((evidence) => cellOf(evidence).endsWith("_fresh"))
    const oldest = Math.max(...fresh.map((evidence) => now.getTime() - Date.parse(evidence.scannedAt)))
    expect(oldest).toBeLessThanOrEqual(120_000)
  })

  test("lists never-scanned addresses that are valid and absent from the scans", () => {
    expect(dataset.neverScanned.length).toBe(10)
    expect(dataset.neverScanned.filter((address) => !isSolanaAddress(address) || latestByMint.has(address))).toEqual([])
    expect(new Set(dataset.neverScanned).size).toBe(10)
    expect(dataset.neverScanned).toContain(dataset.showcase.never_scanned ?? "missing")
  })

  test("rejects a size too small to fill the showcase", () => {
    expect(() => generateDemoDataset({ now, tokens: MIN_DEMO_TOKENS - 1 })).toThrow(RangeError)
  })
})

describe("showcase tokens score as named", () => {
  for (const cell of ["ok_fresh", "warn_fresh", "block_fresh", "ok_stale", "warn_stale", "ok_cold", "block_cold"]) {
    test(cell, () => {
      expect(showcaseLatest(cell).cell).toBe(cell)
    })
  }

  test("honeypot", () => {
    const { assessment, cell } = showcaseLatest("honeypot")
    expect([cell, assessment.flags.includes("honeypot"), assessment.hardCaps.includes("Honeypot:5")]).toEqual([
      "block_fresh",
      true,
      true
    ])
  })

  test("verified_stablecoin keeps mint and freeze authority and is ok", () => {
    const { evidence, assessment, cell } = showcaseLatest("verified_stablecoin")
    expect(dataset.showcase.verified_stablecoin).toBe(USDC_MINT)
    expect([evidence.verified, evidence.mintAuthority !== null, evidence.freezeAuthority !== null]).toEqual([
      true,
      true,
      true
    ])
    expect(cell).toBe("ok_fresh")
    expect(assessment.flags.filter((flag) => flag.endsWith("_authority_active"))).toEqual([])
  })

  test("amm_vault_holders: pool and locker accounts on top, no concentration penalty", () => {
    const { evidence, assessment, cell } = showcaseLatest("amm_vault_holders")
    expect(evidence.holders.top.slice(0, 2).map((holder) => holder.kind)).toEqual(["pool", "locker"])
    expect(assessment.facets.ownership).toBe(100)
    expect(cell).toBe("ok_fresh")
  })

  test("token2022_fee_delegate: Token-2022 with a transfer fee and a permanent delegate", () => {
    const { evidence, assessment } = showcaseLatest("token2022_fee_delegate")
    expect(evidence.tokenProgram).toBe("token-2022")
    expect(assessment.flags.filter((flag) => flag === "transfer_fee" || flag === "permanent_delegate")).toEqual([
      "permanent_delegate",
      "transfer_fee"
    ])
  })

  test("serial_rugger_token: a deployer with prior rugs is capped", () => {
    const { evidence, assessment, cell } = showcaseLatest("serial_rugger_token")
    expect(evidence.deployer.priorRugs).toBeGreaterThanOrEqual(2)
    expect(assessment.hardCaps).toContain("Serial Rugger:20")
    expect(cell).toStartWith("block_")
  })

  test("rugged: the latest scan saw the rug, earlier ones did not", () => {
    const history = historyOf(dataset.showcase.rugged ?? "")
    const { assessment, cell } = showcaseLatest("rugged")
    expect(assessment.hardCaps).toContain("Rugged:5")
    expect(cell).toBe("block_cold")
    expect(history.length).toBeGreaterThan(1)
    expect(history.slice(0, -1).filter((evidence) => evidence.outcome === "rugged")).toEqual([])
  })

  test("never_scanned has no scan", () => {
    expect(latestByMint.has(dataset.showcase.never_scanned ?? "")).toBe(false)
  })
})
