import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import { testDatabaseUrl } from "./database.ts"

// The program as an operator runs it: separate processes over a data directory or a PostgreSQL schema.
const MAIN = new URL("../../src/main.ts", import.meta.url).pathname

export interface Deployment {
  readonly env: Record<string, string>
  readonly cleanup: () => Promise<void>
}

const onPostgres = async (url: string): Promise<Deployment> => {
  const schema = `e2e_${crypto.randomUUID().replaceAll("-", "")}`
  const run = (statement: string) =>
    Effect.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 }))
      )
    )
  await run(`create schema ${schema}`)
  const separator = url.includes("?") ? "&" : "?"
  return {
    env: { DATABASE_URL: `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}` },
    cleanup: () => run(`drop schema ${schema} cascade`).then(() => undefined)
  }
}

const onEmbedded = async (): Promise<Deployment> => {
  const dir = mkdtempSync(join(tmpdir(), "risk-api-e2e-"))
  return { env: { DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
}

/** A fresh, empty database for separate processes: a schema of TEST_DATABASE_URL, or a data directory. */
export const newDeployment = (): Promise<Deployment> =>
  testDatabaseUrl === undefined ? onEmbedded() : onPostgres(testDatabaseUrl)

const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "DATABASE_URL" && key !== "DATA_DIR") env[key] = value
  }
  return env
}

export const runCli = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...baseEnv(), ...env },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  return { code, stdout, stderr }
}

export const freePort = (): number => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

export interface RunningServer {
  readonly url: string
  readonly process: Bun.Subprocess
  readonly output: () => string
}

/** The program run from its sources, as `npm start` runs it. */
export const SOURCES: ReadonlyArray<string> = [process.execPath, MAIN]

/** Builds the program as `npm run build` does (one compiled binary) at `outfile`; its argv. */
export const buildBinary = (outfile: string): ReadonlyArray<string> => {
  const built = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      MAIN,
      join(MAIN, "../platform/Sql/EmbeddedWorker.ts"),
      "--outfile",
      outfile
    ],
    { stderr: "pipe" }
  )
  if (built.exitCode !== 0) throw new Error(`bun build failed: ${built.stderr.toString()}`)
  return [outfile]
}

/** `program serve` (the sources by default, or a binary of buildBinary) on a free port, once it answers. */
export const startServer = async (
  env: Record<string, string>,
  program: ReadonlyArray<string> = SOURCES
): Promise<RunningServer> => {
  const port = freePort()
  const child = Bun.spawn([...program, "serve"], {
    env: { ...baseEnv(), SEED_DEMO: "false", ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: "pipe",
    stderr: "pipe"
  })
  let output = ""
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += new TextDecoder().decode(chunk)
  }
  void drain(child.stdout)
  void drain(child.stderr)
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`)
    const ready = await fetch(`${url}/openapi.json`).then(
      (r) => r.ok,
      () => false
    )
    if (ready) return { url, process: child, output: () => output }
    await Bun.sleep(100)
  }
  child.kill("SIGKILL")
  throw new Error(`server did not start in 60 s: ${output}`)
}
