import type { Scope } from "../../domain/Scope.ts"
import { documentEnvelopeOnly } from "./OpenApiDocument.ts"
import examples from "./OpenApiExamples.json" with { type: "json" }
import { headerComponents, responseHeadersOf, routeKindOf } from "./OpenApiHeaders.ts"
import { boundSchemas } from "./OpenApiSchemas.ts"

// What HttpApi cannot express, added to the generated document: each keyed route's scope on its security
// requirement, the optional X-Api-Key of the public routes, every response's headers, examples recorded
// from the demo dataset (OpenApiExamples.json), bounds and formats, and who to contact.

type Json = Record<string, unknown>

const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const REQUEST_ID_EXAMPLE = "6f1c2a4e-3b7d-4e0a-9d52-1f8e7c6b5a40"

interface OperationExamples {
  readonly parameters?: Json
  readonly request?: unknown
  readonly response: unknown
}

const recorded = examples as Record<string, OperationExamples>

/** A message the server sends for each envelope code; forbidden names the route's scope. */
const messageOf = (code: string, scope: Scope | undefined): string => {
  switch (code) {
    case "invalid_address":
      return '"not-a-mint" is not a Solana address (base58 of 32 bytes).'
    case "invalid_request":
      return "addresses: at least one address is required"
    case "malformed_json":
      return "The body is not valid JSON."
    case "batch_too_large":
      return "At most 50 addresses per batch; got 51."
    case "payload_too_large":
      return "The body is 70000 bytes or more; the limit is 65536."
    case "unsupported_media_type":
      return "Content-Type text/plain is not accepted; send application/json."
    case "unauthorized":
      return "A valid API key is required: send `Authorization: Bearer <key>`."
    case "forbidden":
      return `This key lacks the scope this route needs: ${scope ?? "token:risk:read"}.`
    case "not_scanned":
      return "12ubC6JihQdk4EyXFL9k2rJuggitUJyEXPTGZDYxsTGY has never been scanned; POST /api/risk-check/12ubC6JihQdk4EyXFL9k2rJuggitUJyEXPTGZDYxsTGY/rescan to queue a scan."
    case "watch_not_found":
      return "No watch 2afee1b5-c793-4939-822e-72d8ea077378 for this account."
    case "watch_limit_reached":
      return "At most 100 unexpired watches per account."
    case "webhook_not_found":
      return "No webhook endpoint 7c0e6f5a-2b1d-4c8e-9f3a-5d6b7e8f9a01 for this account."
    case "webhook_event_not_found":
      return "No event 1f6b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d for webhook endpoint 7c0e6f5a-2b1d-4c8e-9f3a-5d6b7e8f9a01."
    case "webhook_url_refused":
      return "url: 10.0.0.7 is a private address (10.0.0.0/8)."
    case "webhook_limit_reached":
      return "At most 10 webhook endpoints per account."
    case "rate_limited":
      return "More than 30 requests this minute; retry in 41 s."
    case "quota_exceeded":
      return "Monthly quota of 5000 cost units is used up (5000 used); it resets in 604800 s."
    case "service_unavailable":
      return "The evidence database is unreachable; retry shortly."
    default:
      return "An unexpected error occurred; quote the requestId to support."
  }
}

const envelopeExample = (code: string, scope: Scope | undefined): Json => ({
  error: {
    code,
    message: messageOf(code, scope),
    requestId: REQUEST_ID_EXAMPLE,
    ...(code === "invalid_request"
      ? { details: [{ path: "addresses", message: "at least one address is required" }] }
      : {})
  }
})

/** The envelope codes a response documents: the `code` enum of each envelope it references. */
const codesOf = (schema: unknown, components: Json): ReadonlyArray<string> => {
  const members = isJson(schema) && Array.isArray(schema.anyOf) ? schema.anyOf : [schema]
  return members.flatMap((member) => {
    const target =
      isJson(member) && typeof member.$ref === "string"
        ? components[member.$ref.replace("#/components/schemas/", "")]
        : member
    const error = isJson(target) && isJson(target.properties) ? target.properties.error : undefined
    const code = isJson(error) && isJson(error.properties) ? error.properties.code : undefined
    return isJson(code) && Array.isArray(code.enum) ? code.enum.map(String) : []
  })
}

