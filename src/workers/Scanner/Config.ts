import { isAddress } from "@solana/kit"
import { Config, Option, Redacted } from "effect"

// The scanner's settings, from the environment (README, "The scanner"). Provider URLs carry API keys, so
// they are Redacted: they print as <redacted> and only the scheme and host ever reach a log line.

const bounded = (name: string, min: number, max: number, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be between ${min} and ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

export const ScannerConfig = Config.all({
  rpcUrl: Config.option(Config.redacted("SOLANA_RPC_URL")),
  fallbackUrls: Config.redacted("SOLANA_RPC_FALLBACK_URLS").pipe(
    Config.map((list) =>
      Redacted.value(list)
        .split(",")
        .map((url) => url.trim())
        .filter((url) => url !== "")
        .map((url) => Redacted.make(url))
    ),
    Config.withDefault([] as ReadonlyArray<Redacted.Redacted<string>>)
  ),
  concurrency: bounded("SCANNER_CONCURRENCY", 1, 256, 8),
  requestsPerSecond: bounded("SCANNER_RPC_RPS", 1, 100_000, 50),
  callBudget: bounded("SCANNER_CALL_BUDGET", 6, 500, 128),
  batch: Config.boolean("SCANNER_RPC_BATCH").pipe(Config.withDefault(true)),
  referencePool: Config.option(
    Config.string("SCANNER_REFERENCE_POOL").pipe(
      Config.validate({ message: "SCANNER_REFERENCE_POOL must be a base58 address", validation: isAddress })
    )
  ),
  maxPools: bounded("SCANNER_MAX_POOLS", 1, 100, 30),
  maxLpPools: bounded("SCANNER_MAX_LP_POOLS", 0, 20, 4),
  timeoutMs: bounded("SCANNER_RPC_TIMEOUT_MS", 100, 120_000, 5_000),
  retries: bounded("SCANNER_RPC_RETRIES", 0, 10, 2),
  signaturePages: bounded("SCANNER_SIGNATURE_PAGES", 1, 100, 3),
  refreshSeconds: bounded("SCANNER_REFRESH_SECONDS", 10, 7 * 86_400, 900),
  readWindowSeconds: bounded("SCANNER_READ_WINDOW_SECONDS", 60, 30 * 86_400, 3_600),
  scheduleMs: bounded("SCANNER_SCHEDULE_MS", 100, 3_600_000, 5_000),
  pollMs: bounded("SCANNER_POLL_MS", 10, 60_000, 250),
  leaseMs: bounded("SCANNER_LEASE_MS", 1_000, 3_600_000, 60_000),
  maxAttempts: bounded("SCANNER_MAX_ATTEMPTS", 1, 100, 5),
  issuersFile: Config.option(Config.string("SCANNER_ISSUERS_FILE")),
  // The insiders stage (docs/scan-evidence.md, "insiders"): 0 funder calls reads no funders.
  insiders: Config.boolean("SCANNER_INSIDERS").pipe(Config.withDefault(true)),
  funderCalls: bounded("SCANNER_FUNDER_CALLS", 0, 400, 40),
  launchWindowSlots: bounded("SCANNER_LAUNCH_WINDOW_SLOTS", 0, 1_000, 10),
  launchTransactions: bounded("SCANNER_LAUNCH_TRANSACTIONS", 1, 200, 25)
})
export type ScannerConfig = Config.Config.Success<typeof ScannerConfig>

/** Every configured endpoint, primary first; empty when SOLANA_RPC_URL is not set. */
export const endpointsOf = (config: ScannerConfig): ReadonlyArray<string> =>
  Option.match(config.rpcUrl, {
    onNone: () => [],
    // An empty SOLANA_RPC_URL= line in an env file means "not set".
    onSome: (url): ReadonlyArray<string> =>
      Redacted.value(url).trim() === ""
        ? []
        : [Redacted.value(url).trim(), ...config.fallbackUrls.map((fallback) => Redacted.value(fallback))]
  })
