import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import {
  type Address,
  type Base58EncodedBytes,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
  createSolanaRpc,
  generateKeyPairSigner,
  getAddressEncoder,
  getBase64Encoder,
  unwrapOption
} from "@solana/kit"
import {
  AccountState,
  type Extension,
  type Mint,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  getMintDecoder,
  getTokenDecoder
} from "@solana-program/token-2022"
import { METADATA_ACCOUNT_SIZE, decodeMetaplexMetadata } from "../../src/workers/Scanner/Metaplex.ts"
import {
  INCINERATOR,
  METAPLEX_METADATA_PROGRAM,
  VENUES,
  authorityOf,
  metaplexMetadataAddress
} from "../../src/workers/Scanner/Programs.ts"
import { type RpcServer, startRpcServer } from "../support/solana/RpcServer.ts"
import { VENUE_LAYOUTS, anchorDiscriminator } from "../support/solana/VenueLayouts.ts"
import { type BuiltMint, type World, makeWorld } from "../support/solana/World.ts"

const bytesOf = (data: readonly [string, string]): Uint8Array => new Uint8Array(getBase64Encoder().encode(data[0]))

const fetchMint = async (rpc: Rpc<SolanaRpcApi>, mint: Address): Promise<{ owner: Address; mint: Mint }> => {
  const { value } = await rpc.getAccountInfo(mint, { encoding: "base64" }).send()
  if (value === null) throw new Error(`no mint at ${mint}`)
  return { owner: value.owner, mint: getMintDecoder().decode(bytesOf(value.data)) }
}

const extension = <K extends Extension["__kind"]>(mint: Mint, kind: K): Extract<Extension, { __kind: K }> => {
  const found = (unwrapOption(mint.extensions) ?? []).find(
    (candidate): candidate is Extract<Extension, { __kind: K }> => candidate.__kind === kind
  )
  if (found === undefined) throw new Error(`no ${kind} extension`)
  return found
}

const kinds = (mint: Mint): ReadonlyArray<string> =>
  (unwrapOption(mint.extensions) ?? []).map((candidate) => candidate.__kind).sort()

