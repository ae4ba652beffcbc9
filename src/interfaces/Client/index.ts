import {
  FetchHttpClient,
  type HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpClient,
  type HttpClientError,
  HttpClientRequest
} from "@effect/platform"
import { Effect, Option, type ParseResult, type Schema } from "effect"
import { RiskApi } from "../../Api.ts"

// The typed client of the Risk Evidence API, built on HttpApiClient from the server's own HttpApi definition.
// Published as `risk-evidence-api-client`, the client/ workspace (compiled to JavaScript with declarations: no Bun, no server code).

export { RiskApi }
export { Forbidden, QuotaExceeded, RateLimited, Unauthorized } from "../../features/Accounts/Errors.ts"
export {
  InternalError,
  InvalidAddress,
  InvalidRequest,
  MalformedJson,
  PayloadTooLarge,
  ServiceUnavailable,
  UnsupportedMediaType,
  WebhookNotFound
} from "../../domain/Errors.ts"
export { BatchTooLarge } from "../../features/RiskCheck/Errors.ts"
export { NotScanned } from "../../features/Scans/Errors.ts"
export { WatchLimitReached, WatchNotFound } from "../../features/Watches/Errors.ts"
export {
  WebhookEventNotFound,
  WebhookLimitReached,
  WebhookUrlRefused
} from "../../features/Webhooks/Errors.ts"

/** What the error envelope says besides the message, kept on every typed API error. */
export interface ErrorEnvelope {
  readonly code: string
  readonly requestId: string
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}

/** An API error class as the client decodes it: the class, plus its envelope's code, request id and details. */
export type WithEnvelope<E> = E extends ParseResult.ParseError | HttpClientError.HttpClientError
  ? E
  : E extends { readonly _tag: string; readonly message: string }
    ? E & ErrorEnvelope
    : E

// Request fields the server defaults, by endpoint: optional on input (test/interfaces/Client checks this table against
// the schemas' defaults).
interface Defaulted {
  readonly history: { readonly urlParams: "limit" }
  readonly setWatch: { readonly payload: "ttlSeconds" | "pollSeconds" }
  readonly listWebhookDeliveries: { readonly urlParams: "limit" }
}

type DefaultedKeys<Name, Part extends string> = Name extends keyof Defaulted
  ? Part extends keyof Defaulted[Name]
    ? Defaulted[Name][Part]
    : never
  : never

type Optional<T, K> = [T] extends [never]
  ? never
  : [K] extends [never]
    ? T
    : Omit<T, K & keyof T> & Partial<Pick<T, K & keyof T>>

type ClientEndpoint<E> =
  E extends HttpApiEndpoint.HttpApiEndpoint<
    infer Name,
    infer Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer Error,
    infer _R,
    infer _RE
  >
    ? HttpApiEndpoint.HttpApiEndpoint<
        Name,
        Method,
        Path,
        Optional<UrlParams, DefaultedKeys<Name, "urlParams">>,
        Optional<Payload, DefaultedKeys<Name, "payload">>,
        Headers,
        Success,
        WithEnvelope<Error>
      >
    : never

// The server's middleware and services leave the group types: a client needs none of them.
type ClientGroup<G> =
  G extends HttpApiGroup.HttpApiGroup<infer Id, infer Endpoints, infer Error, infer _R, infer TopLevel>
    ? HttpApiGroup.HttpApiGroup<Id, ClientEndpoint<Endpoints>, WithEnvelope<Error>, never, TopLevel>
    : never

type ApiGroups = typeof RiskApi extends HttpApi.HttpApi<infer _Id, infer Groups, infer _E, infer _R> ? Groups : never
type ApiError = typeof RiskApi extends HttpApi.HttpApi<infer _Id, infer _Groups, infer E, infer _R> ? E : never

/** The client: one method per route, grouped as the API is (`client.token.risk({ payload })`). */
export type RiskClient = HttpApiClient.Client<ClientGroup<ApiGroups>, WithEnvelope<ApiError>, never>

export interface ClientOptions {
  /** Where the API is served, e.g. `https://risk.example.com` or `http://localhost:3000`. */
  readonly baseUrl: string | URL
  /** An API key (`rsk_…`): `Authorization: Bearer` for the keyed routes, `X-Api-Key` to attribute public calls. */
  readonly apiKey?: string | undefined
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof globalThis.fetch | undefined
}

// The values a schema fills in when a field is missing (`Schema.optionalWith(..., { default })`).
const defaultsOf = (schema: Option.Option<Schema.Schema.Any>): Record<string, unknown> => {
  const ast = Option.getOrUndefined(schema)?.ast
  const defaults: Record<string, unknown> = {}
  if (ast?._tag !== "Transformation" || ast.transformation._tag !== "TypeLiteralTransformation") return defaults
  for (const property of ast.transformation.propertySignatureTransformations) {
    const value = property.decode(Option.none())
    if (Option.isSome(value)) defaults[String(property.to)] = value.value
  }
  return defaults
}

/** The server's defaults of each endpoint's query and body fields, by group and endpoint. */
export const requestDefaults: Readonly<
  Record<
    string,
    Record<string, { readonly urlParams: Record<string, unknown>; readonly payload: Record<string, unknown> }>
  >
> = Object.fromEntries(
  Object.entries(RiskApi.groups).map(([groupName, group]) => [
    groupName,
    Object.fromEntries(
      Object.entries((group as unknown as HttpApiGroup.HttpApiGroup.AnyWithProps).endpoints).map(([name, endpoint]) => [
        name,
        { urlParams: defaultsOf(endpoint.urlParamsSchema), payload: defaultsOf(endpoint.payloadSchema) }
      ])
    )
  ])
)

type Call = (request?: Record<string, unknown>) => unknown

// A request missing a defaulted field gets the server's default before HttpApiClient encodes it.
const withDefaults = (client: Record<string, Record<string, Call>>): RiskClient =>
  Object.fromEntries(
    Object.entries(client).map(([groupName, methods]) => [
      groupName,
      Object.fromEntries(
        Object.entries(methods).map(([name, call]) => {
          const defaults = requestDefaults[groupName]?.[name]
          const filled: Call = (request = {}) => {
            const fill = (part: "payload" | "urlParams") =>
              Object.keys(defaults?.[part] ?? {}).length === 0
                ? {}
                : { [part]: { ...defaults?.[part], ...(request[part] as object) } }
            return call({ ...request, ...fill("payload"), ...fill("urlParams") })
          }
          return [name, filled]
        })
      )
    ])
  ) as unknown as RiskClient

/**
 * The typed client of the API at `baseUrl`. Each method returns an Effect: the decoded body, or a typed error
 * (`NotScanned`, `QuotaExceeded`, … with `code`, `message`, `requestId` and `details`).
 */
export const makeClient = (options: ClientOptions): RiskClient => {
  const { apiKey } = options
  const client = HttpApiClient.make(RiskApi, {
    baseUrl: options.baseUrl,
    ...(apiKey === undefined
      ? {}
      : {
          transformClient: (http: HttpClient.HttpClient) =>
            HttpClient.mapRequest(http, (request) =>
              HttpClientRequest.setHeader(HttpClientRequest.bearerToken(request, apiKey), "x-api-key", apiKey)
            )
        })
  }).pipe(
    Effect.provide(FetchHttpClient.layer),
    options.fetch === undefined ? (effect) => effect : Effect.provideService(FetchHttpClient.Fetch, options.fetch)
  )
  return withDefaults(Effect.runSync(client) as unknown as Record<string, Record<string, Call>>)
}
