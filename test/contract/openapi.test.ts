import SwaggerParser from "@apidevtools/swagger-parser"
import { memoryServices } from "../support/layers.ts"
import { describe, expect, test } from "bun:test"
import { runtimeFor } from "../support/effect.ts"
import { testApp } from "../support/http.ts"

// The contract changes only deliberately: the served document must equal the committed snapshot.
// After an intended change: UPDATE_OPENAPI_SNAPSHOT=1 bun test test/contract/openapi.test.ts
const SNAPSHOT = new URL("./openapi.snapshot.json", import.meta.url).pathname

const { runtime } = runtimeFor(memoryServices())
const app = testApp((await runtime.runtime()).context)
const served = async () => (await app("/openapi.json")).json() as Promise<Record<string, any>>

describe("/openapi.json", () => {
  test("equals the committed snapshot", async () => {
    const document = await served()
    if (process.env.UPDATE_OPENAPI_SNAPSHOT === "1") await Bun.write(SNAPSHOT, `${JSON.stringify(document, null, 2)}\n`)
    expect(document).toEqual(await Bun.file(SNAPSHOT).json())
  })

  test("is a valid OpenAPI 3.1 document", async () => {
    const document = await served()
    await SwaggerParser.validate(structuredClone(document) as never)
    expect(document.openapi).toBe("3.1.0")
  })

  test("documents only the envelope as error bodies, never HttpApi's _tag shape", async () => {
    const text = JSON.stringify(await served())
    expect(text).not.toContain("HttpApiDecodeError")
    expect(text).not.toContain('"_tag"')
  })

  test("every operation has a summary, a description and the statuses it can return", async () => {
    const document = await served()
    const statuses: Record<string, Array<string>> = {}
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect([path, method, typeof operation.summary, typeof operation.description]).toEqual([
          path,
          method,
          "string",
          "string"
        ])
        statuses[`${method.toUpperCase()} ${path}`] = Object.keys(operation.responses).sort()
      }
    }
    expect(statuses).toEqual({
      "GET /api/risk-check/{address}": ["200", "400", "429", "500", "503"],
      "POST /api/risk-check/batch": ["200", "400", "413", "415", "429", "500", "503"],
      "POST /api/risk-check/{address}/rescan": ["202", "400", "413", "415", "429", "500", "503"],
      "POST /api/v1/token/risk": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "GET /api/v1/token/{mint}/insiders": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "POST /api/v1/wallet/risk": ["200", "400", "401", "403", "413", "415", "429", "500", "503"],
      "GET /api/v1/deployer/{wallet}/history": ["200", "400", "401", "403", "429", "500", "503"],
      "POST /api/v1/decision/pre-trade": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "POST /api/v1/decision/monitor-position": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "POST /api/v1/decision/set-watch": ["201", "400", "401", "403", "404", "409", "413", "415", "429", "500", "503"],
      "GET /api/v1/decision/watches": ["200", "401", "403", "429", "500", "503"],
      "GET /api/v1/decision/watches/{id}": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "DELETE /api/v1/decision/watches/{id}": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "POST /api/v1/webhooks": ["201", "400", "401", "403", "409", "413", "415", "429", "500", "503"],
      "GET /api/v1/webhooks": ["200", "401", "403", "429", "500", "503"],
      "GET /api/v1/webhooks/{id}": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "DELETE /api/v1/webhooks/{id}": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "POST /api/v1/webhooks/{id}/rotate-secret": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "GET /api/v1/webhooks/{id}/deliveries": ["200", "400", "401", "403", "404", "429", "500", "503"],
      "POST /api/v1/webhooks/{id}/deliveries/{eventId}/redeliver": [
        "202",
        "400",
        "401",
        "403",
        "404",
        "429",
        "500",
        "503"
      ]
    })
  })

  test("has a servers entry and the interactive docs are served", async () => {
    expect((await served()).servers?.length).toBeGreaterThan(0)
    const docs = await app("/docs")
    expect([docs.status, docs.headers.get("content-type")]).toEqual([200, "text/html"])
  })
})

