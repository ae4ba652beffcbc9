import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { databaseKind } from "../../support/database.ts"
import { runtimeFor } from "../../support/effect.ts"
import { cleanScan, decodeScan, newAddress } from "../../support/fixtures.ts"
import { testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"

// The typed client as an outside project gets it: `npm pack` of the client/ workspace (which builds it), then two
// scratch projects that each type-check a program with strict settings and no skipLibCheck and run it on Node (no
// Bun) against the app served on a port: one installs only the tarball and uses the default Promise entry (one
// package, no runtime dependency, under 30 MB, no warnings); the other adds effect and @effect/platform, the
// optional peers of the `./effect` entry.
const ROOT = new URL("../../..", import.meta.url).pathname
const TSC = join(ROOT, "node_modules/.bin/tsc")
const rootManifest = (await Bun.file(join(ROOT, "package.json")).json()) as { dependencies: Record<string, string> }
const manifest = (await Bun.file(join(ROOT, "client/package.json")).json()) as {
  dependencies?: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}
/** The bound the packed client's install (its node_modules, from an empty folder) must stay under. */
const MAX_INSTALL_KB = 30 * 1024

const { run, runtime } = runtimeFor(sqlServices())
const app = testApp((await runtime.runtime()).context)
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => {
    const url = new URL(request.url)
    return app(`${url.pathname}${url.search}`, request)
  }
})
const dir = mkdtempSync(join(tmpdir(), "risk-client-"))
afterAll(() => {
  server.stop(true)
  rmSync(dir, { recursive: true, force: true })
})

const sh = async (command: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) => {
  const child = Bun.spawn([...command], { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}:\n${stdout}\n${stderr}`)
  return stdout
}

const effectProgram = `
import { Effect } from "effect"
import { makeClient, NotScanned, type RiskClient } from "risk-evidence-api-client/effect"

declare const process: { env: Record<string, string | undefined> }
const env = (name: string): string => process.env[name] ?? ""
const client: RiskClient = makeClient({ baseUrl: env("RISK_API_URL"), apiKey: env("RISK_API_KEY") })

const main = Effect.gen(function*() {
  const check = yield* client.riskCheck.check({ path: { address: env("MINT") } })
  const verdict: "block" | "warn" | "ok" | "unknown" = check.verdict
  // ttlSeconds and pollSeconds have server defaults: optional here.
  const watch = yield* client.watch.setWatch({
    payload: { mint: check.address, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] }
  })
  const history = yield* client.deployer.history({ path: { wallet: env("MINT") }, urlParams: {} })
  const failure = yield* Effect.flip(client.token.risk({ payload: { address: env("UNSCANNED") } }))
  if (failure._tag !== "NotScanned") return yield* Effect.die(failure)
  const typed: { readonly code: string; readonly requestId: string; readonly message: string } = failure
  return {
    verdict,
    pollSeconds: watch.data.poll_seconds,
    limit: history.data.page.limit,
    error: { tag: failure._tag, isClass: failure instanceof NotScanned, code: typed.code, requestId: typed.requestId }
  }
})

// @ts-expect-error the mint is required
client.watch.setWatch({ payload: { rules: [] } })
// @ts-expect-error a verdict is one of four literals
const wrong: "maybe" = ({} as Effect.Effect.Success<ReturnType<typeof client.riskCheck.check>>).verdict

Effect.runPromise(main).then((result) => console.log(JSON.stringify(result)))
`

const promiseProgram = `
import { type ErrorCode, makeClient, type RiskClient, type Verdict } from "risk-evidence-api-client"

declare const process: { env: Record<string, string | undefined>; version: string }
const env = (name: string): string => process.env[name] ?? ""
const client: RiskClient = makeClient({ baseUrl: env("RISK_API_URL"), apiKey: env("RISK_API_KEY") })

const main = async () => {
  const check = await client.riskCheck.check({ path: { address: env("MINT") } })
  if (!check.ok) throw new Error(check.error.code)
  const verdict: Verdict = check.data.verdict
  // ttlSeconds and pollSeconds have server defaults: optional here.
  const watch = await client.watch.setWatch({
    payload: { mint: check.data.address, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }] }
  })
  if (!watch.ok) throw new Error(watch.error.code)
  const history = await client.deployer.history({ path: { wallet: env("MINT") } })
  if (!history.ok) throw new Error(history.error.code)
  const failure = await client.token.risk({ payload: { address: env("UNSCANNED") } })
  if (failure.ok) throw new Error("an unscanned mint answered 200")
  const { error } = failure
  switch (error.code) {
    case "not_scanned": {
      // The code narrows the error: its status is the literal the contract gives it.
      const status: 404 = error.status
      return {
        node: process.version.split(".")[0],
        verdict,
        requestId: typeof check.headers["x-request-id"],
        pollSeconds: watch.data.data.poll_seconds,
        limit: history.data.data.page.limit,
        error: { code: error.code, status, requestId: error.requestId }
      }
    }
    case "request_failed":
    case "unexpected_response":
    case "schema_mismatch":
      // @ts-expect-error a client-side failure has no request id
      throw new Error(error.requestId)
    default:
      throw new Error(\`\${error.code} \${error.status} \${error.requestId}\`)
  }
}

// @ts-expect-error the mint is required
client.watch.setWatch({ payload: { rules: [] } })
// @ts-expect-error a verdict is one of four literals
const wrong: Verdict = "maybe"
const itsError: ErrorCode<typeof client.token.risk> = "not_scanned"
// @ts-expect-error token.risk never answers watch_not_found
const notItsError: ErrorCode<typeof client.token.risk> = "watch_not_found"

main().then((result) => console.log(JSON.stringify(result)))
`

/** What a program prints: its result, with the typed error's fields. */
type Outcome = Record<string, unknown> & { readonly error: Record<string, unknown> }

// A scratch project's package.json, tsconfig.json (strict, no skipLibCheck) and program.ts.
const scratch = async (name: string, dependencies: Record<string, string>, program: string) => {
  const app = join(dir, name)
  await Bun.write(
    join(app, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module", dependencies })
  )
  await Bun.write(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2022", "DOM"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: false,
        outDir: "out"
      },
      files: ["program.ts"]
    })
  )
  await Bun.write(join(app, "program.ts"), program)
  return app
}

