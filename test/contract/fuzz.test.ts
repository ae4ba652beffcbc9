import { HttpApi } from "@effect/platform"
import { describe, expect, test } from "bun:test"
import { Arbitrary, Effect, FastCheck as fc, Logger, LogLevel, Option, Schema, Scope } from "effect"
import { Accounts } from "../../src/features/Accounts/Accounts.ts"
import { RiskApi } from "../../src/Api.ts"
import { makeServerFetch } from "../../src/platform/Http/Server.ts"
import { ScansRepo } from "../../src/features/Scans/ScansRepo.ts"
import { databaseKind } from "../support/database.ts"
import { runtimeFor } from "../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../support/fixtures.ts"
import { postJson, testApp } from "../support/http.ts"
import { sqlServices } from "../support/layers.ts"

// Contract fuzzing: requests generated from the same HttpApi definition that /openapi.json is generated from
// (valid ones with Effect's Arbitrary of each payload, path and query schema; invalid ones by mutating them
// or sending arbitrary JSON), some with a body where the method takes none, one over MAX_BODY_BYTES or one
// not sent as JSON, go to every operation of the server's fetch (the edge, its fast paths and HttpApi).
// Every answer must be a documented status, never a 5xx; a success must decode with its schema, a failure
// must be the envelope with a code the document lists for that status and texts within the documented
// maxLength. FUZZ_RUNS sets the requests per operation and kind (default 40).
const RUNS = Number(process.env.FUZZ_RUNS ?? 40)
// A fixed seed keeps the suite's run the same every time; FUZZ_SEED explores others.
const SEED = Number(process.env.FUZZ_SEED ?? 20261123)

const { run, runtime } = runtimeFor(sqlServices({ perMinute: 0 }))
const context = (await runtime.runtime()).context
const app = testApp(context)
const served = await Effect.runPromise(
  Scope.extend(makeServerFetch(context, Logger.minimumLogLevel(LogLevel.Warning)), Effect.runSync(Scope.make()))
)
const MAX_BODY_BYTES = 65_536 // the default
const call = (path: string, init: RequestInit) => served(new Request(`http://localhost${path}`, init), "10.0.0.1")
const mints = Array.from({ length: 5 }, () => newAddress())
await run(ScansRepo.record(mints.map((mint) => decodeScan(cleanScan(mint)))))
const key = await run(
  Effect.gen(function* () {
    const account = yield* Accounts.create("fuzz", {
      plan: "enterprise",
      monthlyQuota: 100_000_000,
      requestsPerMinute: 1_000_000
    })
    return (yield* Accounts.createKey(
      account.id,
      ["token:risk:read", "wallet:risk:read", "deployer:history:read", "watch:write", "webhook:write"],
      null
    )).key
  })
)

type Json = Record<string, unknown>
const document = (await (await app("/openapi.json")).json()) as Json
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** The envelope codes the document lists for one response (its schema, or each member of its anyOf). */
const documentedCodes = (response: unknown): ReadonlyArray<string> => {
  const schema =
    isJson(response) && isJson(response.content) && isJson(response.content["application/json"])
      ? response.content["application/json"].schema
      : undefined
  const members = isJson(schema) && Array.isArray(schema.anyOf) ? schema.anyOf : [schema]
  const components =
    isJson(document.components) && isJson(document.components.schemas) ? document.components.schemas : {}
  return members.flatMap((member) => {
    const target =
      isJson(member) && typeof member.$ref === "string" ? components[member.$ref.split("/").pop()!] : member
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

interface Operation {
  readonly name: string
  readonly method: string
  readonly path: string
  readonly responses: Json
  readonly pathParams: Option.Option<Schema.Schema.Any>
  readonly query: Option.Option<Schema.Schema.Any>
  readonly payload: Option.Option<Schema.Schema.Any>
  readonly success: Schema.Schema.Any
}

const operations: Array<Operation> = []
HttpApi.reflect(RiskApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, group }) => {
    const documented = endpoint.path.replace(/:(\w+)/g, "{$1}")
    const item = (document.paths as Json)[documented] as Json | undefined
    if (item === undefined) return // excluded from the contract (the probes)
    operations.push({
      name: `${group.identifier}.${endpoint.name}`,
      method: endpoint.method,
      path: endpoint.path,
      responses: (item[endpoint.method.toLowerCase()] as Json).responses as Json,
      pathParams: endpoint.pathSchema as unknown as Option.Option<Schema.Schema.Any>,
      query: endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>,
      payload: endpoint.payloadSchema as unknown as Option.Option<Schema.Schema.Any>,
      success: endpoint.successSchema as unknown as Schema.Schema.Any
    })
  }
})

