import { OpenApi } from "@effect/platform"
import { RiskApi } from "../src/Api.ts"

// Writes the OpenAPI document the server serves at /openapi.json (to the file named, else stdout), for the
// linters and client generators in CI: `bun scripts/openapi.ts openapi.json`.
const text = `${JSON.stringify(OpenApi.fromApi(RiskApi), null, 2)}\n`
const file = process.argv[2]
if (file === undefined) process.stdout.write(text)
else await Bun.write(file, text)
