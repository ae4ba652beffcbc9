import {
  type Address,
  addCodecSizePrefix,
  getAddressCodec,
  getArrayCodec,
  getBooleanCodec,
  getNullableCodec,
  getStructCodec,
  getU16Codec,
  getU32Codec,
  getU64Codec,
  getU8Codec,
  getUtf8Codec
} from "@solana/kit"

// The Metaplex Token Metadata `Metadata` account, as mpl-token-metadata serialises it
// (programs/token-metadata/program/src/state/metadata.rs; @metaplex-foundation/mpl-token-metadata
// src/generated/accounts/metadata.ts). Borsh `Option` is a u8 tag then the value, as getNullableCodec.

/** Key::MetadataV1. */
const METADATA_V1_KEY = 4
/** MAX_METADATA_LEN: every metadata account is allocated at this size, zero padded. */
export const METADATA_ACCOUNT_SIZE = 679
/** MAX_NAME_LENGTH, MAX_SYMBOL_LENGTH, MAX_URI_LENGTH: the program pads each string with NULs to these. */
const PADDED = { name: 32, symbol: 10, uri: 200 } as const

interface MetaplexCreator {
  readonly address: Address
  readonly verified: boolean
  readonly share: number
}
interface MetaplexCollection {
  readonly verified: boolean
  readonly key: Address
}
interface MetaplexUses {
  readonly useMethod: number
  readonly remaining: bigint
  readonly total: bigint
}

export interface MetaplexMetadata {
  readonly updateAuthority: Address
  readonly mint: Address
  readonly name: string
  readonly symbol: string
  readonly uri: string
  readonly sellerFeeBasisPoints: number
  readonly creators: ReadonlyArray<MetaplexCreator> | null
  readonly primarySaleHappened: boolean
  readonly isMutable: boolean
  /** Trailing fields added by later program versions: null when absent or None. */
  readonly editionNonce: number | null
  /** TokenStandard: 0 NonFungible, 1 FungibleAsset, 2 Fungible, 3 NonFungibleEdition, 4 ProgrammableNonFungible... */
  readonly tokenStandard: number | null
  readonly collection: MetaplexCollection | null
  readonly uses: MetaplexUses | null
}

const borshString = addCodecSizePrefix(getUtf8Codec(), getU32Codec())

const headCodec = getStructCodec([
  ["key", getU8Codec()],
  ["updateAuthority", getAddressCodec()],
  ["mint", getAddressCodec()],
  ["name", borshString],
  ["symbol", borshString],
  ["uri", borshString],
  ["sellerFeeBasisPoints", getU16Codec()],
  [
    "creators",
    getNullableCodec(
      getArrayCodec(
        getStructCodec([
          ["address", getAddressCodec()],
          ["verified", getBooleanCodec()],
          ["share", getU8Codec()]
        ])
      )
    )
  ],
  ["primarySaleHappened", getBooleanCodec()],
  ["isMutable", getBooleanCodec()]
])

const tailFields = [
  ["editionNonce", getNullableCodec(getU8Codec())],
  ["tokenStandard", getNullableCodec(getU8Codec())],
  [
    "collection",
    getNullableCodec(
      getStructCodec([
        ["verified", getBooleanCodec()],
        ["key", getAddressCodec()]
      ])
    )
  ],
  [
    "uses",
    getNullableCodec(
      getStructCodec([
        ["useMethod", getU8Codec()],
        ["remaining", getU64Codec()],
        ["total", getU64Codec()]
      ])
    )
  ]
] as const
const tailCodec = getStructCodec([...tailFields])
type Tail = ReturnType<typeof tailCodec.decode>

const unpad = (value: string): string => value.replace(/\0+$/, "")
const pad = (value: string, size: number): string => value.padEnd(size, "\0")

/** The metadata in an account's data, or undefined when the data is not a MetadataV1 account. */
export const decodeMetaplexMetadata = (bytes: Uint8Array): MetaplexMetadata | undefined => {
  if (bytes.length < 1 || bytes[0] !== METADATA_V1_KEY) return undefined
  try {
    const [head, offset] = headCodec.read(bytes, 0)
    // Accounts written before a field existed end early (the field is None); over the zero padding
    // a zero tag reads as None too.
    const tail: Record<string, unknown> = { editionNonce: null, tokenStandard: null, collection: null, uses: null }
    let at = offset
    for (const [name, codec] of tailFields) {
      if (at >= bytes.length) break
      try {
        ;[tail[name], at] = codec.read(bytes, at)
      } catch {
        break
      }
    }
    const { key: _key, ...fields } = head
    return { ...fields, ...(tail as Tail), name: unpad(head.name), symbol: unpad(head.symbol), uri: unpad(head.uri) }
  } catch {
    return undefined
  }
}

/** The 679-byte account the program writes: strings padded as mpl pads them, the rest zeros. */
export const encodeMetaplexMetadata = (fields: MetaplexMetadata): Uint8Array => {
  const head = headCodec.encode({
    ...fields,
    key: METADATA_V1_KEY,
    name: pad(fields.name, PADDED.name),
    symbol: pad(fields.symbol, PADDED.symbol),
    uri: pad(fields.uri, PADDED.uri),
    creators: fields.creators === null ? null : [...fields.creators]
  })
  const tail = tailCodec.encode(fields)
  const account = new Uint8Array(Math.max(METADATA_ACCOUNT_SIZE, head.length + tail.length))
  account.set(head, 0)
  account.set(tail, head.length)
  return account
}
