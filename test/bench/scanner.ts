import { readFileSync } from "node:fs"
import { availableParallelism } from "node:os"

// `npm run bench:scanner`: the JSON-RPC server over a LiteSVM world (test/bench/scannerRpc.ts) on one
// core, the scanner (test/bench/scannerWorker.ts) on the other (taskset), against the targets of the
// issue: round trips of a full scan (pools, LP holders, locks and the transfer simulation included;
// target ≤ 14) and full scans per second per worker process on one core (target ≥ 30), beside the raw
// calls per second of the same server in the same run. A partial scan is printed as such and never
// counts towards a target.
const here = new URL(".", import.meta.url).pathname
const pinned = Bun.which("taskset") !== null && availableParallelism() >= 2
const pin = (core: number, args: ReadonlyArray<string>) =>
  pinned ? ["taskset", "-c", String(core), ...args] : [...args]

interface Figures {
  readonly mints: number
  readonly holders: number
  readonly scanDepth: string
  readonly partial: ReadonlyArray<string>
  readonly rpcCalls: number
  readonly rpcRoundTrips: number
  readonly pools: number
  readonly poolVenues: ReadonlyArray<string>
  readonly lpHolderPools: number
  readonly liquidityUsd: number | null
  readonly expectedLiquidityUsd: number
  readonly solUsd: number | null
  readonly transferSimulated: boolean
  readonly transferOk: boolean | null
  readonly transferReason: string | null
  readonly swap: string
  readonly allScans: number
  readonly allPartial: number
  readonly allPartialReasons: ReadonlyArray<string>
  readonly maxRpcCalls: number
  readonly maxRpcRoundTrips: number
  readonly loopSeconds: number
  readonly concurrency: number
  readonly scansPerSecond: number
  readonly loopFull: number
  readonly loopPartial: number
  readonly loopFailed: number
  readonly loopReasons: ReadonlyArray<string>
  readonly workerCpuMsPerScan: number | null
  readonly serverCpuMsPerScan: number | null
  readonly rawCallsPerSecond: number
}

