import { describe, expect, test } from "bun:test"
import { memoryServices } from "../../support/layers.ts"
import { runtimeFor } from "../../support/effect.ts"
import { postJson, read, testApp } from "../../support/http.ts"
import { newAddress } from "../../support/fixtures.ts"

// Every failure, whatever its origin, is {"error": {code, message, requestId, details?}} with its status.
const { runtime } = runtimeFor(memoryServices())
const app = testApp((await runtime.runtime()).context)

const expectEnvelope = async (response: Response, status: number, code: string) => {
  const got = await read(response)
  expect({ status: got.status, code: got.body?.error?.code }).toEqual({ status, code })
  expect(typeof got.body.error.message).toBe("string")
  expect(got.body.error.message.length).toBeGreaterThan(0)
  expect(got.body.error.requestId).toBe(got.headers["x-request-id"])
  expect(got.headers["content-type"]).toContain("application/json")
  return got
}

describe("error envelope", () => {
  test("unknown route is 404 not_found", async () => {
    await expectEnvelope(await app("/api/nope"), 404, "not_found")
  })

  test("wrong method on a known path is 405 with Allow", async () => {
    const got = await expectEnvelope(
      await app(`/api/risk-check/${newAddress()}`, { method: "DELETE" }),
      405,
      "method_not_allowed"
    )
    expect(got.headers.allow).toBe("GET, HEAD")
    const batch = await expectEnvelope(await app("/api/risk-check/batch", { method: "PUT" }), 405, "method_not_allowed")
    expect(batch.headers.allow).toBe("GET, POST, HEAD")
  })

  test("routing is exact: another letter case is 404, not the route", async () => {
    await expectEnvelope(await app(`/API/RISK-CHECK/${newAddress()}`), 404, "not_found")
    await expectEnvelope(await app("/Health"), 404, "not_found")
  })

  test("a path parameter that is not valid percent-encoding is the route's documented 400, not a 405", async () => {
    await expectEnvelope(await app("/api/risk-check/%"), 400, "invalid_address")
    await expectEnvelope(await app("/api/risk-check/%zz/rescan", { method: "POST" }), 400, "invalid_address")
    const got = await expectEnvelope(await app("/api/v1/decision/watches/%E0%A4%A"), 400, "invalid_request")
    expect(got.body.error.details).toEqual([{ path: "path", message: "the path is not valid percent-encoding" }])
    await expectEnvelope(await app("/api/v1/no-such-route/%"), 404, "not_found")
  })

  test("a path parameter left empty before another segment is the route's 400, not an undocumented 404", async () => {
    const got = await expectEnvelope(
      await app("/api/v1/webhooks/abc/deliveries//redeliver", { method: "POST" }),
      400,
      "invalid_request"
    )
    expect(got.body.error.details).toEqual([{ path: "path", message: "a path parameter is empty" }])
    await expectEnvelope(await app("/api/risk-check//rescan", { method: "POST" }), 400, "invalid_address")
  })

  test("HEAD is free on the public routes and refused on the metered ones (405 naming GET)", async () => {
    expect((await app(`/api/risk-check/${newAddress()}`, { method: "HEAD" })).status).toBe(200)
    const keyed = await app("/api/v1/decision/watches", { method: "HEAD" })
    expect([keyed.status, keyed.headers.get("allow")]).toEqual([405, "GET"])
  })

  test("JSON nested deeper than 32 levels is 400 before anything decodes it (10,000 levels included)", async () => {
    for (const depth of [33, 10_000]) {
      const body = `{"addresses":${"[".repeat(depth)}${"]".repeat(depth)}}`
      const got = await expectEnvelope(await app("/api/risk-check/batch", postJson(body)), 400, "invalid_request")
      expect(got.body.error.details).toEqual([{ path: "body", message: "nested deeper than 32 levels" }])
    }
    // Brackets inside strings are not nesting.
    const quoted = await read(await app("/api/risk-check/batch", postJson({ addresses: ["[".repeat(100)] })))
    expect([quoted.status, Object.keys(quoted.body.results)]).toEqual([200, ["[".repeat(100)]])
  })

  test("a rejected value is quoted in the message cut to a few hundred characters, never echoed whole", async () => {
    const got = await expectEnvelope(
      await app("/api/risk-check/batch", postJson({ addresses: "x".repeat(50_000) })),
      400,
      "invalid_request"
    )
    expect(got.body.error.message.length).toBeLessThan(400)
    expect(got.body.error.details[0].message.length).toBeLessThanOrEqual(301)
  })

  test("only application/json (with at most charset=utf-8) is a JSON body: application/jsonx is 415", async () => {
    const body = JSON.stringify({ addresses: [newAddress()] })
    const as = (type: string) => app("/api/risk-check/batch", postJson(body, { "content-type": type }))
    await expectEnvelope(await as("application/jsonx"), 415, "unsupported_media_type")
    await expectEnvelope(await as("application/json; charset=latin1"), 415, "unsupported_media_type")
    expect((await as("application/json; charset=UTF-8")).status).toBe(200)
  })

  test("malformed JSON is 400 malformed_json", async () => {
    await expectEnvelope(await app("/api/risk-check/batch", postJson('{"addresses": [')), 400, "malformed_json")
  })

  test("an empty body is 400, not a crash", async () => {
    const got = await read(await app("/api/risk-check/batch", postJson("")))
    expect({ status: got.status, code: got.body.error.code }).toEqual({ status: 400, code: "malformed_json" })
  })

  test("a missing field is 400 invalid_request naming the field", async () => {
    const got = await expectEnvelope(await app("/api/risk-check/batch", postJson({})), 400, "invalid_request")
    expect(got.body.error.details).toEqual([{ path: "addresses", message: "is missing" }])
  })

  test("a wrong type is 400 invalid_request naming the field and the problem", async () => {
    const got = await expectEnvelope(
      await app("/api/risk-check/batch", postJson({ addresses: "abc" })),
      400,
      "invalid_request"
    )
    expect(got.body.error.details[0].path).toBe("addresses")
    expect(got.body.error.message).toContain("addresses")
    const element = await expectEnvelope(
      await app("/api/risk-check/batch", postJson({ addresses: [newAddress(), 7] })),
      400,
      "invalid_request"
    )
    expect(element.body.error.details[0].path).toBe("addresses[1]")
  })

  test("an unknown field is 400 invalid_request naming it", async () => {
    const got = await expectEnvelope(
      await app("/api/risk-check/batch", postJson({ addresses: [newAddress()], adresses: [] })),
      400,
      "invalid_request"
    )
    expect(got.body.error.details[0].path).toBe("adresses")
  })

  test("a JSON body that is not an object is 400 invalid_request", async () => {
    await expectEnvelope(await app("/api/risk-check/batch", postJson("[1,2]")), 400, "invalid_request")
    await expectEnvelope(await app("/api/risk-check/batch", postJson("null")), 400, "invalid_request")
  })

  test("a body over the limit is 413 payload_too_large", async () => {
    const huge = JSON.stringify({ addresses: [newAddress()], pad: "x".repeat(70_000) })
    await expectEnvelope(await app("/api/risk-check/batch", postJson(huge)), 413, "payload_too_large")
  })

  test("a chunked body over the limit is 413 payload_too_large too", async () => {
    const huge = JSON.stringify({ addresses: ["1".repeat(70_000)] })
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: huge
    }
    await expectEnvelope(await app("/api/risk-check/batch", init), 413, "payload_too_large")
  })

  test("a non-JSON content type is 415 unsupported_media_type", async () => {
    const init = { method: "POST", headers: { "content-type": "text/plain", "content-length": "9" }, body: "addresses" }
    await expectEnvelope(await app("/api/risk-check/batch", init), 415, "unsupported_media_type")
  })

  test("a bodyless POST is not refused for its Content-Type", async () => {
    const got = await read(
      await app(`/api/risk-check/${newAddress()}/rescan`, { method: "POST", headers: { "content-type": "text/plain" } })
    )
    expect(got.status).toBe(202)
  })

  test("a client X-Request-Id is echoed in the header and the envelope", async () => {
    const got = await read(await app("/api/nope", { headers: { "x-request-id": "bot-42.attempt:1" } }))
    expect([got.headers["x-request-id"], got.body.error.requestId]).toEqual(["bot-42.attempt:1", "bot-42.attempt:1"])
  })

  test("an unsafe X-Request-Id is replaced, never echoed", async () => {
    const got = await read(await app("/api/nope", { headers: { "x-request-id": "a b<script>" } }))
    expect(got.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
  })

  test("successful responses carry a request id too", async () => {
    const got = await read(await app(`/api/risk-check/${newAddress()}`))
    expect({ status: got.status, id: typeof got.headers["x-request-id"] }).toEqual({ status: 200, id: "string" })
  })
})
