import type { Freshness } from "../../domain/Verdict.ts"
import type { DeployerBook } from "./archetypes.ts"
import { healthyProfile, type HolderShare, type TokenProfile } from "./profile.ts"
import type { Random } from "./random.ts"

// Hand-made tokens the README points at, each showing one behaviour of the scoring model.

export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

export interface ShowcaseToken {
  readonly key: string
  readonly freshness: Freshness
  readonly profile: TokenProfile
  // What earlier scans saw, when it differs from the latest (a rug pull happens between scans).
  readonly before: TokenProfile | null
}

const HOURS_PER_YEAR = 365 * 24

const holder = (random: Random, pct: number, kind: HolderShare["kind"]): HolderShare => ({
  address: random.address(),
  pct,
  kind
})

// Keeps mint and freeze authority as a regulated issuer does; verified, so it must still come out ok.
const verifiedStablecoin = (random: Random): TokenProfile => {
  const base = healthyProfile(random, USDC_MINT, {
    address: random.address(),
    priorLaunches: 0,
    priorRugs: 0,
    priorHoneypots: 0,
    flagged: false
  })
  return {
    ...base,
    name: "USD Coin",
    symbol: "USDC",
    decimals: 6,
    supply: 9_500_000_000,
    ageHours: 4.5 * HOURS_PER_YEAR,
    mintAuthority: random.address(),
    freezeAuthority: random.address(),
    verified: true,
    liquidity: { usd: 48_000_000, lpLocked: null, lpLockPct: null, lockExpiresInHours: null, poolCount: 412 },
    holders: {
      count: 3_400_000,
      top: [
        holder(random, 9.1, "exchange"),
        holder(random, 6.3, "exchange"),
        holder(random, 4.2, "pool"),
        holder(random, 3.2, "holder"),
        holder(random, 2.8, "exchange"),
        holder(random, 2.1, "pool"),
        holder(random, 1.9, "holder"),
        holder(random, 1.4, "exchange"),
        holder(random, 1.1, "holder"),
        holder(random, 0.9, "holder"),
        holder(random, 0.8, "holder"),
        holder(random, 0.7, "holder")
      ],
      creatorPct: 0,
      bundledPct: 0
    },
    market: {
      marketCap: 9_500_950_000,
      volume24h: 610_000_000,
      priceChanges: [0, 0.01, -0.01, 0.02],
      buys: 210_000,
      sells: 205_000,
      uniqueTraders: 64_000
    },
    metadata: { ...base.metadata, mutable: true },
    scanDepth: "full",
    outcome: "active"
  }
}

// The largest accounts are AMM vaults, a locker and the burn address: none of them is a concentrated holder.
const ammVaultHolders = (random: Random, mint: string, book: DeployerBook): TokenProfile => {
  const base = healthyProfile(random, mint, random.pick(book.clean))
  const wallets = [1.9, 1.6, 1.4, 1.2, 1.1, 0.9, 0.8, 0.7, 0.6, 0.5].map((pct) => holder(random, pct, "holder"))
  return {
    ...base,
    holders: {
      ...base.holders,
      top: [
        holder(random, 38, "pool"),
        holder(random, 22, "locker"),
        holder(random, 12, "burn"),
        holder(random, 6, "pool"),
        ...wallets
      ]
    },
    scanDepth: "full"
  }
}

const token2022FeeDelegate = (random: Random, mint: string, book: DeployerBook): TokenProfile => {
  const base = healthyProfile(random, mint, random.pick(book.clean))
  return {
    ...base,
    tokenProgram: "token-2022",
    extensions: { ...base.extensions, transferFeeBps: 300, permanentDelegate: random.address() },
    metadata: { ...base.metadata, mutable: true },
    scanDepth: "full"
  }
}

const honeypot = (random: Random, mint: string, book: DeployerBook): TokenProfile => {
  const base = healthyProfile(random, mint, random.pick(book.clean))
  return { ...base, ageHours: 5, trading: { isHoneypot: true, buyTax: 0, sellTax: 100 }, scanDepth: "full" }
}

const serialRuggerToken = (random: Random, mint: string, book: DeployerBook): TokenProfile => {
  const base = healthyProfile(random, mint, book.notoriousRugger)
  return {
    ...base,
    ageHours: 3,
    liquidity: { usd: 12_400, lpLocked: false, lpLockPct: 0, lockExpiresInHours: null, poolCount: 1 },
    scanDepth: "full"
  }
}

const ruggedToken = (
  random: Random,
  mint: string,
  book: DeployerBook
): { profile: TokenProfile; before: TokenProfile } => {
  const before: TokenProfile = {
    ...healthyProfile(random, mint, book.notoriousRugger),
    ageHours: 20 * 24,
    liquidity: { usd: 64_000, lpLocked: false, lpLockPct: 0, lockExpiresInHours: null, poolCount: 1 },
    scanDepth: "full",
    outcome: null
  }
  const profile: TokenProfile = {
    ...before,
    outcome: "rugged",
    liquidity: { ...before.liquidity, usd: 41.5 },
    market: { ...before.market, marketCap: 310, volume24h: 95_000, priceChanges: [-1.5, -38, -96.4, -99.2] }
  }
  return { profile, before }
}

export const showcaseTokens = (
  random: Random,
  book: DeployerBook,
  newMint: () => string
): ReadonlyArray<ShowcaseToken> => {
  const rugged = ruggedToken(random, newMint(), book)
  return [
    { key: "verified_stablecoin", freshness: "fresh", profile: verifiedStablecoin(random), before: null },
    { key: "amm_vault_holders", freshness: "fresh", profile: ammVaultHolders(random, newMint(), book), before: null },
    {
      key: "token2022_fee_delegate",
      freshness: "fresh",
      profile: token2022FeeDelegate(random, newMint(), book),
      before: null
    },
    { key: "honeypot", freshness: "fresh", profile: honeypot(random, newMint(), book), before: null },
    {
      key: "serial_rugger_token",
      freshness: "fresh",
      profile: serialRuggerToken(random, newMint(), book),
      before: null
    },
    { key: "rugged", freshness: "cold", profile: rugged.profile, before: rugged.before }
  ]
}
