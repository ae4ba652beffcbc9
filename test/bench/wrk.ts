// wrk runs and their figures, and the Lua scripts the scenarios load with.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pinned } from "./pinning.ts"

export interface WrkSettings {
  readonly connections: number
  readonly durationSeconds: number
  /** wrk -t: one per load core. */
  readonly threads: number
  /** `taskset -c` list wrk runs on; undefined: unpinned. */
  readonly cores: string | undefined
}

/** What to load: a base URL (path included when there is no script) and an optional wrk Lua script. */
export interface Load {
  readonly url: string
  readonly script?: string | undefined
}

export interface Figures {
  readonly rps: number
  readonly requests: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** "Non-2xx or 3xx responses" as wrk counts them. */
  readonly non2xx: number
  /** connect + read + write + timeout socket errors. */
  readonly socketErrors: number
  /** Peak VmRSS of the loaded process during the run. */
  readonly rssMb: number
}

/** VmRSS of `pid` in MB; 0 once the process is gone. */
export const rssOf = (pid: number): number => {
  if (!existsSync(`/proc/${pid}/status`)) return 0
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  return Math.round(Number(line?.replace(/\D+/g, "") ?? 0) / 1024)
}

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000 }

/** wrk latency text ("612.00us", "3.21ms", "1.02s") in milliseconds; NaN if absent. */
export const latencyMs = (text: string | undefined): number => {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? "")
  return match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2]!]!
}

export const parseWrk = (output: string, rssMb: number): Figures => {
  const pick = (pattern: RegExp) => pattern.exec(output)?.[1]
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output)
  return {
    rps: Math.round(Number(pick(/Requests\/sec:\s+([\d.]+)/) ?? Number.NaN)),
    requests: Number(pick(/(\d+) requests in/) ?? 0),
    p50Ms: latencyMs(pick(/\s50%\s+(\S+)/)),
    p99Ms: latencyMs(pick(/\s99%\s+(\S+)/)),
    non2xx: Number(pick(/Non-2xx or 3xx responses:\s+(\d+)/) ?? 0),
    socketErrors: socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0),
    rssMb
  }
}

/** Loads `load` with wrk (pinned to its cores) and reports its figures, sampling the RSS of `pid` throughout. */
export const runWrk = async (settings: WrkSettings, load: Load, pid: number): Promise<Figures> => {
  const args = pinned(settings.cores, [
    "wrk",
    `-t${settings.threads}`,
    `-c${settings.connections}`,
    `-d${settings.durationSeconds}s`,
    "--latency",
    ...(load.script === undefined ? [] : ["-s", load.script]),
    load.url
  ])
  let peak = rssOf(pid)
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 250)
  try {
    const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" })
    const [output, errors] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited
    ])
    if (!/Requests\/sec/.test(output)) throw new Error(`wrk failed: ${output}${errors}`)
    return parseWrk(output, Math.max(peak, rssOf(pid)))
  } finally {
    clearInterval(sampler)
  }
}

const lua = (value: string): string => JSON.stringify(value) // JSON string literals are valid Lua strings here (ASCII only)

// Each wrk thread has its own Lua state; setup numbers them so their random sequences differ.
const SEEDED = `
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(os.time() * 7919 + id) end
`

const linesOf = (name: string, file: string) =>
  `local ${name} = {}\nfor line in io.lines(${lua(file)}) do ${name}[#${name} + 1] = line end\n`

const writeLines = (dir: string, name: string, lines: ReadonlyArray<string>): string => {
  const path = join(dir, `${name}.txt`)
  writeFileSync(path, `${lines.join("\n")}\n`)
  return path
}

const writeScript = (dir: string, name: string, text: string): string => {
  const path = join(dir, `${name}.lua`)
  writeFileSync(path, text)
  return path
}

/** GET a path drawn at random from `paths` for every request. */
export const randomGetScript = (dir: string, name: string, paths: ReadonlyArray<string>): string =>
  writeScript(
    dir,
    name,
    [
      linesOf("paths", writeLines(dir, `${name}-paths`, paths)),
      SEEDED,
      `function request() return wrk.format("GET", paths[math.random(#paths)]) end`
    ].join("\n")
  )

/** The same JSON POST for every request. */
export const postScript = (dir: string, name: string, body: string): string =>
  writeScript(
    dir,
    name,
    [`wrk.method = "POST"`, `wrk.body = ${lua(body)}`, `wrk.headers["Content-Type"] = "application/json"`].join("\n")
  )

/** POST {"addresses": [...]} to `path`: the `warm` mints, then `drawn` mints drawn at random from `pool` per request. */
export const batchDrawScript = (
  dir: string,
  name: string,
  path: string,
  warm: ReadonlyArray<string>,
  pool: ReadonlyArray<string>,
  drawn: number
): string =>
  writeScript(
    dir,
    name,
    [
      linesOf("pool", writeLines(dir, `${name}-pool`, pool)),
      SEEDED,
      `local head = ${lua(`{"addresses":[${warm.map((mint) => JSON.stringify(mint)).join(",")}`)}`,
      `function request()`,
      `  local body = head`,
      `  for i = 1, ${drawn} do body = body .. ',"' .. pool[math.random(#pool)] .. '"' end`,
      `  return wrk.format("POST", ${lua(path)}, { ["Content-Type"] = "application/json" }, body .. "]}")`,
      `end`
    ].join("\n")
  )

/** POST {"address": mint} to `path` with `Authorization: Bearer key`, key and mint drawn at random per request. */
export const keyedPostScript = (
  dir: string,
  name: string,
  path: string,
  keys: ReadonlyArray<string>,
  mints: ReadonlyArray<string>
): string =>
  writeScript(
    dir,
    name,
    [
      linesOf("keys", writeLines(dir, `${name}-keys`, keys)),
      linesOf("mints", writeLines(dir, `${name}-mints`, mints)),
      SEEDED,
      `function request()`,
      `  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. keys[math.random(#keys)] }`,
      `  return wrk.format("POST", ${lua(path)}, headers, '{"address":"' .. mints[math.random(#mints)] .. '"}')`,
      `end`
    ].join("\n")
  )
