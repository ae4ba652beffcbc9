import { makeRpcClient } from "../../src/workers/Scanner/Rpc.ts"
import type { ScanSettings } from "../../src/workers/Scanner/Scan.ts"
import {
  defaultInsiderSettings,
  memoryFunderBook,
  memoryLaunches
} from "../../src/workers/Scanner/stages/FunderBook.ts"

// The scanner as the benches run it against the scanner bench's LiteSVM world (scannerRpc.ts): one RPC client
// on its URL, without a rate limit, batching calls, and the production scan settings (src/workers/Scanner/
// Config.ts: SCANNER_MAX_POOLS 30, SCANNER_MAX_LP_POOLS 4), the insiders stage on with its funder book and
// launch memory in memory when asked.
export const benchScanner = (options: {
  readonly url: string
  readonly referencePool: string
  readonly insiders: boolean
}): { readonly client: ReturnType<typeof makeRpcClient>; readonly settings: ScanSettings } => ({
  client: makeRpcClient({
    urls: [options.url],
    timeoutMs: 5_000,
    retries: 2,
    requestsPerSecond: 1_000_000,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
    maxRetryAfterMs: 5_000,
    batch: true
  }),
  settings: {
    signaturePages: 3,
    scannerVersion: "bench",
    issuers: new Map(),
    exchangeLabels: new Map(),
    referencePool: options.referencePool as never,
    maxPools: 30,
    maxLpPools: 4,
    ...(options.insiders
      ? { insiders: { ...defaultInsiderSettings, book: memoryFunderBook(), launches: memoryLaunches(2_000) } }
      : {})
  }
})