// ajv comes with the pinned Spectral CLI; OpenAPI 3.1 schemas are JSON Schema 2020-12.
const validatorOf = async (document: Record<string, any>) => {
  const { default: Ajv2020 } = await import("ajv/dist/2020.js")
  const { default: addFormats } = await import("ajv-formats")
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema({ $id: "openapi", components: document.components })
  return (schema: unknown, value: unknown): Array<string> => {
    const validate = ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'))
    )
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`)
  }
}

type Operation = Record<string, any>
const operationsOf = (document: Record<string, any>): Array<[string, Operation]> =>
  Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation
    ])
  )

describe("the contract's completeness", () => {
  test("every operation has examples (parameters, body, every response) that validate against their own schemas", async () => {
    const document = await served()
    const check = await validatorOf(document)
    const problems: Record<string, Array<string>> = {}
    const missing: Array<string> = []
    for (const [name, operation] of operationsOf(document)) {
      const found: Array<string> = []
      for (const parameter of operation.parameters ?? []) {
        if (parameter.$ref !== undefined || parameter.example === undefined) continue
        found.push(...check(parameter.schema, parameter.example).map((problem) => `${parameter.name}: ${problem}`))
      }
      const body = operation.requestBody?.content?.["application/json"]
      if (body !== undefined && body.example === undefined) missing.push(`${name} request`)
      if (body !== undefined) found.push(...check(body.schema, body.example).map((problem) => `request: ${problem}`))
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const content = response.content?.["application/json"]
        const values =
          content?.example !== undefined
            ? [content.example]
            : Object.values(content?.examples ?? {}).map((example: any) => example.value)
        if (values.length === 0) missing.push(`${name} ${status}`)
        for (const value of values)
          found.push(...check(content.schema, value).map((problem) => `${status}: ${problem}`))
      }
      const pathParameters = (operation.parameters ?? []).filter((parameter: any) => parameter.in === "path")
      for (const parameter of pathParameters)
        if (parameter.example === undefined) missing.push(`${name} ${parameter.name}`)
      if (found.length > 0) problems[name] = found
    }
    expect({ problems, missing }).toEqual({ problems: {}, missing: [] })
    // The check itself can fail: a timestamp that is not one, a score out of range.
    const result = document.paths["/api/risk-check/{address}"].get.responses["200"].content["application/json"]
    const wrong = check(result.schema, { ...result.example, scanned_at: "yesterday", score: 101 }).join("; ")
    expect([wrong.includes("/scanned_at must match format"), wrong.includes("/score must be <= 100")]).toEqual([
      true,
      true
    ])
  })

  test("examples use demo mints", async () => {
    const text = JSON.stringify(await served())
    for (const mint of [
      "BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz",
      "3RPwfg3zWDUQQTX1ybf6rUiyHZDizbSJGRyMLtd5bUDN"
    ]) {
      expect(text).toContain(mint)
    }
  })

  test("every request string is bounded and restricted; integers have a format and a range", async () => {
    const document = await served()
    const loose: Array<string> = []
    const visit = (schema: any, where: string): void => {
      if (schema === null || typeof schema !== "object") return
      if (schema.$ref !== undefined) {
        visit(document.components.schemas[schema.$ref.split("/").pop()], `${where}→${schema.$ref.split("/").pop()}`)
        return
      }
      if (schema.type === "string") {
        const bounded = "maxLength" in schema || "enum" in schema || "const" in schema
        const restricted = "pattern" in schema || "format" in schema || "enum" in schema || "const" in schema
        if (!bounded || !restricted) loose.push(where)
      }
      if (
        schema.type === "integer" &&
        !(schema.format && "maximum" in schema && ("minimum" in schema || "exclusiveMinimum" in schema))
      ) {
        loose.push(where)
      }
      for (const [key, value] of Object.entries(schema)) {
        if (key === "properties")
          for (const [name, child] of Object.entries(value as object)) visit(child, `${where}.${name}`)
        else if (key === "items" || key === "additionalProperties") visit(value, `${where}[]`)
        else if (key === "anyOf" || key === "oneOf") for (const child of value as Array<unknown>) visit(child, where)
      }
    }
    for (const [name, operation] of operationsOf(document)) {
      for (const parameter of operation.parameters ?? []) {
        const resolved =
          parameter.$ref === undefined ? parameter : document.components.parameters[parameter.$ref.split("/").pop()]
        visit(resolved.schema, `${name} ${resolved.name}`)
      }
      visit(operation.requestBody?.content?.["application/json"]?.schema, `${name} body`)
    }
    expect(loose).toEqual([])
    expect(document.paths["/api/v1/deployer/{wallet}/history"].get.parameters[1].schema).toMatchObject({
      type: "integer",
      format: "int32",
      minimum: 1,
      maximum: 200,
      default: 50
    })
    const titles = [...JSON.stringify(document).matchAll(/"title":"([^"]+)"/g)].map((match) => match[1])
    expect(titles).toEqual(["Solana Risk Evidence API"])
  })

  test("every response declares the headers it sends; keyed routes name their scope", async () => {
    const document = await served()
    const lacking: Array<string> = []
    for (const [name, operation] of operationsOf(document)) {
      const keyed = name.includes("/api/v1/")
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const wanted = ["X-Request-Id", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Cache-Control"]
        if (/^[24]/.test(status))
          wanted.push(
            "RateLimit",
            "RateLimit-Policy",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset"
          )
        if (/^[24]/.test(status) && keyed) wanted.push("X-Quota-Limit", "X-Quota-Remaining")
        if (status === "429" || status === "503") wanted.push("Retry-After")
        const absent = wanted.filter((header) => response.headers?.[header] === undefined)
        if (absent.length > 0) lacking.push(`${name} ${status}: ${absent.join(", ")}`)
      }
      const security = JSON.stringify(operation.security)
      if (keyed ? !/^\[\{"bearer":\["[a-z:]+"\]\}\]$/.test(security) : security !== '[{},{"apiKey":[]}]') {
        lacking.push(`${name} security ${security}`)
      }
    }
    expect(lacking).toEqual([])
    expect(document.paths["/api/v1/wallet/risk"].post.security).toEqual([{ bearer: ["wallet:risk:read"] }])
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Api-Key"
    })
    expect([document.info.contact?.name, document.info.license?.name, document.servers[0].url]).toEqual([
      "Risk Evidence API maintainers",
      "Proprietary",
      "/"
    ])
  })
})

describe("/docs", () => {
  test("is sent with an ETag and Cache-Control, and answers 304 to a client that holds it", async () => {
    const first = await app("/docs")
    const etag = first.headers.get("etag")
    expect([first.status, first.headers.get("cache-control"), /^"[A-Za-z0-9_-]{27}"$/.test(etag ?? "")]).toEqual([
      200,
      "public, max-age=300",
      true
    ])
    const again = await app("/docs", { headers: { "if-none-match": etag! } })
    expect([again.status, again.headers.get("etag"), await again.text()]).toEqual([304, etag, ""])
    const spec = await app("/openapi.json", { headers: { "if-none-match": '"stale"' } })
    expect([spec.status, spec.headers.get("cache-control"), spec.headers.get("etag")?.length]).toEqual([
      200,
      "public, max-age=300",
      29
    ])
  })

  test("its Test Request starts from a demo mint on the server that serves it", async () => {
    const page = await (await app("/docs")).text()
    const document = await served()
    expect(document.paths["/api/risk-check/{address}"].get.parameters[0].example).toBe(
      "BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz"
    )
    expect(document.servers[0].url).toBe("/")
    expect(page).toContain("BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz")
  })

  test("works offline and on the right paths: no outside fonts or scripts, its own origin as the server", async () => {
    const page = await (await app("/docs")).text()
    const configuration = /dataset\.configuration = JSON\.stringify\((\{[\s\S]*?\})\)\n/.exec(page)?.[1] ?? ""
    // Scalar's default fonts come from fonts.scalar.com; "/" as the server makes its Send button say //api/....
    expect(configuration).toContain("withDefaultFonts: false")
    expect(configuration).toContain("servers: [{ url: window.location.origin")
    expect([...page.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((match) => match[1])).toEqual([])
  })
})