const withContentExamples = (
  response: Json,
  status: string,
  example: unknown,
  scope: Scope | undefined,
  schemas: Json
) => {
  const content = isJson(response.content) ? response.content["application/json"] : undefined
  if (!isJson(content)) return response
  const codes = codesOf(content.schema, schemas)
  const documented: Json =
    codes.length > 0
      ? {
          examples: Object.fromEntries(
            codes.map((code) => [code, { summary: code, value: envelopeExample(code, scope) }])
          )
        }
      : status.startsWith("2") && example !== undefined
        ? { example }
        : {}
  return { ...response, content: { "application/json": { ...content, ...documented } } }
}

const completeOperation = (path: string, operation: Json, scope: Scope | undefined, schemas: Json): Json => {
  const kind = routeKindOf(path)
  const example = recorded[String(operation.operationId)]
  const responses: Json = {}
  for (const [status, response] of Object.entries(isJson(operation.responses) ? operation.responses : {})) {
    if (!isJson(response)) continue
    const isEnvelope =
      codesOf(
        isJson(response.content) && isJson(response.content["application/json"])
          ? response.content["application/json"].schema
          : undefined,
        schemas
      ).length > 0
    responses[status] = {
      ...withContentExamples(response, status, example?.response, scope, schemas),
      headers: responseHeadersOf(kind, status, isEnvelope)
    }
  }
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((parameter) => {
    if (!isJson(parameter)) return parameter
    if (parameter.name === "X-Request-Id") return { $ref: "#/components/parameters/RequestId" }
    const value = example?.parameters?.[String(parameter.name)]
    return value === undefined ? parameter : { ...parameter, example: value }
  })
  const body =
    isJson(operation.requestBody) && isJson(operation.requestBody.content)
      ? operation.requestBody.content["application/json"]
      : undefined
  const requestBody =
    isJson(body) && example?.request !== undefined
      ? { ...(operation.requestBody as Json), content: { "application/json": { ...body, example: example.request } } }
      : operation.requestBody
  const security = scope !== undefined ? [{ bearer: [scope] }] : kind === "public" ? [{}, { apiKey: [] }] : [{}]
  return {
    ...operation,
    security,
    parameters,
    ...(requestBody === undefined ? {} : { requestBody }),
    responses
  }
}

const info = (document: Json): Json => ({
  ...(isJson(document.info) ? document.info : {}),
  contact: { name: "Risk Evidence API maintainers" },
  license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" }
})

const servers = [
  {
    url: "/",
    description: "Local or production: the server that serves this document (npm start: http://localhost:3000).",
    "x-internal": false
  },
  {
    url: "https://{host}",
    description: "Production: a deployment behind TLS; `host` is its host name (and port).",
    variables: { host: { default: "risk-api.example.com" } },
    "x-internal": false
  }
]

const securitySchemes = (components: Json): Json => ({
  ...(isJson(components.securitySchemes) ? components.securitySchemes : {}),
  apiKey: {
    type: "apiKey",
    in: "header",
    name: "X-Api-Key",
    description:
      "Optional on the public risk-check routes: attributes the traffic to your account (counted, never " +
      "charged; a missing or bad key never fails the call, and the limit follows the account instead of the IP)."
  }
})

/**
 * The served document: HttpApi's, with only the envelope as error shape (OpenApiDocument.ts), scopes,
 * headers, examples, bounds and contact. `scopes` maps an operationId to the scope its key needs.
 */
export const completeContract = (generated: Json, scopes: ReadonlyMap<string, Scope>): Json => {
  const document = documentEnvelopeOnly(generated)
  const components = isJson(document.components) ? document.components : {}
  const schemas = isJson(components.schemas) ? components.schemas : {}
  const paths: Json = {}
  for (const [path, item] of Object.entries(isJson(document.paths) ? document.paths : {})) {
    const operations: Json = {}
    for (const [method, operation] of Object.entries(isJson(item) ? item : {})) {
      operations[method] = isJson(operation)
        ? completeOperation(path, operation, scopes.get(String(operation.operationId)), schemas)
        : operation
    }
    paths[path] = operations
  }
  return boundSchemas({
    ...document,
    info: info(document),
    servers,
    paths,
    components: {
      ...components,
      headers: headerComponents,
      parameters: {
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description:
            "Your own request id (letters, digits and `._:-`, up to 128 characters), echoed in the response; anything else is replaced.",
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", maxLength: 128 },
          example: REQUEST_ID_EXAMPLE
        }
      },
      securitySchemes: securitySchemes(components)
    }
  })
}