// A valid value of a schema in its wire form; address-like fields are often a scanned mint, to reach past
// the "never scanned" answers.
const wireOf = (schema: Schema.Schema.Any) =>
  Arbitrary.make(schema as Schema.Schema<unknown>).map((value) =>
    Schema.encodeSync(schema as Schema.Schema<unknown>)(value)
  )
const withMints = (value: unknown) =>
  fc.constantFrom(...mints, undefined).map((mint) => {
    if (!isJson(value) || mint === undefined) return value
    const replaced: Json = { ...value }
    for (const field of ["mint", "address", "walletAddress", "wallet"]) if (field in replaced) replaced[field] = mint
    return replaced
  })
const valid = (schema: Option.Option<Schema.Schema.Any>) =>
  Option.match(schema, { onNone: () => fc.constant(undefined), onSome: (s) => wireOf(s).chain(withMints) })

// Invalid: arbitrary JSON, or a valid value with a field dropped, added or replaced by arbitrary JSON.
const mutated = (schema: Option.Option<Schema.Schema.Any>) =>
  valid(schema).chain((value) =>
    fc.oneof(
      fc.jsonValue(),
      fc.constant(value),
      ...(isJson(value)
        ? [
            fc.constantFrom(...Object.keys(value), "unknown").chain((field) =>
              fc.oneof(
                fc.constant(Object.fromEntries(Object.entries(value).filter(([name]) => name !== field))),
                fc.jsonValue().map((replacement) => ({ ...value, [field]: replacement }))
              )
            )
          ]
        : [])
    )
  )

// Path parameters are never empty nor a dot segment: `/api/risk-check/` and `/watches/.` are other paths (URLs
// resolve dot segments before sending), which the document's description answers with 404 or 405.
const pathParams = (schema: Option.Option<Schema.Schema.Any>) =>
  valid(schema).filter(
    (params) =>
      !isJson(params) || Object.values(params).every((value) => value !== "" && value !== "." && value !== "..")
  )

const pathOf = (template: string, params: unknown) =>
  template.replace(/:(\w+)/g, (_match, name: string) =>
    encodeURIComponent(isJson(params) && typeof params[name] === "string" ? (params[name] as string) : newAddress())
  )

const queryOf = (params: unknown) =>
  isJson(params)
    ? `?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, typeof value === "string" ? value : JSON.stringify(value)]))}`
    : ""

const tally = { requests: 0, byStatus: new Map<number, number>() }

/** How a request's body is sent besides its value: as JSON, declared over the limit, or not as JSON. */
const framings = ["json", "json", "json", "oversize", "text"] as const
type Framing = (typeof framings)[number]

const initOf = (operation: Operation, body: unknown, framing: Framing): RequestInit => {
  const authorization = { authorization: `Bearer ${key}` }
  if (operation.method === "GET" || operation.method === "DELETE") {
    // A method that takes no body: one declared anyway is never read, nor refused for its size or type.
    if (framing === "json") return { method: operation.method, headers: authorization }
    return {
      method: operation.method,
      headers: { ...authorization, "content-length": String(MAX_BODY_BYTES * 2), "content-type": "text/plain" }
    }
  }
  const text = body === undefined ? "" : JSON.stringify(body)
  if (framing === "oversize")
    return {
      method: operation.method,
      headers: {
        ...authorization,
        "content-type": "application/json",
        "content-length": String(MAX_BODY_BYTES + 1),
        expect: "100-continue"
      }
    }
  if (framing === "text")
    return {
      ...postJson(text, authorization),
      headers: { ...authorization, "content-type": "text/plain", "content-length": String(Buffer.byteLength(text)) }
    }
  return postJson(text, authorization)
}