// npm install in a scratch project: its exit code and everything it printed.
const install = async (app: string) => {
  const child = Bun.spawn(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: app,
    stdout: "pipe",
    stderr: "pipe"
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  return { code, log: `${out}\n${err}` }
}

// A scanned mint, an unscanned one and a key of an account with the scopes the programs use.
const world = async () => {
  const mint = cleanScan(newAddress())
  await run(ScansRepo.record([decodeScan(mint)]))
  const key = await run(
    Effect.gen(function* () {
      const account = yield* Accounts.create("client package", { plan: "pro" })
      return (yield* Accounts.createKey(account.id, ["token:risk:read", "watch:write", "deployer:history:read"], null))
        .key
    })
  )
  return { RISK_API_URL: server.url.href, RISK_API_KEY: key, MINT: mint.mint, UNSCANNED: newAddress() }
}

describe(`the packed client, from a scratch project, against the app on ${databaseKind}`, () => {
  let tarball = ""

  beforeAll(async () => {
    const packed = await sh(["npm", "pack", "--workspace", "client", "--pack-destination", dir, "--json"], ROOT)
    tarball = join(dir, (JSON.parse(packed.slice(packed.indexOf("["))) as Array<{ filename: string }>)[0]!.filename)
  }, 60_000)

  test("the tarball holds the built client and no source; effect is an optional peer, not a dependency", async () => {
    const files = (await sh(["tar", "tzf", tarball], dir)).trim().split("\n")
    expect(files).toContain("package/dist/index.js")
    expect(files).toContain("package/dist/index.d.ts")
    expect(files).toContain("package/dist/effect.js")
    expect(files).toContain("package/dist/types/interfaces/Client/index.d.ts")
    expect(files.filter((file) => !file.startsWith("package/dist/") && file !== "package/package.json")).toEqual([])
    expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([])
    const imports = (text: string) =>
      [
        ...new Set([...text.matchAll(/(?:^|[;}\s])(?:import|export)\s*[^;]*?\sfrom\s*"([^"]+)"/gm)].map((m) => m[1]))
      ].sort()
    // The default entry: everything bundled in, declarations that import nothing (no effect types).
    const promise = await sh(["tar", "xzOf", tarball, "package/dist/index.js"], dir)
    expect(imports(promise)).toEqual([])
    expect(promise).not.toMatch(/\bimport\s*\(|\brequire\s*\(/)
    const declarations = await sh(["tar", "xzOf", tarball, "package/dist/index.d.ts"], dir)
    expect(imports(declarations)).toEqual([])
    expect(declarations).not.toMatch(/\bimport\s*\(/)
    // The ./effect entry leaves effect and @effect/platform to the installer.
    const effect = await sh(["tar", "xzOf", tarball, "package/dist/effect.js"], dir)
    expect(imports(effect)).toEqual(["@effect/platform", "effect"])
    expect(manifest.dependencies).toBeUndefined()
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["@effect/platform", "effect"])
    expect(Object.values(manifest.peerDependenciesMeta).map((meta) => meta.optional)).toEqual([true, true])
  })

  test("alone: installs one package under 30 MB with no warnings, type-checks strict, and the Promise client runs on Node", async () => {
    const app = await scratch("promise", { "risk-evidence-api-client": `file:${tarball}` }, promiseProgram)
    const { code, log } = await install(app)
    expect(code).toBe(0)
    // No warnings at all (no optional peer is installed or asked for).
    expect(log.split("\n").filter((line) => /warn|ERESOLVE|peer|EBADENGINE/i.test(line))).toEqual([])
    // One package installed: the client (npm lists its optional peers as absent, without a path).
    const installed = (await sh(["npm", "ls", "--all", "--parseable"], app)).trim().split("\n").slice(1)
    expect(installed).toEqual([join(app, "node_modules/risk-evidence-api-client")])
    const kilobytes = Number((await sh(["du", "-sk", "node_modules"], app)).split("\t")[0])
    expect(kilobytes).toBeGreaterThan(0)
    expect(kilobytes).toBeLessThan(MAX_INSTALL_KB)
    await sh([TSC, "-p", "."], app)

    const env = await world()
    // Node on the PATH, and the machine's own Node when there is another one (e.g. Node 20 under CI's Node 24).
    const nodes = [...new Set(["node", ...((await Bun.file("/usr/bin/node").exists()) ? ["/usr/bin/node"] : [])])]
    const results = await Promise.all(
      nodes.map(async (node) => JSON.parse(await sh([node, "out/program.js"], app, env)) as Outcome)
    )
    for (const result of results) {
      const seen: Record<string, unknown> = { ...result, node: "-", error: { ...result.error, requestId: "-" } }
      expect(seen).toEqual({
        node: "-",
        verdict: "ok",
        requestId: "string",
        pollSeconds: 300,
        limit: 50,
        error: { code: "not_scanned", status: 404, requestId: "-" }
      })
      expect(String(result.error.requestId)).toMatch(/^[\w-]{8,}$/)
    }
  }, 180_000)

  test("with effect and @effect/platform: the ./effect client type-checks strict and runs on Node, no peer warnings", async () => {
    const peers = Object.fromEntries(
      Object.keys(manifest.peerDependencies).map((name) => [name, rootManifest.dependencies[name] ?? ""])
    )
    const app = await scratch("effect", { "risk-evidence-api-client": `file:${tarball}`, ...peers }, effectProgram)
    const { code, log } = await install(app)
    expect(code).toBe(0)
    expect(log.split("\n").filter((line) => /ERESOLVE|peer|EBADENGINE/i.test(line))).toEqual([])
    await sh([TSC, "-p", "."], app)

    const env = await world()
    const result = JSON.parse(await sh(["node", "out/program.js"], app, env))
    expect({ ...result, error: { ...result.error, requestId: "-" } }).toEqual({
      verdict: "ok",
      pollSeconds: 300,
      limit: 50,
      error: { tag: "NotScanned", isClass: true, code: "not_scanned", requestId: "-" }
    })
    expect(result.error.requestId).toMatch(/^[\w-]{8,}$/)
  }, 180_000)
})
