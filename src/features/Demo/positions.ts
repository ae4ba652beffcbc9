import { base58 } from "@scure/base"
import type { ScanEvidenceEncoded } from "../../domain/ScanEvidence.ts"

// A demo token whose position deteriorates scan by scan (liquidity drains, sellers take over, price
// falls), so monitor-position shows pressure and next-check guidance changing with the entry time.

const HOUR_MS = 3_600_000

const DRAINING_MINT = base58.encode(
  new Uint8Array(new Bun.CryptoHasher("sha256").update("risk-api-demo-token:slow-leak").digest())
)

const STEPS = [
  { hoursAgo: 4, liquidityUsd: 240_000, priceUsd: 0.02, buys: 3_100, sells: 2_750, top10: 22 },
  { hoursAgo: 3, liquidityUsd: 236_000, priceUsd: 0.0197, buys: 2_900, sells: 2_900, top10: 23 },
  { hoursAgo: 2, liquidityUsd: 220_000, priceUsd: 0.0185, buys: 2_500, sells: 3_200, top10: 25 },
  { hoursAgo: 1, liquidityUsd: 180_000, priceUsd: 0.015, buys: 2_000, sells: 3_300, top10: 28 },
  { hoursAgo: 0.02, liquidityUsd: 110_000, priceUsd: 0.0105, buys: 1_700, sells: 3_300, top10: 32 }
] as const

export const drainingPositionScans = (now: Date): ReadonlyArray<ScanEvidenceEncoded> =>
  STEPS.map((step) => ({
    mint: DRAINING_MINT,
    scannedAt: new Date(now.getTime() - step.hoursAgo * HOUR_MS).toISOString(),
    name: "Slow Leak",
    symbol: "LEAK",
    decimals: 6,
    supply: 1_000_000_000,
    createdAt: new Date(now.getTime() - 40 * 24 * HOUR_MS).toISOString(),
    mintAuthority: null,
    freezeAuthority: null,
    trading: { isHoneypot: false, buyTax: 0, sellTax: 0 },
    liquidity: {
      liquidityUsd: step.liquidityUsd,
      lpLocked: true,
      lpLockPercentage: 100,
      lpLockExpiresAt: null,
      poolCount: 2
    },
    holders: {
      holderCount: 9_000,
      top: [{ address: base58.encode(new Uint8Array(32).fill(7)), pct: step.top10, kind: "holder" }],
      creatorPct: 1,
      bundledLaunchPct: 0
    },
    deployer: {
      address: base58.encode(new Uint8Array(32).fill(9)),
      priorLaunches: 2,
      priorRugs: 0,
      priorHoneypots: 0,
      flagged: false
    },
    market: {
      priceUsd: step.priceUsd,
      liquidityUsd: step.liquidityUsd,
      marketCap: step.priceUsd * 1_000_000_000,
      volume24h: step.liquidityUsd * 1.5,
      buyCount24h: step.buys,
      sellCount24h: step.sells,
      tradeCount24h: step.buys + step.sells,
      uniqueTraders24h: Math.round((step.buys + step.sells) / 3)
    },
    metadata: { mutable: false, uri: null, copycatOf: null },
    aml: { flaggedHolderCount: 0, flaggedHolderPct: 0 },
    outcome: null
  }))
