import { HttpApi } from "@effect/platform"
import { Arbitrary, FastCheck as fc, Option, Schema } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RiskApi } from "../src/Api.ts"
import { SCOPES } from "../src/domain/Scope.ts"

// The contract as a validating proxy enforces it: Prism (test/clients' @stoplight/prism-cli, `prism proxy
// --errors`) in front of the server on the seeded demo, fed the contract fuzzer's kind of valid requests
// (Effect's Arbitrary of each operation's path, query and payload schemas, demo mints for address fields).
// Prism answers a request the document refuses with 422 and a response it contradicts with an error of its
// own: any such violation fails. Runs offline. Usage: bun scripts/prism-check.ts dist/openapi.json
const DOCUMENT = process.argv[2] ?? "dist/openapi.json"
const PRISM = process.env.PRISM ?? new URL("../test/clients/node_modules/.bin/prism", import.meta.url).pathname
const RUNS = Number(process.env.PRISM_RUNS ?? 15)
const SEED = 20261125
const MAIN = new URL("../src/main.ts", import.meta.url).pathname
const DEMO_MINTS = [
  "3RPwfg3zWDUQQTX1ybf6rUiyHZDizbSJGRyMLtd5bUDN",
  "BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz",
  "7FYCFZiQEh6sGbYUwieEAARyStv6Az5spi9wGVxWEkVa",
  "94fAa1jiafVxH6HvHbUgkpifvWcPTyNa5AsunBwMuz9y"
]

type Json = Record<string, unknown>
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const freePort = () => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

const waitFor = async (what: string, ready: () => Promise<boolean>) => {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return
    await Bun.sleep(200)
  }
  throw new Error(`timed out waiting for ${what}`)
}

interface Operation {
  readonly method: string
  readonly path: string
  readonly pathParams: Option.Option<Schema.Schema.Any>
  readonly query: Option.Option<Schema.Schema.Any>
  readonly payload: Option.Option<Schema.Schema.Any>
}

const document = (await Bun.file(DOCUMENT).json()) as { paths: Json }
const operations: Array<Operation> = []
HttpApi.reflect(RiskApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    if (!(endpoint.path.replace(/:(\w+)/g, "{$1}") in document.paths)) return // the probes are not in the contract
    operations.push({
      method: endpoint.method,
      path: endpoint.path,
      pathParams: endpoint.pathSchema as unknown as Option.Option<Schema.Schema.Any>,
      query: endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>,
      payload: endpoint.payloadSchema as unknown as Option.Option<Schema.Schema.Any>
    })
  }
})

const wireOf = (schema: Schema.Schema.Any) =>
  Arbitrary.make(schema as Schema.Schema<unknown>).map((value) =>
    Schema.encodeSync(schema as Schema.Schema<unknown>)(value)
  )
const withMints = (value: unknown) =>
  fc.constantFrom(...DEMO_MINTS, undefined).map((mint) => {
    if (!isJson(value) || mint === undefined) return value
    const replaced: Json = { ...value }
    for (const field of ["mint", "address", "walletAddress", "wallet"]) if (field in replaced) replaced[field] = mint
    return replaced
  })
const valid = (schema: Option.Option<Schema.Schema.Any>) =>
  Option.match(schema, { onNone: () => fc.constant(undefined), onSome: (s) => wireOf(s).chain(withMints) })
// Never empty nor a dot segment: `/api/v1/webhooks/` and `/watches/.` are other paths (as in the fuzzer).
const pathParams = (schema: Option.Option<Schema.Schema.Any>) =>
  valid(schema).filter(
    (params) =>
      !isJson(params) || Object.values(params).every((value) => value !== "" && value !== "." && value !== "..")
  )
const pathOf = (template: string, params: unknown) =>
  template.replace(/:(\w+)/g, (_match, name: string) =>
    encodeURIComponent(isJson(params) && typeof params[name] === "string" ? (params[name] as string) : DEMO_MINTS[0]!)
  )
const queryOf = (params: unknown) =>
  isJson(params)
    ? `?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, typeof value === "string" ? value : JSON.stringify(value)]))}`
    : ""

