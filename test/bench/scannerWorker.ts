import { readFileSync } from "node:fs"
import { createSolanaRpc } from "@solana/kit"
import type { ScanEvidenceV2 } from "../../src/domain/EvidenceV2.ts"
import { ScanFailed, scanMint } from "../../src/workers/Scanner/Scan.ts"
import { benchScanner } from "./benchScanner.ts"

// The scanning side of the scanner bench: what one full scan costs in calls and round trips (and
// whether it really was full), scans per second on one core, and the same server answering raw
// getMultipleAccounts calls as the baseline. The last line on stdout is the JSON scanner.ts reads.
const { mints, url, referencePool, expectedLiquidityUsd } = JSON.parse(process.env.BENCH_RPC ?? "{}") as {
  url: string
  mints: ReadonlyArray<string>
  referencePool: string
  expectedLiquidityUsd: number
}
if (typeof referencePool !== "string" || referencePool === "")
  throw new Error("BENCH_RPC has no referencePool: the scan could not price SOL")
const seconds = Number(process.env.SECONDS ?? 10)
const concurrency = Number(process.env.CONCURRENCY ?? 16)
// The production defaults (src/workers/Scanner/Config.ts): SCANNER_CALL_BUDGET 128, SCANNER_MAX_POOLS 30, SCANNER_MAX_LP_POOLS 4.
const budget = Number(process.env.SCANNER_CALL_BUDGET ?? 128)
// BENCH_INSIDERS=1 turns the insiders stage on, with its funder book in memory: the first scan of each mint
// is cold, the loop's scans warm, as the worker's with wallet_funders and its launch memory.
const { client, settings } = benchScanner({ url, referencePool, insiders: process.env.BENCH_INSIDERS === "1" })
const scanOnce = (mint: string): Promise<ScanEvidenceV2> => {
  const { counter, rpc } = client.forScan(budget)
  return scanMint(rpc, counter, mint as never, settings)
}

// One scan of each mint first (the warm-up): every one must be full, with its cost.
const first = await scanOnce(mints[0]!)
const all = [first]
for (const mint of mints.slice(1)) all.push(await scanOnce(mint))
const partialScans = all.filter((scan) => scan.scanDepth !== "full")
const pools = first.liquidity.pools.status === "observed" ? first.liquidity.pools.value : []
const lpHolderPools = pools.filter((pool) => pool.lpHolders?.status === "observed").length
const transfer = first.sellPath?.transfer ?? { status: "not_observed" as const, reason: "no sell path in the evidence" }

// Then as many scans as one process makes in SECONDS, CONCURRENCY in flight; a partial scan or a
// failed one is counted apart (it is not a scan the target may count).
// Rates are over the time until the last scan in flight came back, not the nominal SECONDS.
let elapsedSeconds = 0
const loop = async (work: (i: number) => Promise<unknown>) => {
  let done = 0
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      for (let i = lane; performance.now() < until; i += concurrency) {
        await work(i)
        done++
      }
    })
  )
  elapsedSeconds = (performance.now() - started) / 1000
  return done / elapsedSeconds
}
// CPU time of this process and of the RPC server (BENCH_RPC_PID, from /proc on Linux) over the loop:
// which side a scan's time goes to.
const serverPid = process.env.BENCH_RPC_PID
const serverCpuMs = (): number | null => {
  try {
    const fields = readFileSync(`/proc/${serverPid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10 // utime + stime, at 100 ticks a second
  } catch {
    return null
  }
}
const serverBefore = serverPid === undefined ? null : serverCpuMs()
const workerBefore = process.cpuUsage()
let loopFull = 0
let loopPartial = 0
let loopFailed = 0
const loopReasons = new Set<string>()
const scansPerSecond = await loop(async (i) => {
  try {
    const scan = await scanOnce(mints[i % mints.length]!)
    if (scan.scanDepth === "full") loopFull++
    else {
      loopPartial++
      for (const reason of scan.provenance.partial) if (loopReasons.size < 10) loopReasons.add(reason)
    }
  } catch (error) {
    loopFailed++
    if (loopReasons.size < 10)
      loopReasons.add(error instanceof ScanFailed ? `ScanFailed: ${error.reason}` : String(error).slice(0, 300))
  }
})
const loopSeconds = elapsedSeconds
const workerCpu = process.cpuUsage(workerBefore)
const serverAfter = serverBefore === null ? null : serverCpuMs()
const loopScans = loopFull + loopPartial + loopFailed
const workerCpuMsPerScan = loopScans === 0 ? null : (workerCpu.user + workerCpu.system) / 1000 / loopScans
const serverCpuMsPerScan =
  loopScans === 0 || serverBefore === null || serverAfter === null ? null : (serverAfter - serverBefore) / loopScans
const raw = createSolanaRpc(url)
const rawCallsPerSecond = await loop((i) =>
  raw.getMultipleAccounts([mints[i % mints.length]! as never], { encoding: "base64" }).send()
)

const valueOfFact = <A>(fact: { readonly status: string; readonly value?: A } | undefined): A | null =>
  fact?.status === "observed" && fact.value !== undefined ? fact.value : null
console.log(
  JSON.stringify({
    mints: mints.length,
    holders: first.holders.top.status === "observed" ? first.holders.top.value.length : 0,
    // The first scan, in full.
    scanDepth: first.scanDepth,
    partial: first.provenance.partial,
    rpcCalls: first.provenance.rpcCalls ?? Number.NaN,
    rpcRoundTrips: first.provenance.rpcRoundTrips ?? Number.NaN,
    pools: pools.length,
    poolVenues: pools.map((pool) => pool.venue),
    lpHolderPools,
    liquidityUsd: valueOfFact(first.liquidity.liquidityUsd),
    expectedLiquidityUsd,
    solUsd: valueOfFact(first.liquidity.solUsd)?.value ?? null,
    transferSimulated: transfer.status === "observed",
    transferOk: transfer.status === "observed" ? transfer.value.ok : null,
    transferReason: transfer.status === "observed" ? null : transfer.reason,
    // The swap half of the sell path, as it stands (not a target).
    swap:
      first.sellPath === undefined
        ? "no sell path"
        : first.sellPath.swap.status === "observed"
          ? `simulated (${first.sellPath.swap.value.ok ? "ok" : `failed: ${first.sellPath.swap.value.error ?? "no error given"}`})`
          : `not simulated: ${first.sellPath.swap.reason}`,
    // One scan of every mint.
    allScans: all.length,
    allPartial: partialScans.length,
    allPartialReasons: [...new Set(partialScans.flatMap((scan) => scan.provenance.partial))].slice(0, 10),
    maxRpcCalls: Math.max(...all.map((scan) => scan.provenance.rpcCalls ?? Number.NaN)),
    maxRpcRoundTrips: Math.max(...all.map((scan) => scan.provenance.rpcRoundTrips ?? Number.NaN)),
    // The throughput loop.
    loopSeconds,
    concurrency,
    scansPerSecond,
    loopFull,
    loopPartial,
    loopFailed,
    loopReasons: [...loopReasons],
    workerCpuMsPerScan,
    serverCpuMsPerScan,
    rawCallsPerSecond
  })
)
