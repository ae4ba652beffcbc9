import { chownSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../support/process.ts"

// A PostgreSQL server of the machine's installation (initdb, pg_ctl), started for the suite in a temporary
// directory on a port of its own, so the suite can stop, restart and kill it without touching any other.

const binDir = (): string => {
  const found = [...new Bun.Glob("/usr/lib/postgresql/*/bin/pg_ctl").scanSync("/")].sort().at(-1) ?? Bun.which("pg_ctl")
  if (found === null || found === undefined) throw new Error("pg_ctl not found: install PostgreSQL (initdb, pg_ctl)")
  return found.replace(/\/pg_ctl$/, "")
}

// PostgreSQL refuses to run as root: run its tools as the `postgres` user then, owning the directory.
const asOwner = (args: ReadonlyArray<string>): Array<string> =>
  process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...args] : [...args]

const run = async (args: ReadonlyArray<string>) => {
  const child = Bun.spawn(asOwner(args), { stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  if (code !== 0) throw new Error(`${args.join(" ")} exited ${code}: ${stderr || stdout}`)
  return stdout
}

export interface OwnPostgres {
  readonly port: number
  /** postgres://postgres@127.0.0.1:<port>/reliability */
  readonly url: string
  /** pg_ctl stop: `fast` (clients disconnected, clean shutdown) or `immediate` (like a crash). */
  readonly stop: (mode?: "fast" | "immediate") => Promise<void>
  readonly start: () => Promise<void>
  /** Stop and remove the data directory. */
  readonly destroy: () => Promise<void>
}

export const startPostgres = async (): Promise<OwnPostgres> => {
  const bin = binDir()
  const dir = mkdtempSync(join(tmpdir(), "risk-api-reliability-pg-"))
  if (process.getuid?.() === 0) {
    const { uid, gid } = await run(["id", "-u"]).then(async (u) => ({
      uid: Number(u),
      gid: Number(await run(["id", "-g"]))
    }))
    chownSync(dir, uid, gid)
  }
  const data = join(dir, "data")
  const port = freePort()
  await run([`${bin}/initdb`, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
  // Durability against a killed server process does not need fsync (the machine does not crash).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
  const start = async () => {
    await run([`${bin}/pg_ctl`, "-D", data, "-l", join(dir, "log"), "-o", options, "-w", "-t", "60", "start"])
  }
  const stop = async (mode: "fast" | "immediate" = "fast") => {
    await run([`${bin}/pg_ctl`, "-D", data, "-m", mode, "-w", "-t", "60", "stop"])
  }
  await start()
  await run([
    `${bin}/psql`,
    "-h",
    "127.0.0.1",
    "-p",
    String(port),
    "-U",
    "postgres",
    "-c",
    "create database reliability"
  ])
  let destroyed = false
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/reliability`,
    stop,
    start,
    destroy: async () => {
      if (destroyed) return
      destroyed = true
      await stop("immediate").catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
