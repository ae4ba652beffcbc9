// Rows of the bench, their targets, and the markdown table that goes into the README.
import type { Figures } from "./wrk.ts"

/** A target and whether the row meets it (undefined: the row has no target of its own). */
export interface Target {
  readonly text: string
  readonly met: boolean | undefined
  /** What is known to limit the row when it misses its target (measured this way; see README, Benchmark). */
  readonly limitedBy?: string
}

export interface Row {
  readonly scenario: string
  readonly database: string
  readonly target: Target
  readonly baseline: Figures | undefined
  readonly service: Figures
  readonly note?: string | undefined
}

const ratioOf = (row: Row): number | undefined =>
  row.baseline === undefined ? undefined : row.service.rps / row.baseline.rps

export const NO_TARGET: Target = { text: "none set", met: undefined }

const SINGLE_LIMIT =
  "Profiled under this load (bun --cpu-prof, 2026-11-24), what the service adds to the baseline's Bun.serve " +
  "work is mostly Bun's own objects: building the Response with its header object (about a fifth of the server's time), " +
  "reading the request's headers, and the request id; the answer is a reused string, the metrics are bound counters. " +
  "Its p99 also carries the collector's pauses (the service keeps a 64 MiB cache and the database engine's heap; the baseline a few answers)"

export const singleWarmTarget = (service: Figures, baseline: Figures): Target => ({
  text: "≥ 0.8× baseline req/s, p99 ≤ 1.5× baseline p99",
  met: service.rps >= 0.8 * baseline.rps && service.p99Ms <= 1.5 * baseline.p99Ms,
  limitedBy: SINGLE_LIMIT
})

export const neverScannedTarget = (service: Figures, baseline: Figures): Target => ({
  text: "≥ 0.7× baseline req/s",
  met: service.rps >= 0.7 * baseline.rps,
  limitedBy: SINGLE_LIMIT
})

export const batchTarget = (service: Figures, baseline: Figures): Target => ({
  text: "≥ 0.5× baseline req/s",
  met: service.rps >= 0.5 * baseline.rps,
  limitedBy:
    "The bench sends one body again and again, as a client polling its batch would: the service parses it once and " +
    "reuses its last answer while the scans, the latency and every age are the same (RiskCheck/KeptBatch.ts). What is " +
    "left per request is Bun reading the body and writing 23 KB (as the baseline does), finding the body's kept parse " +
    "(one hash of 2.4 KB), 50 cache lookups that each count the read for the scanner's refresh order, the public " +
    "admission, the Response with its headers and the request's metrics; a body not seen before is parsed and joined anew"
})

/** Issue 29's figure before latest_scans: the cold batch on PostgreSQL, 1M scans (457 req/s, 2026-11-24). */
const COLD_BATCH_BEFORE_RPS = 457
/** Cold mints in each request of the cold batch row (scenarios.ts COLD_IN_BATCH). */
export const COLD_IN_BATCH = 10

/** Batch of 50 with cold mints: ≥ 0.5× raw pg doing the same lookups; on PostgreSQL also ≥ 5× the figure before. */
export const coldBatchTarget = (service: Figures, baseline: Figures, postgres: boolean): Target => ({
  text: postgres
    ? `≥ 0.5× raw-pg baseline req/s and ≥ 5× ${COLD_BATCH_BEFORE_RPS} req/s (before latest_scans)`
    : "≥ 0.5× raw-pg baseline req/s",
  met: service.rps >= 0.5 * baseline.rps && (!postgres || service.rps >= 5 * COLD_BATCH_BEFORE_RPS),
  limitedBy:
    "The service parses and validates the batch, answers its 40 warm mints from memory, reads the cold ones through " +
    "the cache's shared reads (@effect/sql, one statement) and joins 50 verdicts; the baseline parses the body, sends " +
    "the same one statement through raw node-postgres and writes bytes it already holds"
})

