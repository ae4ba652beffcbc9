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

// The typed client as an outside project gets it: `npm pack` of the client/ workspace (which builds it), a
// scratch project that installs only the tarball (it brings effect and @effect/platform, nothing else), type-checks
// a program with strict settings and no skipLibCheck, and runs it on Node (no Bun) against the app served on a port.
const ROOT = new URL("../../..", import.meta.url).pathname
const TSC = join(ROOT, "node_modules/.bin/tsc")
const manifest = (await Bun.file(join(ROOT, "client/package.json")).json()) as { dependencies: Record<string, string> }

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

const program = `
import { Effect } from "effect"
import { makeClient, NotScanned, type RiskClient } from "risk-evidence-api-client"

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

describe(`the packed client, from a scratch project, against the app on ${databaseKind}`, () => {
  let tarball = ""

  beforeAll(async () => {
    const packed = await sh(["npm", "pack", "--workspace", "client", "--pack-destination", dir, "--json"], ROOT)
    tarball = join(dir, (JSON.parse(packed.slice(packed.indexOf("["))) as Array<{ filename: string }>)[0]!.filename)
  }, 60_000)

  test("the tarball holds the built client and no source", async () => {
    const files = (await sh(["tar", "tzf", tarball], dir)).trim().split("\n")
    expect(files).toContain("package/dist/index.js")
    expect(files).toContain("package/dist/types/interfaces/Client/index.d.ts")
    expect(files.filter((file) => !file.startsWith("package/dist/") && file !== "package/package.json")).toEqual([])
    expect(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([])
    const bundle = await sh(["tar", "xzOf", tarball, "package/dist/index.js"], dir)
    const imported = [...bundle.matchAll(/^import\s[^;]*?\sfrom\s"([^"]+)"/gm)].map((match) => match[1])
    expect([...new Set(imported)].sort()).toEqual(["@effect/platform", "effect"])
  })

  test("installs, type-checks strict without skipLibCheck, and runs on Node: a success and a typed error", async () => {
    const app = join(dir, "app")
    await Bun.write(
      join(app, "package.json"),
      JSON.stringify({
        name: "scratch",
        private: true,
        type: "module",
        dependencies: { "risk-evidence-api-client": `file:${tarball}` }
      })
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
    const child = Bun.spawn(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: app,
      stdout: "pipe",
      stderr: "pipe"
    })
    const [, installLog, installed] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited
    ])
    expect(installed).toBe(0)
    // No peer-dependency (or engine) warnings; the packages are the client's two dependencies and theirs.
    expect(installLog.split("\n").filter((line) => /ERESOLVE|peer|EBADENGINE/i.test(line))).toEqual([])
    const tree = JSON.parse(await sh(["npm", "ls", "--all", "--json"], app)) as {
      dependencies: Record<string, { dependencies?: Record<string, unknown> }>
    }
    const client = tree.dependencies["risk-evidence-api-client"]
    expect(Object.keys(client?.dependencies ?? {}).sort()).toEqual(Object.keys(manifest.dependencies).sort())
    await sh([TSC, "-p", "."], app)

    const mint = cleanScan(newAddress())
    await run(ScansRepo.record([decodeScan(mint)]))
    const key = await run(
      Effect.gen(function* () {
        const account = yield* Accounts.create("client package", { plan: "pro" })
        return (yield* Accounts.createKey(
          account.id,
          ["token:risk:read", "watch:write", "deployer:history:read"],
          null
        )).key
      })
    )
    const output = await sh(["node", "out/program.js"], app, {
      RISK_API_URL: server.url.href,
      RISK_API_KEY: key,
      MINT: mint.mint,
      UNSCANNED: newAddress()
    })
    const result = JSON.parse(output)
    expect({ ...result, error: { ...result.error, requestId: "-" } }).toEqual({
      verdict: "ok",
      pollSeconds: 300,
      limit: 50,
      error: { tag: "NotScanned", isClass: true, code: "not_scanned", requestId: "-" }
    })
    expect(result.error.requestId).toMatch(/^[\w-]{8,}$/)
  }, 90_000)
})