/** The documented maxLength of the envelope's message (components ErrorDetail and each error schema). */
const MAX_MESSAGE = 4096

const check = async (
  operation: Operation,
  request: { path: unknown; query: string; body: unknown; framing: Framing }
) => {
  const response = await call(
    `${pathOf(operation.path, request.path)}${request.query}`,
    initOf(operation, request.body, request.framing)
  )
  tally.requests++
  tally.byStatus.set(response.status, (tally.byStatus.get(response.status) ?? 0) + 1)
  const text = await response.text()
  const context = `${operation.name} ${request.framing} ${JSON.stringify(request.path)} ${request.query} ${JSON.stringify(request.body)?.slice(0, 300)} -> ${response.status} ${text.slice(0, 300)}`
  expect([context, response.status < 500]).toEqual([context, true])
  expect([context, String(response.status) in operation.responses]).toEqual([context, true])
  const body = JSON.parse(text) as unknown
  if (response.status < 300) {
    const decoded = Schema.decodeUnknownEither(operation.success as Schema.Schema<unknown, unknown>)(body)
    expect([context, decoded._tag]).toEqual([context, "Right"])
  } else {
    const error = isJson(body) && isJson(body.error) ? body.error : undefined
    expect([context, typeof error?.code, typeof error?.message, error?.requestId]).toEqual([
      context,
      "string",
      "string",
      response.headers.get("x-request-id")
    ])
    const texts = [
      error?.message,
      ...(Array.isArray(error?.details) ? error.details.flatMap((detail: Json) => [detail.path, detail.message]) : [])
    ]
    expect([context, texts.filter((text) => typeof text !== "string" || text.length > MAX_MESSAGE)]).toEqual([
      context,
      []
    ])
    expect([context, documentedCodes(operation.responses[String(response.status)])]).toEqual([
      context,
      expect.arrayContaining([error?.code])
    ])
  }
}

describe(`contract fuzzing on ${databaseKind} (${RUNS} valid and ${RUNS} invalid requests per operation, seed ${SEED})`, () => {
  for (const operation of operations) {
    test(`${operation.method} ${operation.path}: documented statuses only, schemas and envelopes hold`, async () => {
      for (const kind of [valid, mutated]) {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              path: pathParams(operation.pathParams),
              query: kind(operation.query).map(queryOf),
              body: kind(operation.payload),
              framing: fc.constantFrom(...framings)
            }),
            (request) => check(operation, request)
          ),
          { numRuns: RUNS, seed: SEED + operations.indexOf(operation) * 2 + (kind === valid ? 0 : 1) }
        )
      }
    }, 120_000)
  }

  // A watchId that is not a uuid is refused as input (400), and the refusal does not echo the 10 kB whole.
  test("input echoed in a message is cut, not echoed whole: a 10 kB watchId", async () => {
    const response = await call(
      "/api/v1/decision/monitor-position",
      postJson({ mint: mints[0], watchId: "w".repeat(10_000) }, { authorization: `Bearer ${key}` })
    )
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect([response.status, body.error.code, body.error.message.length <= MAX_MESSAGE]).toEqual([
      400,
      "invalid_request",
      true
    ])
  })

  test("a path parameter over the router's length bound is the route's documented 400, not a 405", async () => {
    const watch = await call(`/api/v1/decision/watches/${"w".repeat(10_000)}`, {
      headers: { authorization: `Bearer ${key}` }
    })
    const check = await call(`/api/risk-check/${"1".repeat(200)}`, {})
    expect([watch.status, ((await watch.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      "invalid_request"
    ])
    expect([check.status, ((await check.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      "invalid_address"
    ])
  })

  test("summary", () => {
    console.log(
      `contract fuzzing: ${tally.requests} requests, by status ${JSON.stringify(Object.fromEntries(tally.byStatus))}`
    )
    expect(tally.requests).toBe(operations.length * RUNS * 2)
    expect(tally.byStatus.get(500) ?? 0).toBe(0)
  })
})
