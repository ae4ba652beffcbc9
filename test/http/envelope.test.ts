import { describe, expect, test } from "bun:test"
import { memoryServices } from "../support/layers.ts"
import { AccountsMemory } from "../../src/Accounts/Accounts.ts"
import { QuotaMemory } from "../../src/Accounts/Quota.ts"
import { ScanRequestsMemory } from "../../src/Scans/ScanRequestsRepo.ts"
import { Layer } from "effect"
import { runtimeFor } from "../support/effect.ts"
import { postJson, read, testApp } from "../support/http.ts"
import { newAddress } from "../support/fixtures.ts"

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
    const got = await expectEnvelope(await app(`/api/risk-check/${newAddress()}`, { method: "DELETE" }), 405, "method_not_allowed")
    expect(got.headers["allow"]).toBe("GET, HEAD")
    const batch = await expectEnvelope(await app("/api/risk-check/batch", { method: "PUT" }), 405, "method_not_allowed")
    expect(batch.headers["allow"]).toBe("GET, POST, HEAD")
  })

  test("malformed JSON is 400 malformed_json", async () => {
    await expectEnvelope(await app("/api/risk-check/batch", postJson("{\"addresses\": [")), 400, "malformed_json")
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
    const got = await expectEnvelope(await app("/api/risk-check/batch", postJson({ addresses: "abc" })), 400, "invalid_request")
    expect(got.body.error.details[0].path).toBe("addresses")
    expect(got.body.error.message).toContain("addresses")
    const element = await expectEnvelope(await app("/api/risk-check/batch", postJson({ addresses: [newAddress(), 7] })), 400, "invalid_request")
    expect(element.body.error.details[0].path).toBe("addresses[1]")
  })

  test("an unknown field is 400 invalid_request naming it", async () => {
    const got = await expectEnvelope(
      await app("/api/risk-check/batch", postJson({ addresses: [newAddress()], adresses: [] })), 400, "invalid_request"
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
    const init = { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" }, body: huge }
    await expectEnvelope(await app("/api/risk-check/batch", init), 413, "payload_too_large")
  })

  test("a non-JSON content type is 415 unsupported_media_type", async () => {
    const init = { method: "POST", headers: { "content-type": "text/plain", "content-length": "9" }, body: "addresses" }
    await expectEnvelope(await app("/api/risk-check/batch", init), 415, "unsupported_media_type")
  })

  test("a bodyless POST is not refused for its Content-Type", async () => {
    const got = await read(await app(`/api/risk-check/${newAddress()}/rescan`, { method: "POST", headers: { "content-type": "text/plain" } }))
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