describe("mints built in LiteSVM, read back through the JSON-RPC server", () => {
  let world: World
  let server: RpcServer
  let rpc: Rpc<SolanaRpcApi>
  let authority: KeyPairSigner
  let other: KeyPairSigner

  beforeAll(async () => {
    world = makeWorld()
    server = startRpcServer(world)
    rpc = createSolanaRpc(server.url)
    authority = await world.signer()
    other = await generateKeyPairSigner()
  })
  afterAll(() => server.stop())

  test("an SPL Token mint with its authorities, then with the mint authority revoked", async () => {
    const freeze = await world.signer()
    const built = await world.mint({ decimals: 9, freezeAuthority: freeze })
    await world.holders(built, [{ amount: 1_000n }])
    const before = await fetchMint(rpc, built.address)
    expect(before.owner).toBe(TOKEN_PROGRAM_ADDRESS)
    expect(unwrapOption(before.mint.mintAuthority)).toBe(built.deployer.address)
    expect(unwrapOption(before.mint.freezeAuthority)).toBe(freeze.address)
    expect(before.mint.decimals).toBe(9)
    expect(before.mint.supply).toBe(1_000n)
    expect(unwrapOption(before.mint.extensions)).toBeNull()

    await world.revoke(built, "mint")
    await world.revoke(built, "freeze")
    const after = await fetchMint(rpc, built.address)
    expect(unwrapOption(after.mint.mintAuthority)).toBeNull()
    expect(unwrapOption(after.mint.freezeAuthority)).toBeNull()
  })

  test("a Token-2022 mint with fees, delegate, hook, frozen default, close authority, metadata, pause and interest", async () => {
    const freeze = await world.signer()
    const built = await world.mint({
      program: "token-2022",
      decimals: 6,
      freezeAuthority: freeze,
      extensions: {
        transferFee: {
          configAuthority: authority,
          withdrawAuthority: other.address,
          basisPoints: 100,
          maximumFee: 1_000n,
          next: { basisPoints: 250, maximumFee: 9_000n }
        },
        permanentDelegate: other.address,
        transferHook: { programId: authority.address, authority: other.address },
        defaultAccountState: "frozen",
        mintCloseAuthority: other.address,
        tokenMetadata: {
          name: "Hooked",
          symbol: "HOOK",
          uri: "https://example.org/hook.json",
          additional: [
            ["site", "example.org"],
            ["tax", "1%"]
          ],
          updateAuthority: other.address
        },
        pausable: { authority: authority.address },
        interestBearing: { rateAuthority: other.address, rate: 500 }
      }
    })
    const [holder] = await world.holders(built, [{ amount: 77n }])
    const { owner, mint } = await fetchMint(rpc, built.address)
    expect(owner).toBe(TOKEN_2022_PROGRAM_ADDRESS)
    expect(kinds(mint)).toEqual([
      "DefaultAccountState",
      "InterestBearingConfig",
      "MetadataPointer",
      "MintCloseAuthority",
      "PausableConfig",
      "PermanentDelegate",
      "TokenMetadata",
      "TransferFeeConfig",
      "TransferHook"
    ])
    expect(unwrapOption(mint.mintAuthority)).toBe(built.deployer.address)
    expect(unwrapOption(mint.freezeAuthority)).toBe(freeze.address)

    const fee = extension(mint, "TransferFeeConfig")
    expect(fee.transferFeeConfigAuthority).toBe(authority.address)
    expect(fee.withdrawWithheldAuthority).toBe(other.address)
    expect(fee.olderTransferFee).toEqual({ epoch: 0n, transferFeeBasisPoints: 100, maximumFee: 1_000n })
    // SetTransferFee schedules the new fee two epochs on.
    expect(fee.newerTransferFee).toEqual({ epoch: 2n, transferFeeBasisPoints: 250, maximumFee: 9_000n })
    expect(extension(mint, "PermanentDelegate").delegate).toBe(other.address)
    expect(extension(mint, "TransferHook")).toMatchObject({ programId: authority.address, authority: other.address })
    expect(extension(mint, "DefaultAccountState").state).toBe(AccountState.Frozen)
    expect(extension(mint, "MintCloseAuthority").closeAuthority).toBe(other.address)
    const pointer = extension(mint, "MetadataPointer")
    expect(unwrapOption(pointer.authority)).toBe(built.deployer.address)
    expect(unwrapOption(pointer.metadataAddress)).toBe(built.address)
    const metadata = extension(mint, "TokenMetadata")
    expect(unwrapOption(metadata.updateAuthority)).toBe(other.address)
    expect(metadata).toMatchObject({
      mint: built.address,
      name: "Hooked",
      symbol: "HOOK",
      uri: "https://example.org/hook.json"
    })
    expect([...metadata.additionalMetadata]).toEqual([
      ["site", "example.org"],
      ["tax", "1%"]
    ])
    expect(unwrapOption(extension(mint, "PausableConfig").authority)).toBe(authority.address)
    expect(extension(mint, "PausableConfig").paused).toBe(false)
    const interest = extension(mint, "InterestBearingConfig")
    expect(interest).toMatchObject({ rateAuthority: other.address, currentRate: 500 })
    expect(interest.initializationTimestamp).toBeGreaterThan(0n)

    // The holder was thawed before the mint, as a frozen default state requires.
    const account = await rpc.getAccountInfo(holder?.account ?? other.address, { encoding: "base64" }).send()
    const token = getTokenDecoder().decode(bytesOf(account.value?.data ?? ["", "base64"]))
    expect(token).toMatchObject({
      mint: built.address,
      owner: holder?.owner,
      amount: 77n,
      state: AccountState.Initialized
    })

    await world.freeze(built, holder?.account ?? other.address)
    await world.pause(built, authority)
    const frozen = await rpc.getAccountInfo(holder?.account ?? other.address, { encoding: "base64" }).send()
    expect(getTokenDecoder().decode(bytesOf(frozen.value?.data ?? ["", "base64"])).state).toBe(AccountState.Frozen)
    expect(extension((await fetchMint(rpc, built.address)).mint, "PausableConfig").paused).toBe(true)
  })

  test("a Token-2022 mint with confidential transfers, a scaled UI amount and an outside metadata pointer", async () => {
    const built = await world.mint({
      program: "token-2022",
      decimals: 2,
      extensions: {
        confidentialTransfer: { authority: other.address, autoApproveNewAccounts: true, auditorElgamalPubkey: null },
        scaledUiAmount: { authority: authority.address, multiplier: 1.5 },
        metadataPointer: { authority: null, address: other.address }
      }
    })
    const { mint } = await fetchMint(rpc, built.address)
    expect(kinds(mint)).toEqual(["ConfidentialTransferMint", "MetadataPointer", "ScaledUiAmountConfig"])
    const confidential = extension(mint, "ConfidentialTransferMint")
    expect(unwrapOption(confidential.authority)).toBe(other.address)
    expect(confidential.autoApproveNewAccounts).toBe(true)
    expect(unwrapOption(confidential.auditorElgamalPubkey)).toBeNull()
    expect(extension(mint, "ScaledUiAmountConfig")).toMatchObject({ authority: authority.address, multiplier: 1.5 })
    const pointer = extension(mint, "MetadataPointer")
    expect(unwrapOption(pointer.authority)).toBeNull()
    expect(unwrapOption(pointer.metadataAddress)).toBe(other.address)
    expect(unwrapOption(mint.freezeAuthority)).toBeNull()
  })

  test("a non-transferable Token-2022 mint (the program refuses it beside confidential transfers)", async () => {
    const built = await world.mint({ program: "token-2022", extensions: { nonTransferable: true } })
    const [holder] = await world.holders(built, [{ amount: 5n }])
    const { mint } = await fetchMint(rpc, built.address)
    expect(kinds(mint)).toEqual(["NonTransferable"])
    const account = await rpc.getAccountInfo(holder?.account ?? other.address, { encoding: "base64" }).send()
    const token = getTokenDecoder().decode(bytesOf(account.value?.data ?? ["", "base64"]))
    expect((unwrapOption(token.extensions) ?? []).map((candidate) => candidate.__kind)).toContain(
      "NonTransferableAccount"
    )
  })

  test("burns lower the supply; burned-to-incinerator tokens stay in the supply", async () => {
    const built = await world.mint({ decimals: 0 })
    const [holder] = await world.holders(built, [{ amount: 500n }])
    if (holder === undefined) throw new Error("no holder")
    await world.burn(built, holder, 200n)
    const burned = await world.incinerate(built, 50n)
    const supply = await rpc.getTokenSupply(built.address).send()
    expect<unknown>(supply.value).toEqual({ amount: "350", decimals: 0, uiAmount: 350, uiAmountString: "350" })
    const { value } = await rpc
      .getTokenAccountsByOwner(INCINERATOR, { mint: built.address }, { encoding: "base64" })
      .send()
    expect(value.map((entry) => entry.pubkey)).toEqual([burned.account])
    expect(getTokenDecoder().decode(bytesOf(value[0]?.account.data ?? ["", "base64"])).amount).toBe(50n)
  })
})

