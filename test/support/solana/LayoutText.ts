import { readFileSync } from "node:fs"
import { getAddressEncoder } from "@solana/kit"

// Evaluates layout files copied verbatim from the SDKs (test/support/solana/idl/*.txt) with a
// stand-in for the buffer-layout builders they call: Raydium's marshmallow (u8, u64, publicKey, seq,
// struct, blob, ...) and @solana/buffer-layout (BufferLayout.struct, blob, u8, u32, f32, seq). Each
// builder here only knows its span and how to write a value little-endian, which is all a fixture
// needs to lay out an account the way the SDK reads it.

export interface Layout {
  readonly span: number
  readonly property: string | undefined
  encode(value: unknown, out: Uint8Array, offset: number): void
  replicate(property: string): Layout
}

const integer =
  (span: number, signed: boolean) =>
  (property?: string): Layout => ({
    span,
    property,
    encode(value, out, offset) {
      let big = BigInt((value ?? 0) as bigint | number)
      if (signed && big < 0n) big += 1n << BigInt(span * 8)
      for (let index = 0; index < span; index++) {
        out[offset + index] = Number(big & 0xffn)
        big >>= 8n
      }
    },
    replicate(name) {
      return integer(span, signed)(name)
    }
  })

const f32 = (property?: string): Layout => ({
  span: 4,
  property,
  encode(value, out, offset) {
    new DataView(out.buffer, out.byteOffset).setFloat32(offset, Number(value ?? 0), true)
  },
  replicate(name) {
    return f32(name)
  }
})

const bool = (property?: string): Layout => ({
  span: 1,
  property,
  encode(value, out, offset) {
    out[offset] = value === true ? 1 : 0
  },
  replicate(name) {
    return bool(name)
  }
})

const publicKey = (property?: string): Layout => ({
  span: 32,
  property,
  encode(value, out, offset) {
    if (typeof value === "string") out.set(getAddressEncoder().encode(value as never), offset)
  },
  replicate(name) {
    return publicKey(name)
  }
})

const blob = (span: number, property?: string): Layout => ({
  span,
  property,
  encode(value, out, offset) {
    if (value === undefined) return
    if (!(value instanceof Uint8Array) || value.length !== span)
      throw new Error(`blob ${property ?? ""} takes ${span} bytes`)
    out.set(value, offset)
  },
  replicate(name) {
    return blob(span, name)
  }
})

const seq = (element: Layout, count: number, property?: string): Layout => ({
  span: element.span * count,
  property,
  encode(value, out, offset) {
    if (value === undefined) return
    if (!Array.isArray(value)) throw new Error(`seq ${property ?? ""} takes an array`)
    value.forEach((item: unknown, index) => {
      element.encode(item, out, offset + index * element.span)
    })
  },
  replicate(name) {
    return seq(element, count, name)
  }
})

const struct = (fields: ReadonlyArray<Layout>, property?: string): Layout => ({
  span: fields.reduce((sum, field) => sum + field.span, 0),
  property,
  encode(value, out, offset) {
    const record = (value ?? {}) as Record<string, unknown>
    const known = new Set(fields.flatMap((field) => (field.property === undefined ? [] : [field.property])))
    for (const key of Object.keys(record))
      if (!known.has(key)) throw new Error(`struct ${property ?? ""} has no field ${key}`)
    let at = offset
    for (const field of fields) {
      if (field.property !== undefined) field.encode(record[field.property], out, at)
      at += field.span
    }
  },
  replicate(name) {
    return struct(fields, name)
  }
})

const MARSHMALLOW: Readonly<Record<string, unknown>> = {
  u8: integer(1, false),
  u16: integer(2, false),
  u32: integer(4, false),
  u64: integer(8, false),
  u128: integer(16, false),
  s32: integer(4, true),
  i64: integer(8, true),
  i128: integer(16, true),
  bool,
  publicKey,
  blob,
  seq,
  struct
}

const BUFFER_LAYOUT = {
  u8: integer(1, false),
  u16: integer(2, false),
  u32: integer(4, false),
  f32,
  blob,
  seq,
  struct
}

/**
 * The named layouts a verbatim TypeScript layout file defines, its imports replaced: the marshmallow
 * builders above and the constants given (the values the file imports, with where they come from).
 */
export const layoutsFromTypeScript = (
  path: string,
  names: ReadonlyArray<string>,
  constants: Readonly<Record<string, number>> = {}
): Readonly<Record<string, Layout>> => {
  const source = readFileSync(path, "utf8").replace(/import\s[\s\S]*?from\s+"[^"]+";/g, "")
  const javascript = new Bun.Transpiler({ loader: "ts" }).transformSync(source).replace(/\bexport\s+/g, "")
  const scope = { ...MARSHMALLOW, ...constants }
  const evaluate = new Function(...Object.keys(scope), `${javascript}\nreturn { ${names.join(", ")} };`) as (
    ...args: ReadonlyArray<unknown>
  ) => Record<string, Layout>
  return evaluate(...Object.values(scope))
}

/** The layout a verbatim `var name = BufferLayout.struct([...]);` statement defines. */
export const layoutFromBufferLayoutStatement = (
  path: string,
  name: string,
  constants: Readonly<Record<string, number>> = {}
): Layout => {
  const source = readFileSync(path, "utf8")
  const evaluate = new Function("BufferLayout", ...Object.keys(constants), `${source}\nreturn ${name};`) as (
    ...args: ReadonlyArray<unknown>
  ) => Layout
  return evaluate(BUFFER_LAYOUT, ...Object.values(constants))
}

/** Writes `values` through a layout into a zeroed buffer of `size` bytes (the layout's span when omitted). */
export const encodeWithLayout = (
  layout: Layout,
  values: Readonly<Record<string, unknown>>,
  size = layout.span
): Uint8Array => {
  if (layout.span > size) throw new Error(`layout spans ${layout.span} bytes, more than ${size}`)
  const out = new Uint8Array(size)
  layout.encode(values, out, 0)
  return out
}
