// HttpApi documents its built-in decode error with its own `_tag` shape, but on the wire every schema
// failure is our `invalid_request` envelope (see Http/Envelope.ts). This rewrites the generated
// document so it shows only what the server sends, and documents the request id header once per response.

type Json = Record<string, unknown>

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"
const BUILT_IN_ONLY = ["HttpApiDecodeError", "Issue", "PropertyKey"]

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const requestIdHeader = {
  description: "The request id: the client's own X-Request-Id when it sent a valid one, otherwise generated.",
  schema: { type: "string" }
}

const withoutDecodeError = (schema: Json): Json | undefined => {
  if (schema.$ref === DECODE_ERROR_REF) return undefined
  if (!Array.isArray(schema.anyOf)) return schema
  const rest = schema.anyOf.filter((member) => !(isJson(member) && member.$ref === DECODE_ERROR_REF))
  return rest.length === 1 && isJson(rest[0]) ? rest[0] : { ...schema, anyOf: rest }
}

const codesOf = (schema: Json, components: Json): ReadonlyArray<string> => {
  const members = Array.isArray(schema.anyOf) ? schema.anyOf : [schema]
  return members.flatMap((member) => {
    if (!isJson(member) || typeof member.$ref !== "string") return []
    const target = components[member.$ref.replace("#/components/schemas/", "")]
    const code =
      isJson(target) &&
      isJson(target.properties) &&
      isJson(target.properties.error) &&
      isJson(target.properties.error.properties)
        ? target.properties.error.properties.code
        : undefined
    return isJson(code) && Array.isArray(code.enum) ? code.enum.map(String) : []
  })
}

const rewriteResponse = (response: Json, components: Json): Json | undefined => {
  const content = isJson(response.content) ? response.content["application/json"] : undefined
  if (!isJson(content) || !isJson(content.schema)) {
    return { ...response, headers: { "X-Request-Id": requestIdHeader } }
  }
  const schema = withoutDecodeError(content.schema)
  if (schema === undefined) return undefined
  const codes = codesOf(schema, components)
  const description =
    content.schema === schema || codes.length === 0
      ? response.description
      : `Error envelope; code ${codes.map((code) => `\`${code}\``).join(", ")}.`
  return {
    ...response,
    description,
    headers: { "X-Request-Id": requestIdHeader },
    content: { "application/json": { ...content, schema } }
  }
}

const rewriteOperation = (operation: Json, components: Json): Json => {
  const responses: Json = {}
  for (const [status, response] of Object.entries(isJson(operation.responses) ? operation.responses : {})) {
    const rewritten = isJson(response) ? rewriteResponse(response, components) : undefined
    if (rewritten !== undefined) responses[status] = rewritten
  }
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : []
  return {
    ...operation,
    parameters: [...parameters, { name: "X-Request-Id", in: "header", required: false, ...requestIdHeader }],
    responses
  }
}

export const documentEnvelopeOnly = (spec: Record<string, unknown>): Record<string, unknown> => {
  const components = isJson(spec.components) ? spec.components : {}
  const schemas: Json = { ...(isJson(components.schemas) ? components.schemas : {}) }
  const paths: Json = {}
  for (const [path, item] of Object.entries(isJson(spec.paths) ? spec.paths : {})) {
    const operations: Json = {}
    for (const [method, operation] of Object.entries(isJson(item) ? item : {})) {
      operations[method] = isJson(operation) ? rewriteOperation(operation, schemas) : operation
    }
    paths[path] = operations
  }
  for (const name of BUILT_IN_ONLY) delete schemas[name]
  return { ...spec, paths, components: { ...components, schemas } }
}
