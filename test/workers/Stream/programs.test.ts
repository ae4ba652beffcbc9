import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { getBase58Decoder } from "@solana/kit"
import { eventsOf, type TransactionView } from "../../../src/workers/Stream/Decode.ts"
import {
  EVENT_IX_TAG,
  EVENTS,
  INSTRUCTIONS,
  PUMP,
  PUMP_AMM,
  stateKindOf,
  worthReading
} from "../../../src/workers/Stream/Programs.ts"

// The stream's program table against the programs' public IDLs (pump-fun/pump-public-docs, vendored cut
// in test/support/solana/idl/): each discriminator computed from its name is the IDL's, and each account
// index names the account the IDL puts there.

interface IdlJson {
  readonly address: string
  readonly instructions: ReadonlyArray<{
    readonly name: string
    readonly discriminator: ReadonlyArray<number>
    readonly accounts: ReadonlyArray<{ readonly name: string }>
  }>
  readonly events: ReadonlyArray<{ readonly name: string; readonly discriminator: ReadonlyArray<number> }>
}
const idl = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../support/solana/idl/${file}`, import.meta.url), "utf8")) as IdlJson
const IDLS: Record<string, IdlJson> = { [PUMP]: idl("pump_public.json"), [PUMP_AMM]: idl("pump_amm_public.json") }
const MINT_ACCOUNT: Record<string, string> = {
  create: "mint",
  create_v2: "mint",
  migrate: "mint",
  create_pool: "base_mint",
  withdraw: "base_mint"
}
const USER_ACCOUNT: Record<string, string> = {
  create: "user",
  create_v2: "user",
  migrate: "user",
  create_pool: "creator",
  withdraw: "user"
}

describe("the stream's programs, held to the public IDLs", () => {
  for (const watched of INSTRUCTIONS) {
    test(`${watched.name}: discriminator and accounts`, () => {
      const definition = IDLS[watched.program]?.instructions.find((ix) => ix.name === watched.name)
      expect(IDLS[watched.program]?.address).toBe(watched.program)
      expect([...watched.discriminator]).toEqual([...(definition?.discriminator ?? [])])
      expect(definition?.accounts[watched.mintAccount]?.name).toBe(MINT_ACCOUNT[watched.name])
      expect(watched.userAccount === undefined ? undefined : definition?.accounts[watched.userAccount]?.name).toBe(
        USER_ACCOUNT[watched.name]
      )
    })
  }
  for (const event of EVENTS) {
    test(`${event.name}: discriminator`, () => {
      expect([...event.discriminator]).toEqual([
        ...(IDLS[event.program]?.events.find((e) => e.name === event.name)?.discriminator ?? [])
      ])
    })
  }

  test("log lines: launches are worth a read, the rest is not; a tracked mint's instruction names say what changed", () => {
    expect(worthReading(["Program log: Instruction: CreateV2"])).toBe(true)
    expect(worthReading(["Program log: Instruction: Buy", "Program log: Instruction: Sell"])).toBe(false)
    expect(stateKindOf(["Program log: Instruction: SetAuthority"])).toBe("authority_set")
    expect(stateKindOf(["Program log: Instruction: FreezeAccount"])).toBe("holder_frozen")
    expect(stateKindOf(["Program log: Instruction: DecreaseLiquidityV2"])).toBe("lp_removed")
    expect(stateKindOf(["Program log: Instruction: Transfer"])).toBeUndefined()
  })

  test("a CompleteEvent in a buy's inner instructions is a completion of its mint; a failed transaction says nothing", () => {
    const mint = "So11111111111111111111111111111111111111112"
    const user = new Uint8Array(32).fill(7)
    const mintBytes = Uint8Array.from(
      Buffer.from("069b8857feab8184fb687f634618c035dac439dc1aeb3b5598a0f00000000001", "hex")
    )
    const complete = EVENTS.find((event) => event.name === "CompleteEvent")!
    const data = Uint8Array.from([
      ...EVENT_IX_TAG,
      ...complete.discriminator,
      ...user,
      ...mintBytes,
      ...new Uint8Array(72)
    ])
    const base58 = getBase58Decoder()
    const tx = (err: unknown): TransactionView => ({
      slot: 5n,
      blockTime: 1_750_000_000n,
      transaction: {
        signatures: ["sig"],
        message: {
          accountKeys: ["Payer1111111111111111111111111111111111111", PUMP],
          instructions: [{ programIdIndex: 1, accounts: [0], data: base58.decode(Uint8Array.of(1, 2, 3)) }]
        }
      },
      meta: {
        err,
        innerInstructions: [
          { index: 0, instructions: [{ programIdIndex: 1, accounts: [], data: base58.decode(data) }] }
        ]
      }
    })
    expect(eventsOf(tx(null)).map((event) => [event.kind, String(event.mint), event.slot])).toEqual([
      ["complete", mint, 5n]
    ])
    expect(eventsOf(tx({ InstructionError: [0, "Custom"] }))).toEqual([])
  })
})
