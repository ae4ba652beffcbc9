import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { generateDemoDataset } from "../../src/features/Demo/generate.ts"
import { notApplicable, notObserved, observed, ScanEvidenceV2 } from "../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../src/domain/EvidenceUpgrade.ts"
import { scoringView } from "../../src/domain/EvidenceView.ts"
import { ScanEvidence } from "../../src/domain/ScanEvidence.ts"

const demo = generateDemoDataset({ now: new Date("2026-11-20T00:00:00Z"), seed: 42, tokens: 300 }).scans.map((raw) =>
  Schema.decodeUnknownSync(ScanEvidence)(raw)
)
const encodeV2 = Schema.encodeSync(ScanEvidenceV2)
const decodeV2 = Schema.decodeUnknownSync(ScanEvidenceV2)

describe("evidence v2", () => {
  test("every demo scan upgrades to a valid v2 document that survives encode and decode", () => {
    for (const scan of demo) {
      const document = upgradeV1(scan)
      const json = JSON.stringify(encodeV2(document))
      expect(JSON.stringify(encodeV2(decodeV2(JSON.parse(json))))).toBe(json)
    }
  })

  test("the scoring view of an upgraded v1 scan is the v1 scan, except Token-2022 extension flags v1 left unknown", () => {
    let compared = 0
    for (const scan of demo) {
      const view = scoringView(upgradeV1(scan))
      // An observed v2 extension list is complete, so v1's "unknown" for these two flags reads as absent
      // (docs/scan-evidence.md, "From v1"). Stored v1 imports keep their own view; scores do not move.
      const expected =
        scan.tokenProgram === "token-2022"
          ? {
              ...scan,
              extensions: {
                ...scan.extensions,
                nonTransferable: scan.extensions.nonTransferable ?? false,
                defaultAccountStateFrozen: scan.extensions.defaultAccountStateFrozen ?? false
              }
            }
          : scan
      expect(view).toEqual(expected)
      compared++
    }
    expect(compared).toBeGreaterThan(700)
  })

  test("not_observed facts read as unknown (null), not as safe", () => {
    const base = upgradeV1(demo.find((scan) => scan.tokenProgram === "token-2022")!)
    const blind = scoringView({
      ...base,
      token: { ...base.token, mintAuthority: notObserved("rpc timeout"), freezeAuthority: notObserved("rpc timeout") },
      extensions: notObserved("rpc timeout"),
      transferFee: notObserved("rpc timeout")
    })
    expect(blind.mintAuthority).toBeNull()
    expect(blind.extensions.transferFeeBps).toBeNull()
    expect(blind.extensions.nonTransferable).toBeNull()
    expect(blind.extensions.defaultAccountStateFrozen).toBeNull()
  })

  test("a transfer fee scheduled for a later epoch counts at the higher of the two rates", () => {
    const base = upgradeV1(demo.find((scan) => scan.tokenProgram === "token-2022")!)
    const view = scoringView({
      ...base,
      transferFee: observed({
        bps: 100,
        maxFee: "5000",
        configAuthority: null,
        withdrawAuthority: null,
        scheduledBps: 900
      })
    })
    expect(view.extensions.transferFeeBps).toBe(900)
    expect(scoringView({ ...base, transferFee: notApplicable("no TransferFeeConfig") }).extensions.transferFeeBps).toBe(
      0
    )
  })

  test("unknown fields and malformed facts are refused", () => {
    const encoded = encodeV2(upgradeV1(demo[0]!)) as Record<string, unknown>
    expect(() => decodeV2({ ...encoded, surprise: 1 })).toThrow()
    expect(() => decodeV2({ ...encoded, honeypot: { status: "observed" } })).toThrow()
    expect(() => decodeV2({ ...encoded, honeypot: { status: "maybe", reason: "x" } })).toThrow()
    expect(() => decodeV2({ ...encoded, version: 3 })).toThrow()
  })
})
