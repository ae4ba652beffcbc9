// The baselines the service is compared with: raw Bun.serve answering with the bytes the service gave
// for the same request, alone or after the same PostgreSQL round trips as the service (raw node-postgres).
// Each runs in a process of its own (baselineServer.ts), pinned to the service's cores.
import { join } from "node:path"
import type { BaselineSpec, StoredAnswer } from "./baselineServer.ts"
import { pinned, pinPid } from "./pinning.ts"

export interface Answer {
  readonly status: number
  readonly body: ArrayBuffer
  readonly headers: Headers
}

export interface Captured {
  readonly key: string
  readonly answer: Answer
}

export interface Baseline {
  readonly url: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

/** Sends every request to the service, `concurrency` at a time, and keeps each answer under its key. */
export const capture = async (
  requests: ReadonlyArray<{ readonly key: string; readonly request: () => Promise<Response> }>,
  concurrency = 32
): Promise<ReadonlyMap<string, Answer>> => {
  const answers = new Map<string, Answer>()
  let next = 0
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const response = await requests[i]!.request()
      answers.set(requests[i]!.key, {
        status: response.status,
        body: await response.arrayBuffer(),
        headers: response.headers
      })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return answers
}

/** Status code -> how many of the answers had it. */
export const statusMix = (answers: ReadonlyMap<string, Answer>): ReadonlyMap<number, number> => {
  const mix = new Map<number, number>()
  for (const answer of answers.values()) mix.set(answer.status, (mix.get(answer.status) ?? 0) + 1)
  return mix
}

const stored = (answers: ReadonlyMap<string, Answer>): ReadonlyArray<readonly [string, StoredAnswer]> =>
  [...answers].map(([key, answer]) => [
    key,
    {
      status: answer.status,
      headers: [...answer.headers],
      body: Buffer.from(answer.body).toString("base64")
    }
  ])

let specs = 0

/** Starts baselineServer.ts with `spec` under `taskset -c cores` (when given) and waits for its port. */
const start = async (dir: string, cores: string | undefined, spec: BaselineSpec): Promise<Baseline> => {
  const file = join(dir, `baseline-${++specs}.json`)
  await Bun.write(file, JSON.stringify(spec))
  const child = Bun.spawn(pinned(cores, [process.execPath, join(import.meta.dir, "baselineServer.ts"), file]), {
    stdout: "pipe",
    stderr: "inherit"
  })
  const reader = child.stdout.getReader()
  let text = ""
  while (!/listening (\d+)/.test(text)) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`the baseline server exited before listening: ${text}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  void child.stdout.pipeTo(new WritableStream()).catch(() => undefined)
  pinPid(child.pid, cores) // its threads too (taskset -c pins the first only through inheritance)
  return {
    url: `http://127.0.0.1:${/listening (\d+)/.exec(text)![1]}`,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM")
      await child.exited
    }
  }
}

/** Raw Bun.serve: each `METHOD /path` answered with the bytes the service gave for it (a POST body is read, not parsed). */
export const rawServe = (
  dir: string,
  cores: string | undefined,
  answers: ReadonlyMap<string, Answer>
): Promise<Baseline> => start(dir, cores, { kind: "raw", answers: stored(answers) })

/**
 * Raw Bun.serve + node-postgres pool for POST /api/v1/token/risk: the service's current round trips on a
 * warm scan cache (the key from memory, revalidated as the service does; the one-statement rate + quota
 * charge with its reservation, and the reservation's confirmation after the answer is written, gathered
 * with the others in flight), then the bytes the service gave for that mint.
 */
export const rawTokenRisk = (
  dir: string,
  cores: string | undefined,
  databaseUrl: string,
  poolSize: number,
  cost: number,
  answersByMint: ReadonlyMap<string, Answer>
): Promise<Baseline> =>
  start(dir, cores, { kind: "token-risk", answers: stored(answersByMint), databaseUrl, poolSize, cost })

/** Raw Bun.serve + node-postgres pool for GET /api/risk-check/{mint}: the latest-scan lookup, then the service's bytes for that path. */
export const rawLatestScan = (
  dir: string,
  cores: string | undefined,
  databaseUrl: string,
  poolSize: number,
  answers: ReadonlyMap<string, Answer>
): Promise<Baseline> => start(dir, cores, { kind: "latest-scan", answers: stored(answers), databaseUrl, poolSize })

/**
 * Raw Bun.serve + node-postgres pool for POST /api/risk-check/batch with cold mints: the body parsed, the
 * mints not in `warm` read in one statement (the service's cold read), then the all-warm batch's bytes.
 */
export const rawLatestBatch = (
  dir: string,
  cores: string | undefined,
  databaseUrl: string,
  poolSize: number,
  warm: ReadonlyArray<string>,
  answers: ReadonlyMap<string, Answer>
): Promise<Baseline> =>
  start(dir, cores, { kind: "latest-batch", answers: stored(answers), warm, databaseUrl, poolSize })
