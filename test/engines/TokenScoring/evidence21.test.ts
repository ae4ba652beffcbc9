import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { notApplicable, observed, ScanEvidenceV2 } from "../../../src/domain/EvidenceV2.ts"
import { upgradeV1 } from "../../../src/domain/EvidenceUpgrade.ts"
import { scoringView } from "../../../src/domain/EvidenceView.ts"
import { assessToken } from "../../../src/engines/TokenScoring/index.ts"
import { ADDRESSES, evidenceWith, hoursAfterScan, WALLETS } from "./fixtures.ts"

// Model 2.1's evidence items that need no new scanner reads: a scheduled fee with its epoch, token-lock unlock
// times, the transfer hook program's upgradeability, the copycat check as an observed fact. Each from v2 through
// the scoring view to the answer.
const t22 = { tokenProgram: "token-2022" as const }
const clean = { nonTransferable: false, defaultAccountStateFrozen: false }
const v2Of = (patch: Parameters<typeof evidenceWith>[0]) => upgradeV1(evidenceWith(patch))
const roundTrip = (scan: ScanEvidenceV2) =>
  Schema.decodeUnknownSync(ScanEvidenceV2)(Schema.encodeSync(ScanEvidenceV2)(scan))

describe("a scheduled transfer fee", () => {
  const scan = roundTrip({
    ...v2Of({ ...t22, extensions: clean }),
    transferFee: observed({
      bps: 100,
      maxFee: "5000",
      configAuthority: null,
      withdrawAuthority: null,
      scheduledBps: 3_000,
      scheduledEpoch: 812
    })
  })
  const assessment = assessToken(scoringView(scan))

  test("is reported as the fee now and the fee from its epoch, not as the current fee", () => {
    expect(assessment.risks).toContain("Token-2022 transfer fee of 1% now, 30% from epoch 812 on every transfer")
    expect(assessment.risks).toContain(
      "Sell tax of 30% (transfer fee 30% (1% now, 30% from epoch 812) + trading tax 0%)"
    )
  })

  test("counts at the higher rate in the taxes (Severe Tax)", () => {
    expect(assessment.hardCaps).toContain("Severe Tax:29")
  })

  test("a fee with nothing scheduled reads as before", () => {
    const plain = assessToken(
      scoringView(
        roundTrip({
          ...v2Of({ ...t22, extensions: clean }),
          transferFee: observed({
            bps: 100,
            maxFee: "5000",
            configAuthority: null,
            withdrawAuthority: null,
            scheduledBps: null
          })
        })
      )
    )
    expect(plain.risks).toContain("Token-2022 transfer fee of 1% on every transfer")
  })

  test("survives v1 and back", () => {
    expect(scoringView(upgradeV1(scoringView(scan))).extensions).toMatchObject({
      transferFeeBps: 3_000,
      transferFeeNowBps: 100,
      transferFeeScheduledEpoch: 812
    })
  })
})

describe("a token lock's unlock time", () => {
  const locked = (unlockAt: string | null) => {
    const base = v2Of({})
    const top = base.holders.top.status === "observed" ? base.holders.top.value : []
    return roundTrip({
      ...base,
      holders: {
        ...base.holders,
        top: observed([
          ...top,
          {
            address: ADDRESSES[5]!,
            tokenAccount: null,
            amount: null,
            pct: 40,
            kind: "locker",
            label: "team vesting",
            labelSource: "test",
            unlockAt
          }
        ])
      }
    })
  }

  test("a lock releasing within 7 days counts toward concentration", () => {
    const soon = assessToken(scoringView(locked(hoursAfterScan(48))))
    expect(soon.flags).toContain("single_holder_concentration")
    expect(soon.flags).toContain("top10_concentration")
  })

  test("a lock releasing later, or with no unlock time, stays excluded", () => {
    expect(assessToken(scoringView(locked(hoursAfterScan(24 * 90)))).flags).toEqual([])
    expect(assessToken(scoringView(locked(null))).flags).toEqual([])
  })
})

describe("the transfer hook program", () => {
  const hooked = (program: ScanEvidenceV2["transferHookProgram"]) => {
    const base = v2Of({ ...t22, trading: { isHoneypot: false }, extensions: { ...clean, transferHook: WALLETS[1] } })
    return assessToken(scoringView(roundTrip(program === undefined ? base : { ...base, transferHookProgram: program })))
  }

  test("immutable: the hook costs its points without the cap", () => {
    const answer = hooked(observed({ programId: ADDRESSES[1]!, upgradeable: false, upgradeAuthority: null }))
    expect(answer.hardCaps).toEqual([])
    expect(answer.risks).toContain(
      "Transfer hook runs a custom program on every transfer and can block sells (its program is immutable)"
    )
  })

  test("upgradeable, or not read: capped at 59, naming who can change it", () => {
    const upgradeable = hooked(
      observed({ programId: ADDRESSES[1]!, upgradeable: true, upgradeAuthority: ADDRESSES[2]! })
    )
    expect(upgradeable.hardCaps).toEqual(["Transfer Hook:59"])
    expect(upgradeable.scoreBreakdown[0]!.reason).toContain("its program is upgradeable by HN7c…YWrH")
    expect(hooked(undefined).hardCaps).toEqual(["Transfer Hook:59"])
    expect(hooked(notApplicable("not read")).hardCaps).toEqual(["Transfer Hook:59"])
  })
})

describe("the copycat check", () => {
  test("observed null says: checked, not a copycat; it decodes and scores as no copycat", () => {
    const checked = roundTrip({ ...v2Of({}), copycatOf: observed(null) })
    expect(checked.copycatOf).toEqual({ status: "observed", value: null })
    expect(assessToken(scoringView(checked)).flags).toEqual([])
  })
})
