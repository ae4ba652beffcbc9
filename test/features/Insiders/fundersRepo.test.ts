import { describe, expect } from "bun:test"
import { Effect } from "effect"
import { makeFundersRepo } from "../../../src/features/Insiders/FundersRepo.ts"
import { TestDatabase } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"

// wallet_funders: a wallet's first funder is written once and never overwritten; lookups answer only
// the wallets asked for; a wallet with no funder (its oldest transaction is no transfer into it) is kept too.

const { it } = runtimeFor(TestDatabase)

describe("funders repo", () => {
  it("keeps the first row of a wallet, answers lookups and lists a funder's wallets", () =>
    Effect.gen(function* () {
      const repo = yield* makeFundersRepo
      yield* repo.remember([
        { wallet: "w1", funder: "f1", signature: "s1", fundedSlot: 10, lamports: "1000000000", readSlot: 100 },
        {
          wallet: "w2",
          funder: "f1",
          signature: "s2",
          fundedSlot: 11,
          lamports: "18446744073709551615",
          readSlot: 100
        },
        { wallet: "w3", funder: null, signature: "s3", fundedSlot: 12, lamports: null, readSlot: 100 },
        { wallet: "w3", funder: "twice in one batch", signature: null, fundedSlot: null, lamports: null, readSlot: 1 }
      ])
      // A later read never replaces the first.
      yield* repo.remember([
        { wallet: "w1", funder: "other", signature: "x", fundedSlot: 99, lamports: "1", readSlot: 200 }
      ])
      const found = yield* repo.lookup(["w1", "w2", "w3", "unknown"])
      expect([...found.keys()].sort()).toEqual(["w1", "w2", "w3"])
      expect(found.get("w1")).toEqual({
        wallet: "w1",
        funder: "f1",
        signature: "s1",
        fundedSlot: 10,
        lamports: "1000000000",
        readSlot: 100
      })
      expect(found.get("w2")?.lamports).toBe("18446744073709551615")
      expect(found.get("w3")).toMatchObject({ funder: null, lamports: null, signature: "s3" })
      expect((yield* repo.lookup([])).size).toBe(0)
      expect((yield* repo.fundedBy("f1")).map((row) => row.wallet)).toEqual(["w1", "w2"])
    }))
})
