import SwaggerParser from "@apidevtools/swagger-parser"
import { memoryServices } from "../support/layers.ts"
import { AccountsMemory } from "../../src/Accounts/Accounts.ts"
import { QuotaMemory } from "../../src/Accounts/Quota.ts"
import { ScanRequestsMemory } from "../../src/Scans/ScanRequestsRepo.ts"
import { describe, expect, test } from "bun:test"
import { Layer } from "effect"
import { runtimeFor } from "../support/effect.ts"
import { testApp } from "../support/http.ts"

// The contract changes only deliberately: the served document must equal the committed snapshot.
// After an intended change: UPDATE_OPENAPI_SNAPSHOT=1 bun test test/api/openapi.test.ts
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
    expect(text).not.toContain("\"_tag\"")
  })

  test("every operation has a summary, a description and the statuses it can return", async () => {
    const document = await served()
    const statuses: Record<string, Array<string>> = {}
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect([path, method, typeof operation.summary, typeof operation.description])
          .toEqual([path, method, "string", "string"])
        statuses[`${method.toUpperCase()} ${path}`] = Object.keys(operation.responses).sort()
      }
    }
    expect(statuses).toEqual({
      "GET /health": ["200", "500", "503"],
      "GET /ready": ["200", "500", "503"],
      "GET /api/risk-check/{address}": ["200", "400", "429", "500", "503"],
      "POST /api/risk-check/batch": ["200", "400", "413", "415", "429", "500", "503"],
      "POST /api/risk-check/{address}/rescan": ["202", "400", "413", "415", "429", "500", "503"],
      "POST /api/v1/token/risk": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "POST /api/v1/wallet/risk": ["200", "400", "401", "403", "413", "415", "429", "500", "503"],
      "GET /api/v1/deployer/{wallet}/history": ["200", "400", "401", "403", "429", "500", "503"],
      "POST /api/v1/decision/pre-trade": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "POST /api/v1/decision/monitor-position": ["200", "400", "401", "403", "404", "413", "415", "429", "500", "503"],
      "POST /api/v1/decision/set-watch": ["201", "400", "401", "403", "409", "413", "415", "429", "500", "503"],
      "GET /api/v1/decision/watches": ["200", "401", "403", "429", "500", "503"],
      "GET /api/v1/decision/watches/{id}": ["200", "401", "403", "404", "429", "500", "503"],
      "DELETE /api/v1/decision/watches/{id}": ["200", "401", "403", "404", "429", "500", "503"]
    })
  })

  test("has a servers entry and the interactive docs are served", async () => {
    expect((await served()).servers?.length).toBeGreaterThan(0)
    const docs = await app("/docs")
    expect([docs.status, docs.headers.get("content-type")]).toEqual([200, "text/html"])
  })
})
