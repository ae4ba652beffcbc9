import { describe, expect, test } from "bun:test"
import { type Address, generateKeyPairSigner, getAddressEncoder } from "@solana/kit"
import {
  METADATA_ACCOUNT_SIZE,
  type MetaplexMetadata,
  decodeMetaplexMetadata,
  encodeMetaplexMetadata
} from "../../src/workers/Scanner/Metaplex.ts"

// Bytes laid out by hand as mpl-token-metadata's program writes them, so the codec is checked
// against the layout rather than against itself.
const borsh = () => {
  const bytes: Array<number> = []
  const writer = {
    u8: (value: number) => {
      bytes.push(value)
      return writer
    },
    u16: (value: number) => {
      bytes.push(value & 0xff, value >> 8)
      return writer
    },
    u32: (value: number) => {
      bytes.push(value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >>> 24)
      return writer
    },
    u64: (value: bigint) => {
      for (let i = 0n; i < 8n; i++) bytes.push(Number((value >> (8n * i)) & 0xffn))
      return writer
    },
    key: (value: Address) => {
      bytes.push(...getAddressEncoder().encode(value))
      return writer
    },
    padded: (value: string, size: number) => {
      const utf8 = new TextEncoder().encode(value)
      writer.u32(size)
      bytes.push(...utf8, ...new Array<number>(size - utf8.length).fill(0))
      return writer
    },
    account: (size: number) => {
      const account = new Uint8Array(size)
      account.set(bytes)
      return account
    }
  }
  return writer
}

const addresses = async (count: number): Promise<Array<Address>> =>
  Promise.all(Array.from({ length: count }, async () => (await generateKeyPairSigner()).address))

describe("Metaplex metadata codec", () => {
  test("decodes a 679-byte account laid out as the program writes it, with creators, collection and uses", async () => {
    const [authority, mint, creator, collection] = (await addresses(4)) as [Address, Address, Address, Address]
    const account = borsh()
      .u8(4)
      .key(authority)
      .key(mint)
      .padded("Bonk", 32)
      .padded("BONK", 10)
      .padded("https://arweave.net/bonk.json", 200)
      .u16(250)
      .u8(1)
      .u32(1)
      .key(creator)
      .u8(1)
      .u8(100)
      .u8(1)
      .u8(0)
      .u8(1)
      .u8(254)
      .u8(1)
      .u8(2)
      .u8(1)
      .u8(1)
      .key(collection)
      .u8(1)
      .u8(0)
      .u64(3n)
      .u64(10n)
      .account(METADATA_ACCOUNT_SIZE)
    expect(decodeMetaplexMetadata(account)).toEqual({
      updateAuthority: authority,
      mint,
      name: "Bonk",
      symbol: "BONK",
      uri: "https://arweave.net/bonk.json",
      sellerFeeBasisPoints: 250,
      creators: [{ address: creator, verified: true, share: 100 }],
      primarySaleHappened: true,
      isMutable: false,
      editionNonce: 254,
      tokenStandard: 2,
      collection: { verified: true, key: collection },
      uses: { useMethod: 0, remaining: 3n, total: 10n }
    })
  })

  test("an account that ends after isMutable (written before the trailing fields existed) has them as null", async () => {
    const [authority, mint] = (await addresses(2)) as [Address, Address]
    const writer = borsh()
      .u8(4)
      .key(authority)
      .key(mint)
      .padded("Old", 32)
      .padded("OLD", 10)
      .padded("u", 200)
      .u16(0)
      .u8(0)
      .u8(0)
      .u8(1)
    const decoded = decodeMetaplexMetadata(writer.account(1 + 32 + 32 + 36 + 14 + 204 + 2 + 1 + 1 + 1))
    expect(decoded).toMatchObject({
      name: "Old",
      isMutable: true,
      editionNonce: null,
      tokenStandard: null,
      collection: null,
      uses: null
    })
  })

  test("encodes to the program's layout: 679 bytes, strings NUL-padded to 32/10/200, and round-trips", async () => {
    const [authority, mint, creator] = (await addresses(3)) as [Address, Address, Address]
    const fields: MetaplexMetadata = {
      updateAuthority: authority,
      mint,
      name: "Round",
      symbol: "RND",
      uri: "https://example.org/r.json",
      sellerFeeBasisPoints: 500,
      creators: [{ address: creator, verified: false, share: 100 }],
      primarySaleHappened: false,
      isMutable: true,
      editionNonce: 255,
      tokenStandard: 2,
      collection: null,
      uses: null
    }
    const encoded = encodeMetaplexMetadata(fields)
    const expected = borsh()
      .u8(4)
      .key(authority)
      .key(mint)
      .padded("Round", 32)
      .padded("RND", 10)
      .padded("https://example.org/r.json", 200)
      .u16(500)
      .u8(1)
      .u32(1)
      .key(creator)
      .u8(0)
      .u8(100)
      .u8(0)
      .u8(1)
      .u8(1)
      .u8(255)
      .u8(1)
      .u8(2)
      .u8(0)
      .u8(0)
      .account(METADATA_ACCOUNT_SIZE)
    expect(encoded.length).toBe(METADATA_ACCOUNT_SIZE)
    expect([...encoded]).toEqual([...expected])
    expect(decodeMetaplexMetadata(encoded)).toEqual(fields)
  })

  test("data that is not a MetadataV1 account decodes to undefined", async () => {
    const [authority, mint] = (await addresses(2)) as [Address, Address]
    const valid = encodeMetaplexMetadata({
      updateAuthority: authority,
      mint,
      name: "X",
      symbol: "X",
      uri: "",
      sellerFeeBasisPoints: 0,
      creators: null,
      primarySaleHappened: false,
      isMutable: true,
      editionNonce: null,
      tokenStandard: null,
      collection: null,
      uses: null
    })
    expect(decodeMetaplexMetadata(valid)).toBeDefined()
    const masterEdition = valid.slice()
    masterEdition[0] = 6
    expect(decodeMetaplexMetadata(masterEdition)).toBeUndefined()
    expect(decodeMetaplexMetadata(valid.slice(0, 100))).toBeUndefined()
    expect(decodeMetaplexMetadata(new Uint8Array())).toBeUndefined()
    expect(decodeMetaplexMetadata(new Uint8Array(METADATA_ACCOUNT_SIZE))).toBeUndefined()
  })
})