const dataDir = mkdtempSync(join(tmpdir(), "risk-api-prism-"))
const env: Record<string, string | undefined> = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: "warning",
  PUBLIC_RATE_LIMIT_PER_MINUTE: "0"
}
delete env.DATABASE_URL
const apiPort = freePort()
const prismPort = freePort()
const api = Bun.spawn([process.execPath, MAIN, "serve"], {
  env: { ...env, PORT: String(apiPort), HOST: "127.0.0.1" },
  stdout: "ignore",
  stderr: "inherit"
})
let prismLog = ""
const prism = Bun.spawn(
  [
    PRISM,
    "proxy",
    DOCUMENT,
    `http://127.0.0.1:${apiPort}`,
    "--port",
    String(prismPort),
    "--host",
    "127.0.0.1",
    "--errors"
  ],
  {
    stdout: "pipe",
    stderr: "pipe"
  }
)
const drain = async (stream: ReadableStream<Uint8Array>) => {
  for await (const chunk of stream) prismLog += new TextDecoder().decode(chunk)
}
void drain(prism.stdout)
void drain(prism.stderr)

let failed = false
try {
  await waitFor("the API", async () => (await fetch(`http://127.0.0.1:${apiPort}/ready`)).ok)
  const cli = (args: ReadonlyArray<string>) => {
    const child = Bun.spawnSync([process.execPath, MAIN, ...args], { env })
    if (child.exitCode !== 0) throw new Error(`risk-api ${args.join(" ")}: ${child.stderr.toString()}`)
    return child.stdout.toString()
  }
  const accountId = /^account (\S+)/m.exec(
    cli([
      "accounts",
      "create",
      "--name",
      "prism",
      "--plan",
      "enterprise",
      "--monthly-quota",
      "100000000",
      "--requests-per-minute",
      "1000000"
    ])
  )?.[1]
  if (accountId === undefined) throw new Error("no account id")
  const key = cli(["keys", "create", accountId, ...SCOPES.flatMap((scope) => ["--scope", scope])]).trim()
  await waitFor("Prism", async () => (await fetch(`http://127.0.0.1:${prismPort}/health`)).status > 0)

  const violations: Array<string> = []
  const statuses = new Map<number, number>()
  let requests = 0
  for (const operation of operations) {
    const samples = fc.sample(
      fc.record({
        path: pathParams(operation.pathParams),
        query: valid(operation.query).map(queryOf),
        body: valid(operation.payload)
      }),
      { numRuns: RUNS, seed: SEED + operations.indexOf(operation) }
    )
    for (const sample of samples) {
      const target = `${pathOf(operation.path, sample.path)}${sample.query}`
      const headers = { authorization: `Bearer ${key}`, "x-api-key": key }
      const init: RequestInit =
        operation.method === "GET" || operation.method === "DELETE"
          ? { method: operation.method, headers }
          : {
              method: operation.method,
              headers: { ...headers, "content-type": "application/json" },
              body: sample.body === undefined ? "" : JSON.stringify(sample.body)
            }
      const response = await fetch(`http://127.0.0.1:${prismPort}${target}`, init)
      const text = await response.text()
      requests++
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      // Prism's own answers are problem+json naming its error types; the server never sends that media type.
      if (!(response.headers.get("content-type") ?? "").includes("application/problem+json")) continue
      const what = `${operation.method} ${target.slice(0, 160)} ${JSON.stringify(sample.body)?.slice(0, 200)} -> ${response.status} ${text.slice(0, 400)}`
      if (!text.includes("#UNPROCESSABLE_ENTITY")) {
        violations.push(what)
        continue
      }
      // A request the document refuses (a pattern the generator does not know): the server must refuse it too.
      const direct = await fetch(`http://127.0.0.1:${apiPort}${target}`, init)
      await direct.text()
      if (direct.status < 400) violations.push(`the server answers ${direct.status} what the proxy refuses: ${what}`)
    }
  }
  const logged = prismLog.split("\n").filter((line) => /violation: response/i.test(line))
  console.log(
    `prism proxy: ${requests} requests, by status ${JSON.stringify(Object.fromEntries(statuses))}, ` +
      `${violations.length} refused or contradicted, ${logged.length} violation lines logged`
  )
  for (const line of [...violations, ...logged].slice(0, 40)) console.log(line)
  failed = violations.length > 0 || logged.length > 0 || requests === 0
} catch (error) {
  console.error("prism check failed:", error, prismLog.slice(-2000))
  failed = true
} finally {
  prism.kill()
  api.kill("SIGTERM")
  await Promise.all([prism.exited, api.exited])
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
