// The declarations of the client's default (Promise) entry, written from the contract's schemas: each route's
// request and decoded success as plain TypeScript types, and its errors as a union discriminated by the envelope's
// `code` (with its HTTP status). Self-contained: they import nothing, so the package needs no effect types.
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { HttpApiSchema, OpenApi } from "@effect/platform"
import { Context, Option, SchemaAST } from "effect"
import { RiskApi } from "../src/Api.ts"

const named = new Map<string, string>()
const nameOf = new Map<SchemaAST.AST, string>()

const key = (name: PropertyKey): string =>
  typeof name === "string" && /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(String(name))

const docOf = (annotated: SchemaAST.Annotated, indent: string): string =>
  Option.match(SchemaAST.getDescriptionAnnotation(annotated), {
    onNone: () => "",
    onSome: (text) => `${indent}/** ${text.replaceAll("*/", "*\\/").replaceAll("\n", ` `)} */\n`
  })

/** The type side of a schema as TypeScript; a schema with an identifier becomes a named, exported type. */
const print = (ast: SchemaAST.AST, indent = "", optional: ReadonlySet<PropertyKey> = new Set()): string => {
  const identifier =
    optional.size === 0 && ast._tag !== "Transformation"
      ? Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(ast))
      : undefined
  if (identifier !== undefined && /^[A-Za-z_$][\w$]*$/.test(identifier)) {
    const known = nameOf.get(ast)
    if (known !== undefined) return known
    const body = printBody(ast, "", optional)
    let name = identifier
    for (let n = 2; named.has(name) && named.get(name) !== body; n++) name = `${identifier}${n}`
    if (!named.has(name)) named.set(name, body)
    nameOf.set(ast, name)
    return name
  }
  return printBody(ast, indent, optional)
}

