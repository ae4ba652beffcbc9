import { Schema } from "effect"
import { Address } from "../../../src/domain/Address.ts"
import { ScanEvidence, type ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"

export const decodeEvidence = Schema.decodeUnknownSync(ScanEvidence)

const MINT = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
export const WALLETS = [
  "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  "5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1",
  "HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH",
  "2wmVCSfPxGPjrnMMn7rchp4uaeoTqN39mXFC2zhPdri9",
  "CuieVDEDtLo7FypA9SbLM9saXFdb1dsshEkyErMqkRQq",
  "3yFwqXBfZY4jBVUafQ1YEXw189y2dN3V5KQq9uzBDy1E"
] as const
export const ADDRESSES: ReadonlyArray<Address> = WALLETS.map((wallet) => Schema.decodeUnknownSync(Address)(wallet))

export const SCANNED_AT = "2026-06-01T12:00:00.000Z"

// Every weighted field observed, nothing any rule objects to: scores 100 with completeness 1.
export const CLEAN_SCAN: ScanEvidenceEncoded = {
  mint: MINT,
  scannedAt: SCANNED_AT,
  scanDepth: "full",
  name: "Clean Otter",
  symbol: "COTR",
  decimals: 9,
  supply: 1_000_000_000,
  tokenProgram: "spl-token",
  createdAt: "2025-06-01T12:00:00.000Z",
  mintAuthority: null,
  freezeAuthority: null,
  extensions: {},
  trading: { isHoneypot: false, buyTax: 0, sellTax: 0 },
  liquidity: { liquidityUsd: 500_000, lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: null, poolCount: 2 },
  holders: {
    holderCount: 5_000,
    top: [
      { address: WALLETS[0], pct: 20, kind: "pool" },
      { address: WALLETS[1], pct: 3, kind: "holder" },
      { address: WALLETS[2], pct: 2, kind: "holder" },
      { address: WALLETS[3], pct: 1.5, kind: "exchange" }
    ],
    creatorPct: 1,
    bundledLaunchPct: 0
  },
  deployer: { address: WALLETS[4], priorLaunches: 2, priorRugs: 0, priorHoneypots: 0, flagged: false },
  market: {
    priceUsd: 0.005,
    liquidityUsd: 500_000,
    marketCap: 5_000_000,
    volume24h: 400_000,
    priceChange5m: 0.4,
    priceChange1h: -1.2,
    priceChange6h: 3.5,
    priceChange24h: -8,
    buyCount24h: 600,
    sellCount24h: 500,
    tradeCount24h: 1_100,
    uniqueTraders24h: 400
  },
  metadata: { mutable: false, uri: "https://arweave.net/clean-otter", copycatOf: null },
  aml: { flaggedHolderCount: 0, flaggedHolderPct: 0 },
  verified: false,
  outcome: "active"
}

const SECTIONS = ["extensions", "trading", "liquidity", "holders", "deployer", "market", "metadata", "aml"] as const
type Section = (typeof SECTIONS)[number]

export type EvidencePatch = Partial<Omit<ScanEvidenceEncoded, Section>> & {
  readonly [S in Section]?: Partial<NonNullable<ScanEvidenceEncoded[S]>>
}

// The clean scan with some fields replaced; sections merge field by field.
const scanWith = (patch: EvidencePatch, base: ScanEvidenceEncoded = CLEAN_SCAN): ScanEvidenceEncoded => {
  const sections = Object.fromEntries(SECTIONS.map((section) => [section, { ...base[section], ...patch[section] }]))
  return { ...base, ...patch, ...sections }
}

export const evidenceWith = (patch: EvidencePatch, base: ScanEvidenceEncoded = CLEAN_SCAN): ScanEvidence =>
  decodeEvidence(scanWith(patch, base))

export const hoursAfterScan = (hours: number): string =>
  new Date(Date.parse(SCANNED_AT) + hours * 60 * 60 * 1000).toISOString()
