import { base58 } from "@scure/base"
import { Schema } from "effect"
import { ScanEvidence, type ScanEvidenceEncoded } from "../../src/domain/ScanEvidence.ts"
import type { Address } from "../../src/domain/Address.ts"

/** A fresh valid address, different on every call (tests share one database per file). */
export const newAddress = (): Address => base58.encode(crypto.getRandomValues(new Uint8Array(32))) as Address

export const minutesAgo = (minutes: number, now = Date.now()): string => new Date(now - minutes * 60_000).toISOString()

const POOL_VAULT = "5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1"
const SMALL_HOLDER = "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH"

/** A clean, liquid, mature token scan; override what a test is about. */
export const cleanScan = (mint: string, overrides: Partial<ScanEvidenceEncoded> = {}): ScanEvidenceEncoded => ({
  mint,
  scannedAt: minutesAgo(1),
  scanDepth: "full",
  source: "cached_scan",
  name: "Clean Token",
  symbol: "CLEAN",
  decimals: 6,
  supply: 1_000_000_000,
  tokenProgram: "spl-token",
  createdAt: minutesAgo(60 * 24 * 200),
  mintAuthority: null,
  freezeAuthority: null,
  extensions: {
    transferFeeBps: null,
    permanentDelegate: null,
    transferHook: null,
    defaultAccountStateFrozen: false,
    nonTransferable: false,
    mintCloseAuthority: null
  },
  trading: { isHoneypot: false, buyTax: 0, sellTax: 0 },
  liquidity: { liquidityUsd: 2_500_000, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 3 },
  // Observed holders (model 2.1: unread holders keep a token at warn at best): pool vaults and small wallets.
  holders: {
    holderCount: 25_000,
    top: [
      { address: POOL_VAULT, pct: 18, kind: "pool" },
      { address: SMALL_HOLDER, pct: 1.5, kind: "holder" }
    ],
    creatorPct: 0.5,
    bundledLaunchPct: 0
  },
  deployer: { address: newAddress(), priorLaunches: 1, priorRugs: 0, priorHoneypots: 0, flagged: false },
  market: {
    priceUsd: 1.2,
    liquidityUsd: 2_500_000,
    marketCap: 120_000_000,
    volume24h: 3_000_000,
    priceChange5m: 0.1,
    priceChange1h: 0.5,
    priceChange6h: 1.5,
    priceChange24h: 2,
    buyCount24h: 6_000,
    sellCount24h: 5_500,
    tradeCount24h: 11_500,
    uniqueTraders24h: 4_000
  },
  metadata: { mutable: false, uri: "https://example.org/meta.json", copycatOf: null },
  aml: { flaggedHolderCount: 0, flaggedHolderPct: 0 },
  verified: false,
  outcome: null,
  ...overrides
})

export const decodeScan = Schema.decodeUnknownSync(ScanEvidence)