describe("venues and Metaplex accounts written with setAccount", () => {
  let world: World
  let server: RpcServer
  let rpc: Rpc<SolanaRpcApi>
  let built: BuiltMint

  beforeAll(async () => {
    world = makeWorld()
    server = startRpcServer(world)
    rpc = createSolanaRpc(server.url)
    built = await world.mint({ program: "token-2022" })
  })
  afterAll(() => server.stop())

  test("every venue: a state account in its real layout and a vault owned by the authority or the state", async () => {
    for (const venue of VENUES) {
      const layout = VENUE_LAYOUTS[venue.label]
      if (layout === undefined) throw new Error(`no layout for ${venue.label}`)
      const amount = 1_000n + BigInt(VENUES.indexOf(venue))
      const placed = await world.venue(built, venue.label, amount)

      const state = await rpc.getAccountInfo(placed.state, { encoding: "base64" }).send()
      expect(state.value?.owner).toBe(venue.program)
      expect(state.value?.space).toBe(BigInt(layout.size))
      const data = bytesOf(state.value?.data ?? ["", "base64"])
      if (layout.anchor) expect([...data.slice(0, 8)]).toEqual([...anchorDiscriminator(layout.account)])
      if (layout.mintOffset !== undefined) {
        const mintBytes = new Uint8Array(getAddressEncoder().encode(built.address))
        expect(data.slice(layout.mintOffset, layout.mintOffset + 32)).toEqual(mintBytes)
        // The way a scanner finds pools of a mint.
        const pools = await rpc
          .getProgramAccounts(venue.program, {
            encoding: "base64",
            dataSlice: { offset: 0, length: 8 },
            filters: [
              { dataSize: BigInt(layout.size) },
              {
                memcmp: {
                  offset: BigInt(layout.mintOffset),
                  bytes: built.address as string as Base58EncodedBytes,
                  encoding: "base58"
                }
              }
            ]
          })
          .send()
        expect(pools.map((pool) => pool.pubkey)).toContain(placed.state)
        expect(pools.every((pool) => bytesOf(pool.account.data).length === 8)).toBe(true)
      }

      expect(placed.vaultOwner).toBe((await authorityOf(venue)) ?? placed.state)
      const vault = await rpc.getAccountInfo(placed.vault, { encoding: "base64" }).send()
      const token = getTokenDecoder().decode(bytesOf(vault.value?.data ?? ["", "base64"]))
      expect(token).toMatchObject({ mint: built.address, owner: placed.vaultOwner, amount })
    }
  })

  test("a Metaplex account at the mint's PDA decodes back to what was written", async () => {
    const creator = await generateKeyPairSigner()
    const written = await world.metaplex(built, {
      name: "Venue Token",
      symbol: "VEN",
      uri: "https://example.org/ven.json",
      isMutable: false,
      creators: [{ address: creator.address, verified: true, share: 100 }]
    })
    expect(written.address).toBe(await metaplexMetadataAddress(built.address))
    const { value } = await rpc.getAccountInfo(written.address, { encoding: "base64" }).send()
    expect(value?.owner).toBe(METAPLEX_METADATA_PROGRAM)
    expect(value?.space).toBe(BigInt(METADATA_ACCOUNT_SIZE))
    const decoded = decodeMetaplexMetadata(bytesOf(value?.data ?? ["", "base64"]))
    expect(decoded).toEqual(written.metadata)
    expect(decoded).toMatchObject({
      updateAuthority: built.deployer.address,
      mint: built.address,
      name: "Venue Token",
      isMutable: false
    })
  })
})
