// CPU pinning for the bench: the process under test (the service, or its baseline) on the server cores,
// wrk on the load cores, PostgreSQL (when it runs on this machine) on the database cores. Without
// `taskset`, or with fewer than two usable cores, nothing is pinned and the bench says so.
import { readFileSync } from "node:fs"

export interface Pinning {
  /** Cores of the process under test (`taskset -c` list), undefined when unpinned. */
  readonly server: string | undefined
  /** Cores of wrk, undefined when unpinned. */
  readonly load: string | undefined
  /** Cores PostgreSQL is pinned to for the run, undefined when unpinned. */
  readonly database: string | undefined
  /** wrk threads: one per load core. */
  readonly wrkThreads: number
  /** What the bench prints about the pinning (or why there is none). */
  readonly note: string
}

/** The cores this process may run on (Cpus_allowed_list of /proc/self/status), expanded. */
export const allowedCores = (): ReadonlyArray<number> => {
  try {
    const line = readFileSync("/proc/self/status", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Cpus_allowed_list:"))
    if (line !== undefined) return expand(line.split(":")[1]!.trim())
  } catch {
    // not Linux: fall through
  }
  return []
}

/** "0", "0-3", "2,5-6" -> the core numbers. */
export const expand = (list: string): ReadonlyArray<number> =>
  list
    .split(",")
    .filter((part) => part.trim() !== "")
    .flatMap((part) => {
      const [from, to] = part.trim().split("-").map(Number)
      if (!Number.isInteger(from) || (to !== undefined && !Number.isInteger(to)))
        throw new RangeError(`not a core list: ${list}`)
      return Array.from({ length: (to ?? from!) - from! + 1 }, (_, i) => from! + i)
    })

/**
 * Checks the requested core lists against the cores this process may use and taskset's presence;
 * falls back to no pinning (with the reason in `note`) when they cannot be honoured.
 */
export const planPinning = (requested: {
  readonly server: string
  readonly load: string
  readonly database: string
}): Pinning => {
  const unpinned = (why: string, threads: number): Pinning => ({
    server: undefined,
    load: undefined,
    database: undefined,
    wrkThreads: threads,
    note: `not pinned (${why}): service, baseline, wrk and PostgreSQL share every core, which flatters the service`
  })
  const allowed = allowedCores()
  if (Bun.which("taskset") === null) return unpinned("taskset not found; apt-get install util-linux", 2)
  if (allowed.length < 2)
    return unpinned(`${allowed.length || "an unknown number of"} usable core(s), two are needed`, 2)
  const server = expand(requested.server)
  const load = expand(requested.load)
  const database = expand(requested.database)
  const missing = [...server, ...load, ...database].filter((core) => !allowed.includes(core))
  if (missing.length > 0)
    return unpinned(`core(s) ${[...new Set(missing)].join(",")} not among the usable ${allowed.join(",")}`, 2)
  if (server.some((core) => load.includes(core)))
    return unpinned(`server cores ${requested.server} overlap load cores ${requested.load}`, 2)
  const shares = database.every((core) => server.includes(core))
    ? "the server's cores"
    : database.every((core) => load.includes(core))
      ? "wrk's cores"
      : "its own cores"
  return {
    server: requested.server,
    load: requested.load,
    database: requested.database,
    wrkThreads: load.length,
    note:
      `service and baseline pinned to core(s) ${requested.server} (taskset -c ${requested.server}), ` +
      `wrk to core(s) ${requested.load} (taskset -c ${requested.load} wrk -t${load.length}); ` +
      `PostgreSQL, when local, shares core(s) ${requested.database} (${shares})`
  }
}

/** `argv` run under `taskset -c cores` when cores are given. */
export const pinned = (cores: string | undefined, argv: ReadonlyArray<string>): Array<string> =>
  cores === undefined ? [...argv] : ["taskset", "-c", cores, ...argv]

const taskset = (args: ReadonlyArray<string>): { readonly ok: boolean; readonly output: string } => {
  const result = Bun.spawnSync(["taskset", ...args], { stdout: "pipe", stderr: "pipe" })
  return { ok: result.exitCode === 0, output: `${result.stdout.toString()}${result.stderr.toString()}`.trim() }
}

/** Pins every thread of a running process (and so the threads it starts later) to `cores`. */
export const pinPid = (pid: number, cores: string | undefined): void => {
  if (cores === undefined) return
  const result = taskset(["-a", "-c", "-p", cores, String(pid)])
  if (!result.ok) console.log(`  ⚠ could not pin pid ${pid} to ${cores}: ${result.output}`)
}

const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter((s) => s !== "")
      .map(Number)
  } catch {
    return []
  }
}

const affinityOf = (pid: number): string | undefined =>
  /list: (\S+)/.exec(taskset(["-c", "-p", String(pid)]).output)?.[1]

/**
 * Pins a local PostgreSQL (its postmaster, found as the parent of `backendPid`, and every child; backends
 * forked later inherit it) to `cores` for the run. Returns what restores the previous affinity, or a note
 * saying why PostgreSQL was left alone.
 */
export const pinPostgres = (
  backendPid: number,
  cores: string | undefined
): { readonly restore: () => void; readonly note: string } => {
  const none = (note: string) => ({ restore: () => {}, note })
  if (cores === undefined) return none("PostgreSQL not pinned")
  let postmaster: number
  try {
    const status = readFileSync(`/proc/${backendPid}/status`, "utf8")
    postmaster = Number(/PPid:\s+(\d+)/.exec(status)?.[1])
  } catch {
    return none(
      `PostgreSQL not pinned (its backend ${backendPid} is not a process here: a remote or containerized server)`
    )
  }
  const previous = affinityOf(postmaster)
  if (previous === undefined)
    return none(`PostgreSQL not pinned (cannot read the affinity of postmaster ${postmaster})`)
  const all = () => [postmaster, ...childrenOf(postmaster)]
  const set = (list: string) => {
    for (const pid of all()) taskset(["-a", "-c", "-p", list, String(pid)])
  }
  set(cores)
  return {
    restore: () => set(previous),
    note: `PostgreSQL (postmaster ${postmaster}) pinned to core(s) ${cores} for the run, restored to ${previous} after`
  }
}
