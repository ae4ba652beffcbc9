import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cleanScan, newAddress } from "../support/fixtures.ts"
import { tcpProxy } from "../support/tcpProxy.ts"
import { databaseOutage } from "./database.ts"
import { oversizeBodies, slowLoris } from "./edge.ts"
import { check, cli, newAccount, printTable, rows, serve, stopAllServers, stopServer } from "./harness.ts"
import {
  quotaRace,
  sigkillDuringReads,
  sigkillDuringWrites,
  sigtermUnderLoad,
  watchCapRace,
  writesPastTheDeadline
} from "./metering.ts"
import { startPostgres } from "./postgres.ts"

// The reliability suite (npm run reliability): real server processes, real HTTP, a PostgreSQL of its own.
// Prints a table of what held and exits 1 if anything did not. `RELIABILITY_ONLY=name,...` runs some scenarios.

const started = performance.now()
const only = process.env.RELIABILITY_ONLY?.split(",").map((name) => name.trim())
const MAX_BODY_BYTES = 65_536

const scenario = async (name: string, body: () => Promise<void>) => {
  if (only !== undefined && !only.includes(name)) return
  const at = performance.now()
  console.log(`== ${name}`)
  try {
    await body()
  } catch (error) {
    check(
      name,
      "runs to the end",
      `crashed: ${String(error instanceof Error ? error.stack : error).slice(0, 400)}`,
      false
    )
  } finally {
    await stopAllServers()
    console.log(`   (${((performance.now() - at) / 1000).toFixed(1)} s)`)
  }
}

const postgres = await startPostgres()
const env = { DATABASE_URL: postgres.url, MAX_BODY_BYTES: String(MAX_BODY_BYTES) }
const cleanup = async () => {
  await stopAllServers()
  await postgres.destroy()
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void cleanup().then(() => process.exit(130)))

try {
  console.log(`PostgreSQL for the suite at ${postgres.url}`)
  await cli(env, "migrate")
  const mints = Array.from({ length: 4 }, () => newAddress())
  const dir = mkdtempSync(join(tmpdir(), "risk-api-reliability-"))
  await Bun.write(join(dir, "scans.ndjson"), mints.map((mint) => JSON.stringify(cleanScan(mint))).join("\n"))
  await cli(env, "import", join(dir, "scans.ndjson"))
  rmSync(dir, { recursive: true, force: true })
  const [scanned, warm] = [mints[0]!, mints[1]!]

  await scenario("stopped", async () => {
    await databaseOutage({
      name: "PostgreSQL stopped (fast) and started",
      serverEnv: env,
      cliEnv: env,
      account: await newAccount(env),
      scanned,
      warm,
      disrupt: () => postgres.stop("fast"),
      recover: () => postgres.start(),
      holdMs: 3_000
    })
  })

  await scenario("crashed", async () => {
    await databaseOutage({
      name: "PostgreSQL crashed (immediate) and restarted",
      serverEnv: env,
      cliEnv: env,
      account: await newAccount(env),
      scanned,
      warm,
      disrupt: () => postgres.stop("immediate"),
      recover: () => postgres.start(),
      holdMs: 1_000
    })
  })

  await scenario("hung", async () => {
    const proxy = await tcpProxy({ host: "127.0.0.1", port: postgres.port })
    try {
      await databaseOutage({
        name: "PostgreSQL hung (proxy stops forwarding)",
        serverEnv: { ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/reliability` },
        cliEnv: env,
        account: await newAccount(env),
        scanned,
        warm,
        disrupt: () => proxy.hang(),
        recover: () => proxy.restore(),
        holdMs: 4_000
      })
    } finally {
      proxy.close()
    }
  })

  await scenario("races", async () => {
    const servers = [await serve(env), await serve(env)]
    await quotaRace(servers, env, scanned)
    await watchCapRace(servers, env, scanned)
  })

  await scenario("deadline", async () => {
    await writesPastTheDeadline(env, scanned)
  })

  await scenario("sigterm", async () => {
    const witness = await serve(env)
    await sigtermUnderLoad(env, witness, scanned)
  })

  await scenario("sigkill-writes", async () => {
    const witness = await serve(env)
    await sigkillDuringWrites(env, witness, scanned)
  })

  await scenario("sigkill-reads", async () => {
    await sigkillDuringReads(env, scanned)
  })

  await scenario("edge", async () => {
    const server = await serve(env)
    await slowLoris(server, await newAccount(env), scanned, warm)
    await oversizeBodies(server, MAX_BODY_BYTES)
    await stopServer(server)
  })
} catch (error) {
  check(
    "suite",
    "sets up (PostgreSQL, migrations, import)",
    `crashed: ${String(error instanceof Error ? error.stack : error).slice(0, 400)}`,
    false
  )
} finally {
  await cleanup()
}

console.log("")
printTable()
const failed = rows.filter((row) => !row.held).length
console.log(
  `\n${rows.length - failed} of ${rows.length} held in ${((performance.now() - started) / 1000).toFixed(0)} s`
)
process.exit(failed === 0 && rows.length > 0 ? 0 : 1)
