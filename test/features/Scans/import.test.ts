import { describe, expect } from "bun:test"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { WalletRepo } from "../../../src/features/WalletRisk/WalletRepo.ts"
import { Effect, Layer, Option, Schema, Stream } from "effect"
import { observed, ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { importScans } from "../../../src/features/Scans/Import.ts"
import { importWalletEvidence } from "../../../src/features/WalletRisk/Import.ts"
import { TestDatabase, databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, minutesAgo, newAddress } from "../../support/fixtures.ts"

const { it } = runtimeFor(Layer.mergeAll(ScansRepo.Default, WalletRepo.Default).pipe(Layer.provideMerge(TestDatabase)))
const lines = (...text: ReadonlyArray<string>) => Stream.fromIterable(text)

describe(`NDJSON import on ${databaseKind}`, () => {
  it("stores valid lines, reports each invalid line with its number and reason", () =>
    Effect.gen(function* () {
      const [a, b] = [newAddress(), newAddress()]
      const report = yield* importScans(
        lines(
          JSON.stringify(cleanScan(a)),
          "{not json",
          "",
          JSON.stringify({ ...cleanScan(b), mint: "0xdeadbeef" }),
          JSON.stringify({ ...cleanScan(b), trading: { isHoneypot: "yes", buyTax: 0, sellTax: 0 } }),
          JSON.stringify({ ...cleanScan(b), surprise: 1 }),
          JSON.stringify(cleanScan(b, { scannedAt: minutesAgo(3) }))
        )
      )
      expect({
        lines: report.lines,
        inserted: report.inserted,
        duplicates: report.duplicates,
        invalid: report.invalid
      }).toEqual({ lines: 7, inserted: 2, duplicates: 0, invalid: 4 })
      expect(report.errors.map((error) => error.line)).toEqual([2, 4, 5, 6])
      expect(report.errors[0]!.reason).toStartWith("not JSON")
      expect(report.errors[1]!.reason).toStartWith("mint: ")
      expect(report.errors[2]!.reason).toContain("trading.isHoneypot")
      expect(report.errors[3]!.reason).toContain("surprise")
      expect(Option.isSome(yield* ScansRepo.latest(b))).toBe(true)
    }))

  it("a NUL character or a scan dated in the future is a line error; the rest of the batch is stored", () =>
    Effect.gen(function* () {
      const [a, b, c] = [newAddress(), newAddress(), newAddress()]
      const report = yield* importScans(
        lines(
          JSON.stringify(cleanScan(a, { name: "Evil\u0000Token" })),
          JSON.stringify(cleanScan(b, { scannedAt: new Date(Date.now() + 3_600_000).toISOString() })),
          JSON.stringify(cleanScan(c))
        )
      )
      expect({ inserted: report.inserted, lines: report.errors.map((error) => error.line) }).toEqual({
        inserted: 1,
        lines: [1, 2]
      })
      expect(report.errors[0]!.reason).toContain("NUL")
      expect(report.errors[1]!.reason).toStartWith("scannedAt: ")
      expect(report.errors[1]!.reason).toContain("in the future")
      expect(Option.isSome(yield* ScansRepo.latest(c))).toBe(true)
    }))

  it("a claim to be issuer-verified without a match on the curated list is stored as not verified and counted", () =>
    Effect.gen(function* () {
      const [v1Claim, v2Claim] = [newAddress(), newAddress()]
      const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
      const v2 = Schema.encodeSync(ScanEvidenceV2)(
        upgradeV1(Schema.decodeUnknownSync(ScanEvidence)(cleanScan(v2Claim, { verified: true })))
      )
      const report = yield* importScans(
        lines(
          JSON.stringify(cleanScan(v1Claim, { verified: true })),
          JSON.stringify(v2),
          JSON.stringify(cleanScan(USDC, { verified: true, scannedAt: minutesAgo(4) }))
        )
      )
      expect({ inserted: report.inserted, unverifiedIssuerClaims: report.unverifiedIssuerClaims }).toEqual({
        inserted: 3,
        unverifiedIssuerClaims: 2
      })
      const verifiedOf = (mint: string) =>
        Effect.map(ScansRepo.latest(mint as never), (scan) => Option.map(scan, (found) => found.evidence.verified))
      expect([yield* verifiedOf(v1Claim), yield* verifiedOf(v2Claim), yield* verifiedOf(USDC)]).toEqual([
        Option.some(false),
        Option.some(false),
        Option.some(true)
      ])
    }))

  it("re-importing the same lines changes nothing", () =>
    Effect.gen(function* () {
      const file = [JSON.stringify(cleanScan(newAddress())), JSON.stringify(cleanScan(newAddress()))]
      const first = yield* importScans(lines(...file))
      const second = yield* importScans(lines(...file))
      expect([first.inserted, second.inserted, second.duplicates]).toEqual([2, 0, 2])
    }))

  it("the same scan with its keys reordered or defaults spelled out is still a duplicate", () =>
    Effect.gen(function* () {
      const mint = newAddress()
      const minimal = { mint, scannedAt: minutesAgo(2), symbol: "MIN" }
      const spelled = { symbol: "MIN", scanDepth: "full", source: "cached_scan", scannedAt: minimal.scannedAt, mint }
      const report = yield* importScans(lines(JSON.stringify(minimal), JSON.stringify(spelled)))
      expect([report.inserted, report.duplicates]).toEqual([1, 1])
    }))

  it(
    "a large file is imported in batches",
    () =>
      Effect.gen(function* () {
        const many = Array.from({ length: 1_201 }, () => JSON.stringify(cleanScan(newAddress())))
        const report = yield* importScans(lines(...many))
        expect([report.inserted, report.invalid]).toEqual([1_201, 0])
      }),
    60_000
  )
})

describe(`wallet evidence import on ${databaseKind}`, () => {
  const label = (address: string, observedAt: string, severity = "high") =>
    JSON.stringify({
      type: "label",
      address,
      label: "scam",
      category: "fraud",
      severity,
      source: "manual_review",
      observedAt
    })
  const exposure = (wallet: string, counterparty: string, lastSeenAt: string, exposureAmountUsd: number) =>
    JSON.stringify({
      type: "exposure",
      walletAddress: wallet,
      counterpartyAddress: counterparty,
      category: "scam",
      direction: "outbound",
      exposureType: "transfer",
      hopDistance: 1,
      exposureAmountUsd,
      exposurePct: 10,
      txCount: 2,
      lastSeenAt
    })

  it("stores labels and exposures, reports bad lines by number, and is idempotent", () =>
    Effect.gen(function* () {
      const [wallet, counterparty] = [newAddress(), newAddress()]
      const file = [
        label(counterparty, minutesAgo(60)),
        exposure(wallet, counterparty, minutesAgo(30), 5_000),
        JSON.stringify({ type: "label", address: counterparty }),
        JSON.stringify({ type: "rumour", address: counterparty }),
        label(counterparty, minutesAgo(60), "extreme")
      ]
      const first = yield* importWalletEvidence(lines(...file))
      const again = yield* importWalletEvidence(lines(...file))
      expect({ inserted: first.inserted, invalid: first.errors.map((error) => error.line) }).toEqual({
        inserted: 2,
        invalid: [3, 4, 5]
      })
      expect([again.inserted, again.duplicates]).toEqual([0, 2])
      expect((yield* WalletRepo.exposuresOf(wallet)).map((e) => e.exposureAmountUsd)).toEqual([5_000])
    }))

  it("a newer observation of the same exposure replaces the older one; an older one changes nothing", () =>
    Effect.gen(function* () {
      const [wallet, counterparty] = [newAddress(), newAddress()]
      yield* importWalletEvidence(lines(exposure(wallet, counterparty, minutesAgo(30), 5_000)))
      const newer = yield* importWalletEvidence(lines(exposure(wallet, counterparty, minutesAgo(10), 9_000)))
      const older = yield* importWalletEvidence(lines(exposure(wallet, counterparty, minutesAgo(90), 1_000)))
      expect([newer.inserted, older.inserted]).toEqual([1, 0])
      expect((yield* WalletRepo.exposuresOf(wallet)).map((e) => e.exposureAmountUsd)).toEqual([9_000])
    }))
})

describe(`NDJSON import of evidence format v2 on ${databaseKind}`, () => {
  it("a v2 line is stored whole; its scoring view is what the routes read; v1 lines get an upgraded v2 document", () =>
    Effect.gen(function* () {
      const [v1Mint, v2Mint] = [newAddress(), newAddress()]
      const v1Raw = cleanScan(v1Mint)
      const v1 = Schema.decodeUnknownSync(ScanEvidence)(v1Raw)
      const v2 = {
        ...upgradeV1(Schema.decodeUnknownSync(ScanEvidence)(cleanScan(v2Mint))),
        provenance: { scanner: "elsewhere/1", slot: 300_000_000, rpcCalls: 6, durationMs: 12, partial: [] }
      }
      const v2Line = JSON.stringify(Schema.encodeSync(ScanEvidenceV2)({ ...v2, honeypot: observed(true) }))
      const report = yield* importScans(
        lines(
          JSON.stringify(v1Raw),
          v2Line,
          v2Line,
          JSON.stringify({ ...JSON.parse(v2Line), honeypot: { status: "observed" } }),
          JSON.stringify({
            ...JSON.parse(v2Line),
            token: { ...JSON.parse(v2Line).token, createdAt: { status: "observed", value: "2099-01-01T00:00:00Z" } }
          })
        )
      )
      expect({ inserted: report.inserted, duplicates: report.duplicates, invalid: report.invalid }).toEqual({
        inserted: 2,
        duplicates: 1,
        invalid: 2
      })
      expect(report.errors[0]!.reason).toContain("honeypot")
      expect(report.errors[1]!.reason).toContain("token.createdAt")
      const stored = Option.getOrThrow(yield* ScansRepo.latest(v2Mint))
      expect(stored.evidence.trading.isHoneypot).toBe(true)
      const document = Option.getOrThrow(yield* ScansRepo.latestDocument(v2Mint))
      expect(document.provenance.scanner).toBe("elsewhere/1")
      const upgraded = Option.getOrThrow(yield* ScansRepo.latestDocument(v1Mint))
      expect(upgraded.provenance.upgradedFrom).toBe(1)
      expect(Option.getOrThrow(yield* ScansRepo.latest(v1Mint)).evidence).toEqual(v1)
    }))
})