export const tokenRiskTarget = (service: Figures, baseline: Figures): Target => ({
  text: "≥ 0.7× raw-pg baseline req/s",
  met: service.rps >= 0.7 * baseline.rps,
  limitedBy:
    "The service's JavaScript thread is saturated: HttpApi routing, schemas, auth and metering cost about " +
    "110 µs a call, and each statement about 150 µs of CPU through @effect/sql against 55 µs through raw node-postgres"
})

/** One busy account (issue 29): its keyed throughput against the all-accounts row's, same run. */
export const oneAccountTarget = (service: Figures, allAccounts: Figures): Target => ({
  text: `≥ 0.7× the all-accounts row's req/s (${allAccounts.rps.toFixed(0)})`,
  met: service.rps >= 0.7 * allAccounts.rps
})

export const lookupReferenceTarget: Target = { text: "reference for the larger dataset", met: undefined }

/** "≈" read as: at least 80% of the smaller dataset's req/s, and a p50 at most 1.25 times its p50. */
export const lookupTarget = (large: Figures, small: Figures, smallLabel: string): Target => ({
  text: `≈ ${smallLabel} (≥ 0.8× req/s, p50 ≤ 1.25×)`,
  met: large.rps >= 0.8 * small.rps && large.p50Ms <= 1.25 * small.p50Ms
})

export const rssTarget = (service: Figures, limitMb: number): Target => ({
  text: `RSS ≤ ${limitMb} MB`,
  met: service.rssMb <= limitMb,
  limitedBy:
    "Every miss parses a 2.3 KB evidence document and the garbage collector lets the heap grow with that " +
    "churn; the heap's growth is sized from the memory budget (MEMORY_LIMIT_MB, README: Memory budget), the cache " +
    "is bounded to SCAN_CACHE_MAX_BYTES (an eighth of the budget, at most 64 MiB), and RSS does not grow with the dataset"
})

/** Non-2xx answers or socket errors make a row's figures meaningless: never "met" then. */
const errorsOf = (figures: Figures | undefined, who: string): ReadonlyArray<string> =>
  figures === undefined
    ? []
    : [
        ...(figures.non2xx > 0 ? [`${who}: ${figures.non2xx} of ${figures.requests} non-2xx`] : []),
        ...(figures.socketErrors > 0 ? [`${who}: ${figures.socketErrors} socket errors`] : [])
      ]

const resultOf = (row: Row): string => {
  const errors = [...errorsOf(row.service, "service"), ...errorsOf(row.baseline, "baseline")]
  const verdict = row.target.met === undefined ? "—" : row.target.met ? "met" : "not met"
  return errors.length === 0 ? verdict : `⚠ ${verdict === "met" ? "invalid" : verdict} (${errors.join("; ")})`
}

const ms = (value: number): string =>
  Number.isNaN(value) ? "?" : value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`
const count = (value: number): string => value.toLocaleString("en-US")

/** One line per wrk run, printed as the bench goes. */
export const progressLine = (label: string, figures: Figures): string =>
  `  ${label.padEnd(52)} ${count(figures.rps).padStart(8)} req/s  p50 ${ms(figures.p50Ms).padStart(9)}  p99 ${ms(figures.p99Ms).padStart(9)}  ` +
  `RSS ${String(figures.rssMb).padStart(4)} MB  ${count(figures.requests)} requests, ` +
  `${figures.non2xx === 0 ? "all 2xx" : `${count(figures.non2xx)} non-2xx`}${figures.socketErrors > 0 ? `, ${figures.socketErrors} socket errors` : ""}`

const HEADER = [
  "scenario",
  "database",
  "target",
  "baseline req/s",
  "service req/s",
  "ratio",
  "service p50",
  "p99",
  "baseline p99",
  "RSS MB",
  "result"
]

const cellsOf = (row: Row): ReadonlyArray<string> => {
  const ratio = ratioOf(row)
  return [
    row.note === undefined ? row.scenario : `${row.scenario} (${row.note})`,
    row.database,
    row.target.text,
    row.baseline === undefined ? "—" : count(row.baseline.rps),
    count(row.service.rps),
    ratio === undefined ? "—" : `${ratio.toFixed(2)}×`,
    ms(row.service.p50Ms),
    ms(row.service.p99Ms),
    row.baseline === undefined ? "—" : ms(row.baseline.p99Ms),
    String(row.service.rssMb),
    resultOf(row)
  ]
}

export const markdownTable = (rows: ReadonlyArray<Row>): string => {
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`
  return [line(HEADER), line(HEADER.map(() => "---")), ...rows.map((row) => line(cellsOf(row)))].join("\n")
}

