import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./process.ts"

// A PostgreSQL primary and a streaming replica of it, made for one test file in a temporary directory:
// initdb, pg_basebackup -R, each started on a free port. PostgreSQL refuses to run as root, so as root
// (CI) its programs run as the `postgres` OS user through runuser. Where the server programs or that user
// are missing, `streamingReplicaUnavailable` says why, and the tests that need it are skipped.

const binDir = (): string | undefined => {
  const fromEnv = process.env.PG_BINDIR
  if (fromEnv !== undefined) return existsSync(join(fromEnv, "initdb")) ? fromEnv : undefined
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin")
}

const asRoot = process.getuid?.() === 0
const postgresIds = (): { uid: number; gid: number } | undefined => {
  const passwd = Bun.spawnSync(["getent", "passwd", "postgres"]).stdout.toString().split(":")
  return passwd.length > 3 ? { uid: Number(passwd[2]), gid: Number(passwd[3]) } : undefined
}

const bin = binDir()
export const streamingReplicaUnavailable: string | undefined =
  bin === undefined
    ? "no PostgreSQL server programs (set PG_BINDIR)"
    : asRoot && (postgresIds() === undefined || Bun.which("runuser") === null)
      ? "running as root without a postgres user and runuser"
      : undefined

export interface StreamingReplica {
  readonly primaryUrl: string
  readonly replicaUrl: string
  /** Stops the replica (fast shutdown: its sessions are ended), as a replica that goes down. */
  readonly stopReplica: () => Promise<void>
  /** Starts the stopped replica again on the same port; it streams from the primary where it stopped. */
  readonly startReplica: () => Promise<void>
  readonly stop: () => Promise<void>
}

const run = async (args: ReadonlyArray<string>): Promise<string> => {
  const child = Bun.spawn(asRoot ? ["runuser", "-u", "postgres", "--", ...args] : [...args], {
    stdout: "pipe",
    stderr: "pipe",
    cwd: tmpdir()
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  if (code !== 0) throw new Error(`${args.join(" ")} exited ${code}: ${stderr}${stdout}`)
  return stdout
}

export const startStreamingReplica = async (): Promise<StreamingReplica> => {
  if (bin === undefined) throw new Error(streamingReplicaUnavailable)
  const dir = mkdtempSync(join(tmpdir(), "risk-api-replica-"))
  chmodSync(dir, 0o755)
  const ids = asRoot ? postgresIds() : undefined
  if (ids !== undefined) chownSync(dir, ids.uid, ids.gid)
  const primaryDir = join(dir, "primary")
  const replicaDir = join(dir, "replica")
  const ports = { primary: freePort(), replica: freePort() }
  const started: Array<string> = []
  // Servers left running by a test process that ends without its afterAll are stopped as it exits.
  const stopNow = () => {
    for (const data of started.splice(0).reverse()) {
      const stopping = [join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]
      Bun.spawnSync(asRoot ? ["runuser", "-u", "postgres", "--", ...stopping] : stopping)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  process.once("exit", stopNow)
  const stop = async () => {
    for (const data of started.splice(0).reverse()) {
      await run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
    }
    rmSync(dir, { recursive: true, force: true })
    process.off("exit", stopNow)
  }
  const settings = (port: number) => [
    "-o",
    `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c shared_buffers=16MB -c max_wal_senders=4 -c wal_level=replica`
  ]
  const startReplica = async () => {
    await run([
      join(bin, "pg_ctl"),
      "-D",
      replicaDir,
      "-w",
      "-t",
      "60",
      "-l",
      join(dir, "replica.log"),
      ...settings(ports.replica),
      "start"
    ])
    started.push(replicaDir)
  }
  const stopReplica = async () => {
    await run([join(bin, "pg_ctl"), "-D", replicaDir, "-m", "fast", "-w", "stop"])
    started.splice(started.indexOf(replicaDir), 1)
  }
  try {
    await run([join(bin, "initdb"), "-D", primaryDir, "-A", "trust", "-U", "postgres", "--no-sync"])
    await run([
      join(bin, "pg_ctl"),
      "-D",
      primaryDir,
      "-w",
      "-t",
      "60",
      "-l",
      join(dir, "primary.log"),
      ...settings(ports.primary),
      "start"
    ])
    started.push(primaryDir)
    await run([
      join(bin, "pg_basebackup"),
      "-h",
      "127.0.0.1",
      "-p",
      String(ports.primary),
      "-U",
      "postgres",
      "-D",
      replicaDir,
      "-R",
      "-X",
      "stream",
      "--no-sync"
    ])
    await startReplica()
  } catch (cause) {
    await stop()
    throw cause
  }
  const urlOf = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`
  return {
    primaryUrl: urlOf(ports.primary),
    replicaUrl: urlOf(ports.replica),
    stopReplica,
    startReplica,
    stop
  }
}
