import { describe, expect, test } from "bun:test"
import { ConfigProvider, Effect, Either } from "effect"
import { StreamConfig, watchedPrograms } from "../../../src/workers/Stream/Config.ts"
import { readFileSync } from "node:fs"
import { type Address, getBase58Decoder } from "@solana/kit"
import { eventsOf, largestDropPct, soldBy, type TransactionView } from "../../../src/workers/Stream/Decode.ts"
import {
  callsTokenOutsideVenues,
  EVENT_IX_TAG,
  EVENTS,
  INSTRUCTIONS,
  LAUNCH_PROGRAMS,
  namesSwap,
  stateKindOf,
  worthReading
} from "../../../src/workers/Stream/Programs.ts"
import type { IdlType } from "../../support/solana/AnchorIdl.ts"

// The stream's program table against the programs' public IDLs (pump-fun/pump-public-docs, vendored cut
// in test/support/solana/idl/): each discriminator computed from its name is the IDL's, and each account
// index names the account the IDL puts there.

interface IdlJson {
  readonly address: string
  readonly instructions: ReadonlyArray<{
    readonly name: string
    readonly discriminator: ReadonlyArray<number>
    readonly accounts: ReadonlyArray<{ readonly name: string }>
    readonly args: ReadonlyArray<{ readonly name: string; readonly type: IdlType }>
  }>
  readonly events?: ReadonlyArray<{ readonly name: string; readonly discriminator: ReadonlyArray<number> }>
  readonly types?: ReadonlyArray<{
    readonly name: string
    readonly type:
      | { readonly kind: "struct"; readonly fields?: ReadonlyArray<{ readonly type: IdlType } | IdlType> }
      | {
          readonly kind: "enum"
          readonly variants: ReadonlyArray<{ readonly fields?: ReadonlyArray<{ readonly type: IdlType } | IdlType> }>
        }
  }>
}
const idl = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../support/solana/idl/${file}`, import.meta.url), "utf8")) as IdlJson
const IDLS: ReadonlyArray<IdlJson> = [
  "pump_public.json",
  "pump_amm_public.json",
  "raydium_amm_v4_instructions.json",
  "raydium_cpmm_instructions.json",
  "raydium_clmm_instructions.json",
  "orca_whirlpool_instructions.json",
  "meteora_dlmm_instructions.json",
  "meteora_damm_v1_instructions.json",
  "meteora_damm_v2_instructions.json",
  "meteora_dbc_instructions.json",
  "raydium_launchpad_instructions.json"
].map(idl)
const definitionOf = (program: string, name: string) => {
  const file = IDLS.find((candidate) => candidate.address === program)
  return { file, instruction: file?.instructions.find((ix) => ix.name === name) }
}

/** The least number of bytes a Borsh value of `type` takes (strings, vecs empty; options none; the smallest enum variant). */
const leastSize = (file: IdlJson, type: IdlType): number => {
  const PRIMITIVE: Record<string, number> = {
    u8: 1,
    i8: 1,
    bool: 1,
    u16: 2,
    i16: 2,
    u32: 4,
    i32: 4,
    f32: 4,
    u64: 8,
    i64: 8,
    f64: 8,
    u128: 16,
    i128: 16,
    pubkey: 32,
    publicKey: 32,
    string: 4,
    bytes: 4
  }
  if (typeof type === "string") {
    const size = PRIMITIVE[type]
    if (size === undefined) throw new Error(`no size for ${type}`)
    return size
  }
  if ("option" in type) return 1
  if ("vec" in type) return 4
  if ("array" in type) return leastSize(file, type.array[0]) * type.array[1]
  const name = typeof type.defined === "string" ? type.defined : type.defined.name
  const def = file.types?.find((candidate) => candidate.name === name)
  if (def === undefined) throw new Error(`no type ${name}`)
  const fieldsSize = (fields: ReadonlyArray<{ readonly type: IdlType } | IdlType> = []) =>
    fields.reduce(
      (sum, field) => sum + leastSize(file, typeof field === "object" && "type" in field ? field.type : field),
      0
    )
  if (def.type.kind === "struct") return fieldsSize(def.type.fields)
  return 1 + Math.min(...def.type.variants.map((variant) => fieldsSize(variant.fields)))
}

// The accounts each instruction's mints and signer are, as the IDLs name them.
const ACCOUNTS: Record<string, { readonly mints: ReadonlyArray<string>; readonly user?: string }> = {
  "pump:create": { mints: ["mint"], user: "user" },
  "pump:create_v2": { mints: ["mint"], user: "user" },
  "pump:migrate": { mints: ["mint"], user: "user" },
  "pump_amm:create_pool": { mints: ["base_mint"], user: "creator" },
  "pump_amm:withdraw": { mints: ["base_mint"], user: "user" },
  "raydium_amm:initialize2": { mints: ["coin_mint", "pc_mint"], user: "user_wallet" },
  "raydium_cp_swap:initialize": { mints: ["token_0_mint", "token_1_mint"], user: "creator" },
  "amm_v3:create_pool": { mints: ["token_mint_0", "token_mint_1"], user: "pool_creator" },
  "whirlpool:initialize_pool": { mints: ["token_mint_a", "token_mint_b"], user: "funder" },
  "whirlpool:initialize_pool_v2": { mints: ["token_mint_a", "token_mint_b"], user: "funder" },
  "whirlpool:initialize_pool_with_adaptive_fee": { mints: ["token_mint_a", "token_mint_b"], user: "funder" },
  "lb_clmm:initialize_lb_pair": { mints: ["token_mint_x", "token_mint_y"], user: "funder" },
  "lb_clmm:initialize_lb_pair2": { mints: ["token_mint_x", "token_mint_y"], user: "funder" },
  "lb_clmm:initialize_customizable_permissionless_lb_pair": { mints: ["token_mint_x", "token_mint_y"], user: "funder" },
  "lb_clmm:initialize_customizable_permissionless_lb_pair2": {
    mints: ["token_mint_x", "token_mint_y"],
    user: "funder"
  },
  "lb_clmm:initialize_permission_lb_pair": { mints: ["token_mint_x", "token_mint_y"], user: "payer" },
  "dynamic_amm:initialize_permissioned_pool": { mints: ["token_a_mint", "token_b_mint"], user: "admin" },
  "dynamic_amm:initialize_permissionless_pool": { mints: ["token_a_mint", "token_b_mint"], user: "payer" },
  "dynamic_amm:initialize_permissionless_pool_with_fee_tier": {
    mints: ["token_a_mint", "token_b_mint"],
    user: "payer"
  },
  "dynamic_amm:initialize_permissionless_constant_product_pool_with_config": {
    mints: ["token_a_mint", "token_b_mint"],
    user: "payer"
  },
  "dynamic_amm:initialize_permissionless_constant_product_pool_with_config2": {
    mints: ["token_a_mint", "token_b_mint"],
    user: "payer"
  },
  "dynamic_amm:initialize_customizable_permissionless_constant_product_pool": {
    mints: ["token_a_mint", "token_b_mint"],
    user: "payer"
  },
  "cp_amm:initialize_pool": { mints: ["token_a_mint", "token_b_mint"], user: "creator" },
  "cp_amm:initialize_customizable_pool": { mints: ["token_a_mint", "token_b_mint"], user: "creator" },
  "cp_amm:initialize_pool_with_dynamic_config": { mints: ["token_a_mint", "token_b_mint"], user: "creator" },
  "dynamic_bonding_curve:initialize_virtual_pool_with_spl_token": { mints: ["base_mint"], user: "creator" },
  "dynamic_bonding_curve:initialize_virtual_pool_with_token2022": { mints: ["base_mint"], user: "creator" },
  "dynamic_bonding_curve:migrate_meteora_damm": { mints: ["token_a_mint", "token_b_mint"] },
  "dynamic_bonding_curve:migration_damm_v2": { mints: ["base_mint"] },
  "raydium_launchpad:initialize": { mints: ["base_mint"], user: "creator" },
  "raydium_launchpad:initialize_v2": { mints: ["base_mint"], user: "creator" },
  "raydium_launchpad:initialize_with_token_2022": { mints: ["base_mint"], user: "creator" },
  "raydium_launchpad:migrate_to_amm": { mints: ["base_mint"] },
  "raydium_launchpad:migrate_to_cpswap": { mints: ["base_mint"] }
}

describe("the stream's programs, held to the public IDLs", () => {
  test("every program the stream subscribes to has its IDL here, and every row is one of the table's", () => {
    expect(new Set(LAUNCH_PROGRAMS)).toEqual(new Set(IDLS.map((file) => file.address as Address)))
    expect(INSTRUCTIONS.length).toBe(Object.keys(ACCOUNTS).length)
  })
  for (const watched of INSTRUCTIONS) {
    test(`${watched.program.slice(0, 6)} ${watched.name}: discriminator, accounts, least data`, () => {
      const { file, instruction } = definitionOf(watched.program, watched.name)
      if (file === undefined || instruction === undefined) throw new Error("not in the IDLs")
      const expected = ACCOUNTS[`${(file as { metadata?: { name?: string } }).metadata?.name}:${watched.name}`]
      expect([...watched.discriminator]).toEqual([...instruction.discriminator])
      expect(watched.mintAccounts.map((index) => instruction.accounts[index]?.name)).toEqual([
        ...(expected?.mints ?? [])
      ])
      expect(watched.userAccount === undefined ? undefined : instruction.accounts[watched.userAccount]?.name).toBe(
        expected?.user
      )
      expect(watched.minData).toBe(
        instruction.discriminator.length + instruction.args.reduce((sum, arg) => sum + leastSize(file, arg.type), 0)
      )
    })
  }
  for (const event of EVENTS) {
    test(`${event.name}: discriminator`, () => {
      expect([...event.discriminator]).toEqual([
        ...(IDLS.find((file) => file.address === event.program)?.events?.find((e) => e.name === event.name)
          ?.discriminator ?? [])
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

  test("p-token logs no instruction names: a token program called outside any venue is read, a swap's transfers are not", () => {
    const token = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
    const token2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"
    const pumpSwap = "pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA"
    const called = (program: string, depth: number) => [
      `Program ${program} invoke [${depth}]`,
      `Program ${program} consumed 117 of 200000 compute units`,
      `Program ${program} success`
    ]
    // A SetAuthority or FreezeAccount as p-token logs it (LiteSVM's SPL Token, and mainnet since SIMD-0266).
    expect(callsTokenOutsideVenues(called(token, 1))).toBe(true)
    expect(callsTokenOutsideVenues(called(token2022, 2))).toBe(true)
    // A PumpSwap swap's transfers.
    expect(callsTokenOutsideVenues([...called(pumpSwap, 1), ...called(token, 2)])).toBe(false)
    expect(callsTokenOutsideVenues(["Program 11111111111111111111111111111111 invoke [1]"])).toBe(false)
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
          accountKeys: ["Payer1111111111111111111111111111111111111", "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P"],
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
    expect(eventsOf(tx(null)).events.map((event) => [event.kind, String(event.mint), event.slot])).toEqual([
      ["complete", mint, 5n]
    ])
    expect(eventsOf(tx({ InstructionError: [0, "Custom"] }))).toEqual({ events: [], malformed: [] })
  })

  test("a sale is the signer holding less of the mint; a drop is the largest fall of an unsigned vault of the mint or a quote", () => {
    const wallet = "Wa11et1111111111111111111111111111111111111"
    const vault = "Vau1t11111111111111111111111111111111111111"
    const mint = "Mint111111111111111111111111111111111111111"
    const other = "0ther11111111111111111111111111111111111111"
    const WSOL = "So11111111111111111111111111111111111111112"
    const balance = (accountIndex: number, mintOf: string, owner: string, amount: bigint) => ({
      accountIndex,
      mint: mintOf,
      owner,
      uiTokenAmount: { amount: amount.toString() }
    })
    const tx = (
      signers: number,
      pre: ReadonlyArray<ReturnType<typeof balance>>,
      post: ReadonlyArray<ReturnType<typeof balance>>
    ): TransactionView => ({
      slot: 1n,
      blockTime: null,
      transaction: {
        signatures: ["sig"],
        message: { accountKeys: [wallet, "a", "b", "c"], header: { numRequiredSignatures: signers }, instructions: [] }
      },
      meta: { err: null, preTokenBalances: pre, postTokenBalances: post }
    })
    const sale = tx(
      1,
      [balance(1, mint, wallet, 100n), balance(2, WSOL, vault, 1_000n), balance(3, other, vault, 1_000n)],
      [balance(1, mint, wallet, 40n), balance(2, WSOL, vault, 690n), balance(3, other, vault, 0n)]
    )
    expect(soldBy(sale, wallet, mint)).toBe(true)
    // The quote vault lost 31 %; the vault of an unrelated mint does not count.
    expect(largestDropPct(sale, mint)).toBe(31)
    // Not signed by the wallet, or the wallet's balance grew: no sale.
    const salePre = [balance(1, mint, wallet, 100n)]
    const salePost = [balance(1, mint, wallet, 40n)]
    expect(soldBy(tx(1, salePre, salePost), wallet, mint)).toBe(true)
    expect(soldBy(tx(0, salePre, salePost), wallet, mint)).toBe(false)
    expect(soldBy(tx(1, [balance(1, mint, wallet, 40n)], [balance(1, mint, wallet, 100n)]), wallet, mint)).toBe(false)
    // A signer's own account falling is not a pool's reserve.
    expect(largestDropPct(tx(1, [balance(2, WSOL, wallet, 1_000n)], [balance(2, WSOL, wallet, 0n)]), mint)).toBe(0)
    expect(namesSwap(["Program log: Instruction: SwapBaseInput"])).toBe(true)
    expect(namesSwap(["Program log: ray_log: A0BCDE"])).toBe(true)
    expect(namesSwap(["Program log: Instruction: Buy", "Program log: Instruction: Transfer"])).toBe(false)
  })

  test("STREAM_VENUES picks the programs to read by venue label; an unknown label is a configuration error", async () => {
    const load = (venues: string | undefined) =>
      Effect.runPromise(
        Effect.either(
          Effect.withConfigProvider(
            StreamConfig,
            ConfigProvider.fromMap(new Map(venues === undefined ? [] : [["STREAM_VENUES", venues]]))
          )
        )
      )
    const all = await load(undefined)
    expect(Either.isRight(all) ? watchedPrograms(all.right) : []).toEqual([...LAUNCH_PROGRAMS])
    const two = await load("pump-fun, raydium-launchlab")
    expect(Either.isRight(two) ? watchedPrograms(two.right).map(String) : []).toEqual([
      "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P",
      "LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj"
    ])
    expect(Either.isLeft(await load("pump-fun,moonshot"))).toBe(true)
  })
})
