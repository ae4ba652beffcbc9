import {
  type Encoder,
  fixEncoderSize,
  getAddressEncoder,
  getArrayEncoder,
  getBooleanEncoder,
  getBytesEncoder,
  getDiscriminatedUnionEncoder,
  getI128Encoder,
  getI16Encoder,
  getI32Encoder,
  getI64Encoder,
  getI8Encoder,
  getNullableEncoder,
  getStructEncoder,
  getTupleEncoder,
  getU128Encoder,
  getU16Encoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUnitEncoder,
  getUtf8Encoder,
  addEncoderSizePrefix
} from "@solana/kit"

// A small Anchor-IDL-to-kit encoder for the pool fixtures: it writes an account from the IDL JSON the
// program's npm package ships (test/support/solana/idl/), field by field in declaration order, so the
// bytes follow the program's layout and not the decoders' offsets. Both IDL dialects: Anchor >= 0.30
// ("pubkey", {"defined": {"name"}}) and older ("publicKey", {"defined": "Name"}). Zero-copy (bytemuck,
// repr C) structs of these programs carry explicit padding fields, so sequential packing matches them;
// `encodeAccount` checks the size against what the caller expects.

export type IdlType =
  | string
  | { readonly array: readonly [IdlType, number] }
  | { readonly vec: IdlType }
  | { readonly option: IdlType }
  | { readonly defined: string | { readonly name: string } }

interface IdlField {
  readonly name: string
  readonly type: IdlType
}
interface IdlVariant {
  readonly name: string
  readonly fields?: ReadonlyArray<IdlField | IdlType>
}
interface IdlTypeDef {
  readonly name: string
  readonly type:
    | { readonly kind: "struct"; readonly fields?: ReadonlyArray<IdlField> }
    | { readonly kind: "enum"; readonly variants: ReadonlyArray<IdlVariant> }
}
interface IdlNamed {
  readonly name: string
  readonly discriminator: ReadonlyArray<number>
}
interface IdlInstruction extends IdlNamed {
  readonly args: ReadonlyArray<IdlField>
  readonly accounts: ReadonlyArray<{ readonly name: string }>
}
export interface Idl {
  readonly address?: string
  readonly accounts?: ReadonlyArray<{
    readonly name: string
    readonly discriminator?: ReadonlyArray<number>
    readonly type?: IdlTypeDef["type"]
  }>
  readonly types?: ReadonlyArray<IdlTypeDef>
  readonly instructions?: ReadonlyArray<IdlInstruction>
  readonly events?: ReadonlyArray<IdlNamed>
}

type Value = unknown
type AnyEncoder = Encoder<Value>
const loose = <T>(encoder: Encoder<T>): AnyEncoder => encoder as unknown as AnyEncoder

const PRIMITIVES: Readonly<Record<string, () => AnyEncoder>> = {
  u8: () => loose(getU8Encoder()),
  i8: () => loose(getI8Encoder()),
  u16: () => loose(getU16Encoder()),
  i16: () => loose(getI16Encoder()),
  u32: () => loose(getU32Encoder()),
  i32: () => loose(getI32Encoder()),
  u64: () => loose(getU64Encoder()),
  i64: () => loose(getI64Encoder()),
  u128: () => loose(getU128Encoder()),
  i128: () => loose(getI128Encoder()),
  bool: () => loose(getBooleanEncoder()),
  pubkey: () => loose(getAddressEncoder()),
  publicKey: () => loose(getAddressEncoder()),
  // Borsh string: a u32 length, then UTF-8.
  string: () => loose(addEncoderSizePrefix(getUtf8Encoder(), getU32Encoder()))
}
const ZERO_KEY = "11111111111111111111111111111111"

const definedName = (type: { readonly defined: string | { readonly name: string } }): string =>
  typeof type.defined === "string" ? type.defined : type.defined.name

export class IdlCoder {
  readonly #types: ReadonlyMap<string, IdlTypeDef>
  constructor(readonly idl: Idl) {
    this.#types = new Map((idl.types ?? []).map((def) => [def.name, def]))
  }