const printBody = (ast: SchemaAST.AST, indent: string, optional: ReadonlySet<PropertyKey>): string => {
  switch (ast._tag) {
    case "StringKeyword":
      return "string"
    case "NumberKeyword":
      return "number"
    case "BooleanKeyword":
      return "boolean"
    case "UndefinedKeyword":
      return "undefined"
    case "NeverKeyword":
      return "never"
    case "UnknownKeyword":
      return "unknown"
    case "TemplateLiteral":
      return "string"
    case "Literal":
      return ast.literal === null
        ? "null"
        : JSON.stringify(typeof ast.literal === "bigint" ? `${ast.literal}` : ast.literal)
    case "Enums":
      return ast.enums.map(([, value]) => JSON.stringify(value)).join(" | ")
    case "Refinement":
      return print(ast.from, indent)
    case "Transformation":
      return print(ast.to, indent, optional)
    case "Union":
      return [...new Set(ast.types.map((member) => print(member, indent)))].join(" | ")
    case "TupleType": {
      const elements = ast.elements.map((element) => `${print(element.type, indent)}${element.isOptional ? "?" : ""}`)
      const [rest, ...after] = ast.rest.map((element) => print(element.type, indent))
      if (elements.length === 0 && rest !== undefined && after.length === 0)
        return `${ast.isReadonly ? "ReadonlyArray" : "Array"}<${rest}>`
      const all = [...elements, ...(rest === undefined ? [] : [`...Array<${rest}>`]), ...after]
      return `${ast.isReadonly ? "readonly " : ""}[${all.join(", ")}]`
    }
    case "TypeLiteral": {
      const inner = `${indent}  `
      const lines = [
        ...ast.propertySignatures.map(
          (property) =>
            `${docOf(property, inner)}${inner}${property.isReadonly ? "readonly " : ""}${key(property.name)}${
              property.isOptional || optional.has(property.name) ? "?" : ""
            }: ${print(property.type, inner)}`
        ),
        ...ast.indexSignatures.map(
          (index) =>
            `${inner}${index.isReadonly ? "readonly " : ""}[key: ${print(index.parameter, inner)}]: ${print(index.type, inner)}`
        )
      ]
      return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`
    }
    case "Suspend":
      return print(ast.f(), indent, optional)
    default:
      throw new Error(`client declarations: no TypeScript rendering of a ${ast._tag} schema`)
  }
}

// The fields a request may leave out because the schema decodes a default for them (`optionalWith({ default })`).
const defaultedKeys = (ast: SchemaAST.AST): ReadonlySet<PropertyKey> =>
  ast._tag === "Transformation" && ast.transformation._tag === "TypeLiteralTransformation"
    ? new Set(
        ast.transformation.propertySignatureTransformations
          .filter((property) => Option.isSome(property.decode(Option.none())))
          .map((property) => property.to)
      )
    : new Set()

const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> =>
  ast._tag === "Union" ? ast.types.flatMap(members) : ast._tag === "NeverKeyword" ? [] : [ast]

/** An error schema's envelope code and status, read from the envelope's literal `code` and the status annotation. */
const errorOf = (ast: SchemaAST.AST): string | undefined => {
  const encoded = SchemaAST.encodedAST(ast)
  const error = encoded._tag === "TypeLiteral" ? encoded.propertySignatures.find((p) => p.name === "error") : undefined
  const code =
    error?.type._tag === "TypeLiteral" ? error.type.propertySignatures.find((p) => p.name === "code") : undefined
  if (code?.type._tag !== "Literal") return undefined
  return `ApiError<${JSON.stringify(code.type.literal)}, ${HttpApiSchema.getStatus(ast, 500)}>`
}

// Whether every field of a request part may be left out (optional, or defaulted by the server).
const allOptional = (ast: SchemaAST.AST, optional: ReadonlySet<PropertyKey>): boolean => {
  const type = SchemaAST.typeAST(ast)
  return (
    type._tag === "TypeLiteral" &&
    type.propertySignatures.every((property) => property.isOptional || optional.has(property.name))
  )
}

const requestPart = (name: string, schema: Option.Option<{ readonly ast: SchemaAST.AST }>) =>
  Option.match(schema, {
    onNone: () => [],
    onSome: ({ ast }) => {
      const optional = defaultedKeys(ast)
      const canOmit = allOptional(ast, optional)
      return [{ line: `      readonly ${name}${canOmit ? "?" : ""}: ${print(ast, "      ", optional)}`, canOmit }]
    }
  })

const apiErrors = members(RiskApi.errorSchema.ast).flatMap((ast) => errorOf(ast) ?? [])

const groups = Object.entries(RiskApi.groups).map(([groupName, groupValue]) => {
  const group = groupValue as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps
  const groupErrors = members(group.errorSchema.ast).flatMap((ast) => errorOf(ast) ?? [])
  const methods = Object.entries(group.endpoints).map(([name, endpointValue]) => {
    const endpoint = endpointValue as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
    const parts = [
      ...requestPart("path", endpoint.pathSchema),
      ...requestPart("urlParams", endpoint.urlParamsSchema),
      ...requestPart("payload", endpoint.payloadSchema),
      ...requestPart("headers", endpoint.headersSchema)
    ]
    // A request whose parts may all be left out may itself be left out.
    const request =
      parts.length === 0
        ? ""
        : `request${parts.every((part) => part.canOmit) ? "?" : ""}: {\n${parts.map((part) => part.line).join("\n")}\n    }`
    const errors = [
      ...new Set([
        ...members(endpoint.errorSchema.ast).flatMap((ast) => errorOf(ast) ?? []),
        ...groupErrors,
        ...apiErrors
      ])
    ]
    const success = print(endpoint.successSchema.ast, "    ")
    const summary = Option.match(Context.getOption(endpoint.annotations, OpenApi.Summary), {
      onNone: () => "",
      onSome: (text) => `: ${text.replaceAll("*/", "*\\/")}`
    })
    return `    /** ${endpoint.method} ${endpoint.path}${summary} */\n    readonly ${key(name)}: (${request}) => Promise<Result<${success}, ${[
      ...errors,
      "ClientFailure"
    ].join(" | ")}>>`
  })
  return `  readonly ${key(groupName)}: {\n${methods.join("\n")}\n  }`
})

/** The text of dist/index.d.ts. */
export const clientDeclarations = (): string => {
  const client = `export interface RiskClient {\n${groups.join("\n")}\n}`
  const types = [...named].map(([name, body]) => `export type ${name} = ${body}`)
  return `// Generated by scripts/client-declarations.ts from the API's contract: do not edit.

export interface ClientOptions {
  /** Where the API is served, e.g. \`https://risk.example.com\` or \`http://localhost:3000\`. */
  readonly baseUrl: string | URL
  /** An API key (\`rsk_…\`): \`Authorization: Bearer\` for the keyed routes, \`X-Api-Key\` to attribute public calls. */
  readonly apiKey?: string | undefined
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof globalThis.fetch | undefined
}

/** A failure the API answered: the envelope's \`code\`, \`message\`, \`requestId\` and \`details\`, with the HTTP status. */
export interface ApiError<Code extends string, Status extends number> {
  readonly code: Code
  readonly status: Status
  readonly message: string
  readonly requestId: string
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}

/**
 * A failure on the client's side: no answer (\`request_failed\`: network, DNS, abort), an answer the contract does not
 * describe (\`unexpected_response\`, with its status), or a request field or response body that does not match the
 * contract's schema (\`schema_mismatch\`).
 */
export interface ClientFailure {
  readonly code: "request_failed" | "unexpected_response" | "schema_mismatch"
  readonly status?: number
  readonly message: string
}

/** What every call resolves to (it never rejects): the decoded body, or a typed error to switch on by \`code\`. */
export type Result<Data, Error> =
  | { readonly ok: true; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly data: Data }
  | { readonly ok: false; readonly error: Error }

/** The error codes a method can resolve with. */
export type ErrorCode<Method extends (...args: never) => Promise<Result<unknown, { readonly code: string }>>> =
  Awaited<ReturnType<Method>> extends infer R ? (R extends { readonly ok: false; readonly error: infer E } ? E extends { readonly code: infer C } ? C : never : never) : never

/** The client: one method per route, grouped as the API is (\`client.token.risk({ payload })\`). */
${client}

${types.join("\n\n")}

/**
 * The typed client of the API at \`baseUrl\`. Each method resolves to \`{ ok: true, status, headers, data }\` or
 * \`{ ok: false, error }\`, the error's \`code\` one of the route's envelope codes or a \`ClientFailure\` code.
 * Fields the server defaults (\`ttlSeconds\`, \`pollSeconds\`, \`limit\`) are optional.
 */
export declare const makeClient: (options: ClientOptions) => RiskClient
`
}