const rpc = Bun.spawn(pin(1, [process.execPath, `${here}scannerRpc.ts`]), { stdout: "pipe", stderr: "inherit" })
const reader = rpc.stdout.getReader()
let first = ""
while (!first.includes("\n")) {
  const { done, value } = await reader.read()
  if (done) throw new Error("the bench RPC server exited")
  first += new TextDecoder().decode(value)
}
try {
  const worker = Bun.spawn(pin(0, [process.execPath, `${here}scannerWorker.ts`]), {
    env: { ...process.env, BENCH_RPC: first.trim(), BENCH_RPC_PID: String(rpc.pid) },
    stdout: "pipe",
    stderr: "inherit"
  })
  const output = await new Response(worker.stdout).text()
  if ((await worker.exited) !== 0) throw new Error("the scanner bench failed")
  const f = JSON.parse(output.trim().split("\n").at(-1)!) as Figures
  const full = f.scanDepth === "full"
  const everyFull = full && f.allPartial === 0
  const fullPerSecond = f.loopFull / f.loopSeconds
  const loopClean = f.loopPartial === 0 && f.loopFailed === 0
  const met = (ok: boolean, why: string) => (ok ? "yes" : `no${why === "" ? "" : ` (${why})`}`)
  const depth = (ok: boolean) => (ok ? "" : "partial scans")
  const usd = (value: number | null) =>
    value === null ? "not observed" : `${value.toLocaleString("en-US", { maximumFractionDigits: 0 })} USD`

  console.log(
    `\nscanner bench: ${f.mints} mints, ${pinned ? "RPC server on core 1, scanner on core 0 (taskset)" : "NOT pinned (no taskset or one core): server and scanner share the cores"}`
  )
  console.log(
    `first scan: ${f.scanDepth}${full ? "" : ` — partial: ${f.partial.join("; ")}`}; ${f.holders} holders, ${f.pools} pools (${f.poolVenues.join(", ")}), LP holders read in ${f.lpHolderPools}, liquidity ${usd(f.liquidityUsd)} at SOL ${f.solUsd ?? "not observed"} USD, transfer ${f.transferSimulated ? `simulated (${f.transferOk ? "ok" : "failed"})` : `not simulated: ${f.transferReason}`}, swap ${f.swap}`
  )
  if (f.allPartial > 0)
    console.log(`one scan of each mint: ${f.allPartial} of ${f.allScans} partial: ${f.allPartialReasons.join("; ")}`)
  if (!loopClean)
    console.log(
      `throughput loop: ${f.loopPartial} partial and ${f.loopFailed} failed scans: ${f.loopReasons.join("; ")}`
    )

  console.log(
    "\n| scanner (local JSON-RPC over LiteSVM, server and scanner on separate cores) | figure | target | met |"
  )
  console.log("|---|---|---|---|")
  console.log(
    `| full scan round trips (HTTP requests), first mint (${f.scanDepth}; ${f.rpcCalls} JSON-RPC calls) | ${f.rpcRoundTrips}${full ? "" : " (partial)"} | ≤ 14 | ${met(full && f.rpcRoundTrips <= 14, depth(full))} |`
  )
  console.log(
    `| full scan round trips, most over one scan of each of ${f.allScans} mints (${f.allPartial} partial; most calls ${f.maxRpcCalls}) | ${f.maxRpcRoundTrips} | ≤ 14 | ${met(everyFull && f.maxRpcRoundTrips <= 14, depth(everyFull))} |`
  )
  console.log(
    `| full scans/s, one worker process on one core (${f.concurrency} in flight; ${f.loopFull} full, ${f.loopPartial} partial, ${f.loopFailed} failed in ${f.loopSeconds.toFixed(1)} s) | ${fullPerSecond.toFixed(1)} | ≥ 30 | ${met(loopClean && fullPerSecond >= 30, loopClean ? "" : "partial or failed scans")} |`
  )
  console.log(
    `| baseline: raw getMultipleAccounts calls/s on the same server, same run (${f.concurrency} in flight) | ${f.rawCallsPerSecond.toFixed(0)} | | |`
  )
  console.log(
    `| baseline ÷ round trips per scan (the server's ceiling in scans/s, were every request as cheap) | ${(f.rawCallsPerSecond / f.rpcRoundTrips).toFixed(0)} | | |`
  )
  const ms = (value: number | null) => (value === null ? "n/a" : value.toFixed(1))
  console.log(
    `| CPU ms per scan in the loop: scanner process / RPC server process | ${ms(f.workerCpuMsPerScan)} / ${ms(f.serverCpuMsPerScan)} | | |`
  )
  console.log(`| scan depth, first scan | ${f.scanDepth} | full | ${met(full, "")} |`)
  console.log(
    `| pools found / with LP holders read | ${f.pools} / ${f.lpHolderPools} | 2 / 1 | ${met(f.pools === 2 && f.lpHolderPools === 1, "")} |`
  )
  const liquidityRight = f.liquidityUsd !== null && Math.abs(f.liquidityUsd / f.expectedLiquidityUsd - 1) < 0.01
  console.log(
    `| liquidity (both pools, SOL at the reference pool's price) | ${usd(f.liquidityUsd)} | ${usd(f.expectedLiquidityUsd)} as built | ${met(liquidityRight, "")} |`
  )
  console.log(
    `| transfer simulated from a real holder | ${f.transferSimulated ? (f.transferOk ? "yes, ok" : "yes, failed") : "no"} | yes | ${met(f.transferSimulated, f.transferReason ?? "")} |`
  )
  // Other processes on these cores lower both figures alike; the load average says whether there were any
  // (the bench's own two processes account for about 2).
  const load = (() => {
    try {
      return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0])
    } catch {
      return 0 // not Linux
    }
  })()
  if (load > 3)
    console.log(
      `\nload average ${load.toFixed(2)} on ${availableParallelism()} cores: other processes shared the cores, scans/s and the baseline are low alike`
    )
  if (!full || !everyFull || !loopClean) process.exitCode = 1
} finally {
  rpc.kill("SIGTERM")
  await rpc.exited
}