  #def(name: string): IdlTypeDef {
    const def = this.#types.get(name)
    if (def === undefined) throw new Error(`IDL has no type ${name}`)
    return def
  }

  encoderOf(type: IdlType): AnyEncoder {
    if (typeof type === "string") {
      const primitive = PRIMITIVES[type]
      if (primitive === undefined) throw new Error(`unsupported IDL type ${type}`)
      return primitive()
    }
    if ("array" in type) {
      const [inner, size] = type.array
      return inner === "u8"
        ? loose(fixEncoderSize(getBytesEncoder(), size))
        : loose(getArrayEncoder(this.encoderOf(inner), { size }))
    }
    if ("vec" in type) return loose(getArrayEncoder(this.encoderOf(type.vec)))
    // Borsh Option: a u8 tag (0 none, 1 some) then the value; null is none.
    if ("option" in type) return loose(getNullableEncoder(this.encoderOf(type.option)))
    return this.#definedEncoder(this.#def(definedName(type)))
  }

  #definedEncoder(def: IdlTypeDef): AnyEncoder {
    if (def.type.kind === "struct") {
      const fields: ReadonlyArray<IdlField | IdlType> = def.type.fields ?? []
      // A tuple struct (OptionBool(bool)): its value is an array.
      if (fields.length > 0 && fields.every((field) => typeof field === "string")) {
        return loose(getTupleEncoder(fields.map((field) => this.encoderOf(field as IdlType))))
      }
      return this.#structEncoder(def.type.fields ?? [])
    }
    // Borsh enum: a u8 variant index, then the variant's fields.
    const variants = def.type.variants.map((variant): readonly [string, AnyEncoder] => {
      const fields = variant.fields ?? []
      if (fields.length === 0) return [variant.name, loose(getUnitEncoder())]
      if (fields.every((field): field is IdlField => typeof field === "object" && "name" in field))
        return [variant.name, this.#structEncoder(fields)]
      throw new Error(`tuple variant ${def.name}::${variant.name} is not supported`)
    })
    return loose(getDiscriminatedUnionEncoder(variants as Array<[string, AnyEncoder]>, { size: getU8Encoder() }))
  }

  #structEncoder(fields: ReadonlyArray<IdlField>): AnyEncoder {
    return loose(
      getStructEncoder(fields.map((field): [string, AnyEncoder] => [field.name, this.encoderOf(field.type)]))
    )
  }

  /** A zero value of the type: 0, false, the all-zero key, zero bytes, the first enum variant. */
  defaultOf(type: IdlType): Value {
    if (typeof type === "string") {
      if (type === "pubkey" || type === "publicKey") return ZERO_KEY
      if (type === "bool") return false
      if (type === "string") return ""
      return 0n
    }
    if ("array" in type) {
      const [inner, size] = type.array
      return inner === "u8" ? new Uint8Array(size) : Array.from({ length: size }, () => this.defaultOf(inner))
    }
    if ("vec" in type) return []
    if ("option" in type) return null
    const def = this.#def(definedName(type))
    if (def.type.kind === "struct") return this.#structDefault(def.type.fields ?? [])
    const first = def.type.variants[0]
    if (first === undefined) throw new Error(`empty enum ${def.name}`)
    const fields = (first.fields ?? []).filter(
      (field): field is IdlField => typeof field === "object" && "name" in field
    )
    return { __kind: first.name, ...(this.#structDefault(fields) as object) }
  }

  #structDefault(fields: ReadonlyArray<IdlField>): Value {
    return Object.fromEntries(fields.map((field) => [field.name, this.defaultOf(field.type)]))
  }

  #accountType(name: string): { readonly discriminator: Uint8Array; readonly fields: ReadonlyArray<IdlField> } {
    const account = (this.idl.accounts ?? []).find((candidate) => candidate.name === name)
    if (account?.discriminator === undefined) throw new Error(`IDL has no account ${name} with a discriminator`)
    const type = account.type ?? this.#def(name).type
    if (type.kind !== "struct") throw new Error(`${name} is not a struct`)
    return { discriminator: Uint8Array.from(account.discriminator), fields: type.fields ?? [] }
  }

  /** Byte offset of each top-level field of an account (after its 8-byte discriminator), for diagnostics. */
  offsetsOf(account: string): ReadonlyMap<string, number> {
    const { fields } = this.#accountType(account)
    const offsets = new Map<string, number>()
    let offset = 8
    for (const field of fields) {
      offsets.set(field.name, offset)
      offset += this.encoderOf(field.type).encode(this.defaultOf(field.type)).length
    }
    return offsets
  }

  /**
   * The account's bytes: the IDL's discriminator, then every field (the given values over zero
   * defaults, nested objects merged), zero-padded to `size` (Anchor allocates a fixed space; Borsh
   * enums may encode shorter). Throws if the encoding is longer than `size`.
   */
  encodeAccount(account: string, values: Readonly<Record<string, Value>>, size: number): Uint8Array {
    const { discriminator, fields } = this.#accountType(account)
    for (const key of Object.keys(values)) {
      if (!fields.some((field) => field.name === key)) throw new Error(`${account} has no field ${key}`)
    }
    const merged = merge(this.#structDefault(fields), values)
    const body = this.#structEncoder(fields).encode(merged)
    const length = discriminator.length + body.length
    if (length > size) throw new Error(`${account} encodes to ${length} bytes, more than ${size}`)
    const data = new Uint8Array(size)
    data.set(discriminator, 0)
    data.set(body, discriminator.length)
    return data
  }

  /** An instruction's data: its IDL discriminator, then its arguments in Borsh. */
  encodeInstruction(name: string, args: Readonly<Record<string, Value>>): Uint8Array {
    const instruction = (this.idl.instructions ?? []).find((candidate) => candidate.name === name)
    if (instruction === undefined) throw new Error(`IDL has no instruction ${name}`)
    const body = this.#structEncoder(instruction.args).encode(args)
    return Uint8Array.from([...instruction.discriminator, ...body])
  }

  /** The account names of an instruction, in the order the instruction lists them. */
  accountsOf(name: string): ReadonlyArray<string> {
    const instruction = (this.idl.instructions ?? []).find((candidate) => candidate.name === name)
    if (instruction === undefined) throw new Error(`IDL has no instruction ${name}`)
    return instruction.accounts.map((account) => account.name)
  }

  /** An event's bytes: its IDL discriminator, then the fields of its type. */
  encodeEvent(name: string, values: Readonly<Record<string, Value>>): Uint8Array {
    const event = (this.idl.events ?? []).find((candidate) => candidate.name === name)
    if (event === undefined) throw new Error(`IDL has no event ${name}`)
    const body = this.encoderOf({ defined: { name } }).encode(values)
    return Uint8Array.from([...event.discriminator, ...body])
  }

  /** The encoded length of an account without padding (discriminator included). */
  encodedLength(account: string): number {
    const { discriminator, fields } = this.#accountType(account)
    return discriminator.length + this.#structEncoder(fields).encode(this.#structDefault(fields)).length
  }
}

const isPlainObject = (value: Value): value is Record<string, Value> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)

const merge = (base: Value, over: Value): Value => {
  if (!isPlainObject(base) || !isPlainObject(over)) return over
  const out: Record<string, Value> = { ...base }
  for (const [key, value] of Object.entries(over)) out[key] = key in base ? merge(base[key], value) : value
  return out
}
