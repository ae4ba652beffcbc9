import { availableParallelism } from "node:os"

// `npm run bench` (scanner part): the JSON-RPC server over a LiteSVM world on one core, the scanner on
// the other (taskset), as the targets of issue 13 ask: round trips of a full scan of a token with 20
// holders (target ≤ 8) and scans per second per worker process on one core (target ≥ 50).
const here = new URL(".", import.meta.url).pathname
const pin = (core: number, args: ReadonlyArray<string>) =>
  Bun.which("taskset") !== null && availableParallelism() >= 2 ? ["taskset", "-c", String(core), ...args] : [...args]

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
    env: { ...process.env, BENCH_RPC: first.trim() },
    stdout: "pipe",
    stderr: "inherit"
  })
  const output = await new Response(worker.stdout).text()
  if ((await worker.exited) !== 0) throw new Error("the scanner bench failed")
  const figures = JSON.parse(output.trim().split("\n").at(-1)!) as { holders: number; rpcCalls: number; scanDepth: string; scansPerSecond: number; rawCallsPerSecond: number }
  const ideal = figures.rawCallsPerSecond / figures.rpcCalls
  console.log("\n| scanner (local JSON-RPC over LiteSVM, server and scanner on separate cores) | figure | target | met |")
  console.log("|---|---|---|---|")
  console.log(`| RPC round trips, full scan of a token with ${figures.holders} holders (${figures.scanDepth}) | ${figures.rpcCalls} | ≤ 8 | ${figures.rpcCalls <= 8 ? "yes" : "no"} |`)
  console.log(`| scans/s, one worker process on one core (16 in flight) | ${figures.scansPerSecond.toFixed(0)} | ≥ 50 | ${figures.scansPerSecond >= 50 ? "yes" : "no"} |`)
  console.log(`| baseline: raw getMultipleAccounts calls/s on the same server | ${figures.rawCallsPerSecond.toFixed(0)} | | |`)
  console.log(`| baseline ÷ round trips per scan (the server's ceiling in scans/s) | ${ideal.toFixed(0)} | | |`)
} finally {
  rpc.kill("SIGTERM")
  await rpc.exited
}
