import { type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "@effect/platform"
import { Context, JSONSchema, Option, Schema } from "effect"
import { DecisionApi } from "../../features/Decisions/Api.ts"
import { DeployerApi } from "../../features/Deployer/Api.ts"
import { InsidersApi } from "../../features/Insiders/Api.ts"
import { RiskCheckApi } from "../../features/RiskCheck/Api.ts"
import { TokenApi } from "../../features/TokenRisk/Api.ts"
import { WalletApi } from "../../features/WalletRisk/Api.ts"
import { WatchApi } from "../../features/Watches/Api.ts"
import * as Summaries from "./Summaries.ts"

type Endpoint = HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
type JsonObject = Record<string, unknown>

/** An MCP tool: one route of the HTTP contract, its input and output schemas, and the summary of its answer. */
export interface McpTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly endpoint: Endpoint
  readonly inputSchema: JsonObject & { readonly type: "object" }
  readonly outputSchema: JsonObject & { readonly type: "object" }
  /** One paragraph for the model, from the route's JSON answer. */
  readonly summarize: (body: unknown) => string
}

// JSONSchema.make puts a named root behind `$ref`; MCP wants an object schema at the root.
const objectSchemaOf = (schema: Schema.Schema.Any): JsonObject & { readonly type: "object" } => {
  const {
    $schema: _dialect,
    $ref,
    $defs,
    ...root
  } = JSONSchema.make(schema) as unknown as JsonObject & {
    readonly $ref?: string
    readonly $defs?: Record<string, JsonObject>
  }
  const named = typeof $ref === "string" ? $defs?.[$ref.replace("#/$defs/", "")] : undefined
  const definitions = $defs === undefined ? {} : { $defs }
  return { ...root, ...named, ...definitions, type: "object" }
}

// A GET route's input is its path parameters and its query parameters, as one object.
const inputSchemaOf = (endpoint: Endpoint): JsonObject & { readonly type: "object" } => {
  const parts = [endpoint.pathSchema, endpoint.urlParamsSchema, endpoint.payloadSchema].flatMap((schema) =>
    Option.isSome(schema) ? [objectSchemaOf(schema.value)] : []
  )
  const properties = Object.assign({}, ...parts.map((part) => part.properties ?? {}))
  const required = parts.flatMap((part) => (part.required as ReadonlyArray<string> | undefined) ?? [])
  return Object.assign({}, ...parts, { type: "object", properties, required, additionalProperties: false })
}

const tool = <E extends HttpApiEndpoint.HttpApiEndpoint.Any>(
  name: string,
  route: E,
  summarize: (body: HttpApiEndpoint.HttpApiEndpoint.Success<E>) => string
): McpTool => {
  const endpoint = route as unknown as Endpoint
  const decode = Schema.decodeUnknownOption(
    endpoint.successSchema as Schema.Schema<HttpApiEndpoint.HttpApiEndpoint.Success<E>>
  )
  return {
    name,
    title: Option.getOrElse(Context.getOption(endpoint.annotations, OpenApi.Summary), () => name),
    description: Option.getOrElse(Context.getOption(endpoint.annotations, OpenApi.Description), () => name),
    endpoint,
    inputSchema: inputSchemaOf(endpoint),
    outputSchema: objectSchemaOf(endpoint.successSchema),
    summarize: (body) =>
      Option.match(decode(body), {
        onNone: () => `${endpoint.method} ${endpoint.path} answered: ${JSON.stringify(body).slice(0, 500)}`,
        onSome: summarize
      })
  }
}

// A route of a group, typed by its name (a group's `endpoints` record is typed by the union of all of them).
const route = <
  G extends HttpApiGroup.HttpApiGroup.Any,
  N extends HttpApiEndpoint.HttpApiEndpoint.Name<HttpApiGroup.HttpApiGroup.Endpoints<G>>
>(
  group: G,
  name: N
) =>
  (group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints[
    name
  ] as unknown as HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<G>, N>

/** The tools, each an HTTP route: same schemas, same key, same scope, same charge. */
export const tools: ReadonlyArray<McpTool> = [
  tool("risk_check", route(RiskCheckApi, "check"), Summaries.riskCheck),
  tool("risk_check_batch", route(RiskCheckApi, "batch"), Summaries.riskCheckBatch),
  tool("token_risk", route(TokenApi, "risk"), Summaries.tokenRisk),
  tool("token_insiders", route(InsidersApi, "insiders"), Summaries.tokenInsiders),
  tool("wallet_risk", route(WalletApi, "risk"), Summaries.walletRisk),
  tool("deployer_history", route(DeployerApi, "history"), Summaries.deployerHistory),
  tool("pre_trade_decision", route(DecisionApi, "preTrade"), Summaries.preTrade),
  tool("monitor_position", route(DecisionApi, "monitorPosition"), Summaries.monitorPosition),
  tool("set_watch", route(WatchApi, "setWatch"), Summaries.setWatch)
]

/**
 * The HTTP request a tool call stands for: path parameters into the path, query parameters into the query,
 * everything else the JSON body.
 */
export const requestOf = (
  mcpTool: McpTool,
  args: JsonObject,
  origin: string,
  headers: Readonly<Record<string, string>>
): Request => {
  const { endpoint } = mcpTool
  const rest: JsonObject = { ...args }
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = rest[name]
    delete rest[name]
    return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value ?? ""))
  })
  const url = new URL(path, origin)
  if (Option.isNone(endpoint.payloadSchema)) {
    for (const [name, value] of Object.entries(rest)) {
      if (value !== undefined && value !== null)
        url.searchParams.set(name, typeof value === "string" ? value : JSON.stringify(value))
    }
    return new Request(url.href, { method: endpoint.method, headers })
  }
  return new Request(url.href, {
    method: endpoint.method,
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(rest)
  })
}
