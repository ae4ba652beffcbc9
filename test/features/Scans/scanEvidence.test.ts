import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { generateDemoDataset } from "../../../src/features/Demo/generate.ts"
import { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { cleanScan, newAddress } from "../../support/fixtures.ts"

// ScanCache stores the encoded form of decoded evidence and reads it back without decoding, which is
// only sound while the stored form equals the decoded form. This holds that invariant.
const decode = Schema.decodeUnknownSync(ScanEvidence)
const encode = Schema.encodeSync(ScanEvidence)

describe("stored scan form", () => {
  test("the encoded form of decoded evidence is the decoded value itself", () => {
    const { scans } = generateDemoDataset({ now: new Date("2026-11-22T12:00:00Z"), tokens: 60 })
    for (const raw of [
      ...scans,
      cleanScan(newAddress()),
      { mint: newAddress(), scannedAt: "2026-11-22T10:00:00+02:00" }
    ]) {
      const decoded = decode(raw)
      expect(JSON.parse(JSON.stringify(encode(decoded)))).toEqual(JSON.parse(JSON.stringify(decoded)))
    }
  })

  test("timestamps are normalised to UTC and must be ISO 8601 with a zone", () => {
    const mint = newAddress()
    expect(decode({ mint, scannedAt: "2026-11-22T10:00:00+02:00" }).scannedAt).toBe("2026-11-22T08:00:00.000Z")
    expect(() => decode({ mint, scannedAt: "Nov 22 2026" })).toThrow("not an ISO 8601 timestamp")
    expect(() => decode({ mint, scannedAt: "2026-11-22T10:00:00" })).toThrow("not an ISO 8601 timestamp")
  })
})