/** For each row that misses its target: its figure and what limits it. */
export const notMetLines = (rows: ReadonlyArray<Row>): ReadonlyArray<string> =>
  rows
    .filter((row) => row.target.met === false)
    .map((row) => {
      const ratio = ratioOf(row)
      const figure =
        ratio === undefined
          ? `${row.service.rssMb} MB RSS, ${count(row.service.rps)} req/s`
          : `${ratio.toFixed(2)}× (${count(row.service.rps)} req/s, p99 ${ms(row.service.p99Ms)})`
      return `- ${row.scenario}, ${row.database}: ${figure} against ${row.target.text}. ${row.target.limitedBy ?? "Limit not analysed."}`
    })

const ISSUE_29_RSS_MB = 300
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`

const targetLine = (
  text: string,
  met: boolean,
  measured: string,
  errors: ReadonlyArray<string>,
  reason?: string
): string => {
  const invalid = errors.length > 0 ? `; ${errors.join("; ")}` : ""
  return `target ${text} : ${
    met && errors.length === 0
      ? `met (measured ${measured})`
      : `NOT met (measured ${measured}${invalid}${reason === undefined ? "" : `; ${reason}`})`
  }`
}

const ISSUE_29_COLD_BATCH_RPS = 5 * COLD_BATCH_BEFORE_RPS

/**
 * Issue 29's throughput and memory targets, one line each per database measured: `target … : met` or
 * `target … : NOT met (measured …)`; a target whose row did not run in this run says so. Errors in a row
 * (non-2xx, socket errors) make it not met.
 */
export const issue29TargetLines = (rows: ReadonlyArray<Row>): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const each = (scenario: string, text: string, line: (row: Row) => string) => {
    const matching = rows.filter((row) => row.scenario === scenario)
    if (matching.length === 0) lines.push(`target ${text} : not measured in this run`)
    for (const row of matching) lines.push(line(row))
  }
  const errors = (row: Row) => [...errorsOf(row.service, "service"), ...errorsOf(row.baseline, "baseline")]
  each("batch of 50", "batch of 50 ≥ 0.5× raw", (row) =>
    targetLine(
      `batch of 50 ≥ 0.5× raw (${row.database})`,
      row.service.rps >= 0.5 * row.baseline!.rps,
      `${ratio(row.service.rps, row.baseline!.rps)}: ${count(row.service.rps)} against ${count(row.baseline!.rps)} req/s`,
      errors(row)
    )
  )
  each("single risk-check, warm", "single ≥ 0.8× raw with p99 ≤ 1.5× raw", (row) =>
    targetLine(
      `single ≥ 0.8× raw with p99 ≤ 1.5× raw (${row.database})`,
      row.service.rps >= 0.8 * row.baseline!.rps && row.service.p99Ms <= 1.5 * row.baseline!.p99Ms,
      `${ratio(row.service.rps, row.baseline!.rps)} req/s, p99 ${ratio(row.service.p99Ms, row.baseline!.p99Ms)}: ` +
        `${count(row.service.rps)} against ${count(row.baseline!.rps)} req/s, p99 ${ms(row.service.p99Ms)} against ${ms(row.baseline!.p99Ms)}`,
      errors(row)
    )
  )
  each("single risk-check, never scanned", "never-scanned ≥ 0.7× raw", (row) =>
    targetLine(
      `never-scanned ≥ 0.7× raw (${row.database})`,
      row.service.rps >= 0.7 * row.baseline!.rps,
      `${ratio(row.service.rps, row.baseline!.rps)}: ${count(row.service.rps)} against ${count(row.baseline!.rps)} req/s`,
      errors(row)
    )
  )
  each("POST /api/v1/token/risk, auth + quota", "keyed token risk ≥ 0.7× raw pg", (row) =>
    targetLine(
      `keyed token risk ≥ 0.7× raw pg (${row.database})`,
      row.service.rps >= 0.7 * row.baseline!.rps,
      `${ratio(row.service.rps, row.baseline!.rps)}: ${count(row.service.rps)} against ${count(row.baseline!.rps)} req/s`,
      errors(row)
    )
  )
  each(`batch of 50 with ${COLD_IN_BATCH} cold mints`, `batch of 50 with ${COLD_IN_BATCH} cold ≥ 0.5× raw pg`, (row) =>
    targetLine(
      `batch of 50 with ${COLD_IN_BATCH} cold ≥ 0.5× raw pg (${row.database})`,
      row.service.rps >= 0.5 * row.baseline!.rps,
      `${ratio(row.service.rps, row.baseline!.rps)}: ${count(row.service.rps)} against ${count(row.baseline!.rps)} req/s`,
      errors(row)
    )
  )
  const coldOnPostgres = rows.filter(
    (row) => row.scenario === `batch of 50 with ${COLD_IN_BATCH} cold mints` && row.database.startsWith("PostgreSQL")
  )
  const coldText = `batch of 50 with ${COLD_IN_BATCH} cold ≥ 5× ${COLD_BATCH_BEFORE_RPS} = ${count(ISSUE_29_COLD_BATCH_RPS)} req/s`
  if (coldOnPostgres.length === 0) lines.push(`target ${coldText} (PostgreSQL) : not measured in this run`)
  for (const row of coldOnPostgres) {
    const base = row.baseline!.rps
    lines.push(
      targetLine(
        `${coldText} (${row.database})`,
        row.service.rps >= ISSUE_29_COLD_BATCH_RPS,
        `${count(row.service.rps)} req/s`,
        errors(row),
        base < ISSUE_29_COLD_BATCH_RPS
          ? `the raw-pg baseline reading the same cold mints makes ${count(base)} req/s in this run, itself under ${count(ISSUE_29_COLD_BATCH_RPS)}: PostgreSQL on this machine bounds it`
          : `the raw-pg baseline reading the same cold mints makes ${count(base)} req/s in this run`
      )
    )
  }
  each(
    "POST /api/v1/token/risk, auth + quota, every call from one account",
    "busy account ≥ 0.7× of all-accounts",
    (row) => {
      const all = rows.find(
        (other) => other.scenario === "POST /api/v1/token/risk, auth + quota" && other.database === row.database
      )
      const text = `busy account ≥ 0.7× of all-accounts (${row.database})`
      return all === undefined
        ? `target ${text} : not measured in this run (no all-accounts row)`
        : targetLine(
            text,
            row.service.rps >= 0.7 * all.service.rps,
            ratio(row.service.rps, all.service.rps),
            errors(row)
          )
    }
  )
  each("RSS under load, default cache", `peak RSS ≤ ${ISSUE_29_RSS_MB} MB under the miss-heavy load`, (row) =>
    targetLine(
      `peak RSS ≤ ${ISSUE_29_RSS_MB} MB under the miss-heavy load (${row.database})`,
      row.service.rssMb <= ISSUE_29_RSS_MB,
      `${row.service.rssMb} MB`,
      errors(row)
    )
  )
  return lines
}
