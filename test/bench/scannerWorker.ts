import { createSolanaRpc } from "@solana/kit"
import { makeRpcClient } from "../../src/Scanner/Rpc.ts"
import { scanMint } from "../../src/Scanner/Scan.ts"

// The scanning side of the scanner bench: round trips of one full scan, scans per second on one core,
// and the same server answering raw getMultipleAccounts calls as the baseline.
const { mints, url } = JSON.parse(process.env.BENCH_RPC ?? "{}") as { url: string; mints: ReadonlyArray<string> }
const seconds = Number(process.env.SECONDS ?? 10)
const concurrency = Number(process.env.CONCURRENCY ?? 16)
const client = makeRpcClient({ urls: [url], timeoutMs: 5_000, retries: 2, requestsPerSecond: 1_000_000, breakerFailures: 5, breakerCooldownMs: 30_000, maxRetryAfterMs: 5_000 })
const settings = { signaturePages: 3, scannerVersion: "bench", issuers: new Map(), exchangeLabels: new Map() }
const scanOnce = async (mint: string) => {
  const { calls, rpc } = client.forScan(16)
  return scanMint(rpc, calls, mint as never, settings)
}

const one = await scanOnce(mints[0]!)
const holders = one.holders.top.status === "observed" ? one.holders.top.value.length : 0

const loop = async (work: (i: number) => Promise<unknown>) => {
  let done = 0
  const until = performance.now() + seconds * 1000
  await Promise.all(Array.from({ length: concurrency }, async (_, lane) => {
    for (let i = lane; performance.now() < until; i += concurrency) {
      await work(i)
      done++
    }
  }))
  return done / seconds
}

for (let i = 0; i < 50; i++) await scanOnce(mints[i % mints.length]!) // warm-up
const scansPerSecond = await loop((i) => scanOnce(mints[i % mints.length]!))
const raw = createSolanaRpc(url)
const rawCallsPerSecond = await loop((i) => raw.getMultipleAccounts([mints[i % mints.length]! as never], { encoding: "base64" }).send())
console.log(JSON.stringify({ holders, rpcCalls: one.provenance.rpcCalls, scanDepth: one.scanDepth, scansPerSecond, rawCallsPerSecond }))
