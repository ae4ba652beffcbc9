import { Option, Redacted } from "effect"
import type { ScannerConfig } from "../../../src/workers/Scanner/Config.ts"
import type { RpcSettings } from "../../../src/workers/Scanner/Rpc.ts"
import type { ScanSettings } from "../../../src/workers/Scanner/Scan.ts"

// The scanner's settings as the tests run it against the local RPC server: quick timeouts, no rate limit
// to speak of, batching on. Each test overrides what it is about.

export const testRpcSettings = (url: string, overrides: Partial<RpcSettings> = {}): RpcSettings => ({
  urls: [url],
  timeoutMs: 2_000,
  retries: 2,
  requestsPerSecond: 10_000,
  breakerFailures: 5,
  breakerCooldownMs: 30_000,
  maxRetryAfterMs: 5_000,
  batch: true,
  ...overrides
})

export const testScannerConfig = (url: string, overrides: Partial<ScannerConfig> = {}): ScannerConfig => ({
  rpcUrl: Option.some(Redacted.make(url)),
  fallbackUrls: [],
  concurrency: 3,
  requestsPerSecond: 10_000,
  callBudget: 64,
  batch: true,
  referencePool: Option.none(),
  maxPools: 30,
  maxLpPools: 4,
  timeoutMs: 2_000,
  retries: 1,
  signaturePages: 3,
  refreshSeconds: 900,
  readWindowSeconds: 3_600,
  scheduleMs: 100,
  pollMs: 20,
  leaseMs: 30_000,
  maxAttempts: 3,
  issuersFile: Option.none(),
  insiders: false,
  funderCalls: 40,
  launchWindowSlots: 10,
  launchTransactions: 25,
  ...overrides
})

/** The scan settings the scanner tests start from, pricing SOL through the world's reference pool. */
export const testScanSettings = (
  referencePool: ScanSettings["referencePool"],
  overrides: Partial<ScanSettings> = {}
): ScanSettings => ({
  signaturePages: 3,
  scannerVersion: "test",
  issuers: new Map(),
  exchangeLabels: new Map(),
  referencePool,
  maxPools: 30,
  maxLpPools: 4,
  ...overrides
})
