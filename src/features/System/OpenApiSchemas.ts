// Bounds and formats the JSON Schema generator leaves out, added to every schema of the document:
// integers get their format and range, strings a length bound, timestamps `format: date-time`, arrays a
// maxItems, and the refinement names Effect uses as titles (`int`, `between(0, 100)`) are dropped.
// Request schemas state their own bounds (the server enforces them); these defaults bound what the
// server sends. test/contract/openapi.test.ts checks every example against the result.

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const INT32_MIN = -2_147_483_648
const INT32_MAX = 2_147_483_647
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER
/** Bound on server-written text (summaries, reasons, messages), far above the longest the server writes. */
const MAX_TEXT = 4096
/** Bound on lists the server writes; the longest (a deployer history page) holds 200. */
const MAX_LIST = 1000

const REFINEMENT_TITLE =
  /^(int|finite|nonNegative|nonPositive|positive|negative|nonNaN|trimmed|brand.*|(between|greaterThan|greaterThanOrEqualTo|lessThan|lessThanOrEqualTo|maxLength|minLength|length|maxItems|minItems|itemsCount|pattern|multipleOf)\(.*\))$/

/** Names of timestamp fields: `scannedAt`, `created_at`, `generatedAt`, `entryTime`. */
const TIMESTAMP_NAME = /(At|_at|Time)$/

const integerBounds = (schema: Json): Json => {
  const maximum = typeof schema.maximum === "number" ? schema.maximum : undefined
  const wide = maximum !== undefined && maximum > INT32_MAX
  const hasMinimum = "minimum" in schema || "exclusiveMinimum" in schema
  const hasMaximum = "maximum" in schema || "exclusiveMaximum" in schema
  return {
    format: wide ? "int64" : "int32",
    ...(hasMinimum ? {} : { minimum: wide ? -SAFE_INTEGER : INT32_MIN }),
    ...(hasMaximum ? {} : { maximum: INT32_MAX })
  }
}

const stringBounds = (schema: Json, name: string | undefined): Json => {
  const timestamp = schema.format === undefined && name !== undefined && TIMESTAMP_NAME.test(name)
  const bounded = "maxLength" in schema || "enum" in schema || "const" in schema
  const dateTime = timestamp || schema.format === "date-time"
  return {
    ...(timestamp ? { format: "date-time" } : {}),
    ...(bounded ? {} : { maxLength: dateTime ? 32 : MAX_TEXT })
  }
}

const tidySchema = (schema: Json, name: string | undefined): Json => {
  const out: Json = { ...schema }
  if (typeof out.title === "string" && REFINEMENT_TITLE.test(out.title)) delete out.title
  if (out.type === "integer" && out.format === undefined) Object.assign(out, integerBounds(out))
  if (out.type === "string") Object.assign(out, stringBounds(out, name))
  if (out.type === "array" && !("maxItems" in out)) out.maxItems = MAX_LIST
  return out
}

// Walks a schema and its subschemas; a property's name travels to its schema (and into anyOf members,
// so a nullable timestamp is still a timestamp). Example values are data, never walked.
const walk = (node: unknown, name: string | undefined): unknown => {
  if (Array.isArray(node)) return node.map((item) => walk(item, name))
  if (!isJson(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples" || key === "const" || key === "enum" || key === "default")
      out[key] = value
    else if (key === "properties" && isJson(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([property, schema]) => [property, walk(schema, property)])
      )
    } else if (key === "anyOf" || key === "oneOf") out[key] = walk(value, name)
    else out[key] = walk(value, undefined)
  }
  return "type" in out ? tidySchema(out, name) : out
}

/** Applies the bounds and formats to every schema of the components and the operations. */
export const boundSchemas = (document: Json): Json => {
  const components = isJson(document.components) ? document.components : {}
  return {
    ...document,
    paths: walk(document.paths, undefined),
    components: { ...components, schemas: walk(components.schemas, undefined) }
  }
}
