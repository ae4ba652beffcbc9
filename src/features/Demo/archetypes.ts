import type { Verdict } from "../../domain/Verdict.ts"
import { IMITATED_TOKENS } from "./names.ts"
import { type DeployerRecord, healthyProfile, type HolderShare, marketFor, type TokenProfile } from "./profile.ts"
import type { Random } from "./random.ts"

// Deployers are shared between tokens, so a deployer's history reads the same on each of its launches.
export interface DeployerBook {
  readonly clean: ReadonlyArray<DeployerRecord>
  readonly onceRugged: ReadonlyArray<DeployerRecord>
  readonly serialRuggers: ReadonlyArray<DeployerRecord>
  readonly honeypotDeployers: ReadonlyArray<DeployerRecord>
  // The serial rugger behind both the serial_rugger_token and the rugged showcase tokens.
  readonly notoriousRugger: DeployerRecord
}

const deployers = (random: Random, size: number, record: () => Omit<DeployerRecord, "address">) =>
  Array.from({ length: size }, (): DeployerRecord => ({ address: random.address(), ...record() }))

const serialRuggerRecord = (random: Random): Omit<DeployerRecord, "address"> => ({
  priorLaunches: random.int(8, 30),
  priorRugs: random.int(3, 7),
  priorHoneypots: random.int(0, 1),
  flagged: random.chance(0.5)
})

export const deployerBookOf = (random: Random): DeployerBook => ({
  clean: deployers(random, 40, () => ({
    priorLaunches: random.int(0, 6),
    priorRugs: 0,
    priorHoneypots: 0,
    flagged: false
  })),
  onceRugged: deployers(random, 6, () => ({
    priorLaunches: random.int(2, 8),
    priorRugs: 1,
    priorHoneypots: 0,
    flagged: false
  })),
  serialRuggers: deployers(random, 4, () => serialRuggerRecord(random)),
  honeypotDeployers: deployers(random, 2, () => ({
    priorLaunches: random.int(4, 12),
    priorRugs: 0,
    priorHoneypots: random.int(2, 4),
    flagged: true
  })),
  notoriousRugger: { address: random.address(), ...serialRuggerRecord(random), priorLaunches: 24, priorRugs: 9 }
})

type Issue = (profile: TokenProfile, random: Random, book: DeployerBook) => TokenProfile

const withHolders = (profile: TokenProfile, added: ReadonlyArray<HolderShare>): TokenProfile => ({
  ...profile,
  holders: { ...profile.holders, top: [...added, ...profile.holders.top].sort((a, b) => b.pct - a.pct) }
})

const round2 = (value: number): number => Number(value.toFixed(2))

const unlockedLiquidity = (liquidity: TokenProfile["liquidity"], usd: number): TokenProfile["liquidity"] => ({
  ...liquidity,
  usd,
  lpLocked: false,
  lpLockPct: 0,
  lockExpiresInHours: null
})

const mintAuthorityKept: Issue = (p, r) => ({ ...p, mintAuthority: r.address() })
const freezeAuthorityKept: Issue = (p, r) => ({ ...p, freezeAuthority: r.address() })
const thinLiquidity: Issue = (p, r) => {
  const usd = round2(r.float(3_200, 9_500))
  return { ...p, liquidity: { ...p.liquidity, usd }, market: marketFor(usd, r) }
}
const freshLaunch: Issue = (p, r) => ({
  ...p,
  ageHours: r.float(1.5, 20),
  holders: { ...p.holders, count: r.int(80, 600) }
})
const partialLpLock: Issue = (p, r) => ({ ...p, liquidity: { ...p.liquidity, lpLockPct: r.int(20, 49) } })
const unlockedLp: Issue = (p) => ({ ...p, liquidity: unlockedLiquidity(p.liquidity, p.liquidity.usd) })
const expiringLpLock: Issue = (p, r) => ({
  ...p,
  liquidity: { ...p.liquidity, lpLocked: true, lockExpiresInHours: r.float(6, 150) }
})
const whaleWallets: Issue = (p, r) =>
  withHolders(
    p,
    Array.from({ length: 3 }, () => ({
      address: r.address(),
      pct: round2(r.float(10, 16)),
      kind: r.pick(["holder", "insider"] as const)
    }))
  )
const smallTaxes: Issue = (p, r) => ({ ...p, trading: { ...p.trading, buyTax: r.int(3, 6), sellTax: r.int(5, 9) } })
const transferFee: Issue = (p, r) => ({
  ...p,
  tokenProgram: "token-2022",
  extensions: { ...p.extensions, transferFeeBps: r.int(100, 450) }
})
const creatorBag: Issue = (p, r) => {
  const creatorPct = round2(r.float(6, 15))
  return withHolders({ ...p, holders: { ...p.holders, creatorPct } }, [
    { address: p.deployer.address, pct: creatorPct, kind: "creator" }
  ])
}
const bundledLaunch: Issue = (p, r) => ({ ...p, holders: { ...p.holders, bundledPct: round2(r.float(11, 28)) } })
const onceRuggedDeployer: Issue = (p, r, book) => ({ ...p, deployer: r.pick(book.onceRugged) })
const mutableMetadata: Issue = (p) => ({ ...p, metadata: { ...p.metadata, mutable: true } })
const pumped: Issue = (p, r) => ({
  ...p,
  market: {
    ...p.market,
    priceChanges: [
      round2(r.float(-10, 10)),
      round2(r.float(-30, 40)),
      round2(r.float(-40, 80)),
      round2(r.float(60, 140))
    ]
  }
})
const washVolume: Issue = (p, r) => ({
  ...p,
  market: { ...p.market, volume24h: round2(p.liquidity.usd * r.float(60, 120)), uniqueTraders: r.int(3, 12) }
})
const flaggedHolders: Issue = (p, r) => ({
  ...p,
  aml: { flaggedHolderCount: r.int(1, 3), flaggedHolderPct: round2(r.float(0.5, 4)) }
})

const MODERATE_ISSUES: ReadonlyArray<Issue> = [
  mintAuthorityKept,
  freezeAuthorityKept,
  thinLiquidity,
  freshLaunch,
  partialLpLock,
  unlockedLp,
  expiringLpLock,
  whaleWallets,
  smallTaxes,
  transferFee,
  creatorBag,
  bundledLaunch,
  onceRuggedDeployer,
  mutableMetadata,
  pumped,
  washVolume,
  flaggedHolders
]

const honeypot: Issue = (p, r) => ({ ...p, trading: { ...p.trading, isHoneypot: true, sellTax: r.pick([0, 99, 100]) } })
const rugPulled: Issue = (p, r) => ({
  ...p,
  outcome: "rugged",
  liquidity: unlockedLiquidity(p.liquidity, round2(r.float(5, 300))),
  market: { ...p.market, volume24h: round2(r.float(10, 500)), priceChanges: [-2, -40, -93, -98.5] }
})
const serialRugger: Issue = (p, r, book) => ({ ...p, deployer: r.pick(book.serialRuggers), ageHours: r.float(0.5, 30) })
const honeypotDeployer: Issue = (p, r, book) => ({ ...p, deployer: r.pick(book.honeypotDeployers) })
const noMarket: Issue = (p) => ({
  ...p,
  liquidity: { ...unlockedLiquidity(p.liquidity, 0), poolCount: 0 },
  market: { ...p.market, volume24h: 0, buys: 0, sells: 0, uniqueTraders: 0 }
})
const extremeSellTax: Issue = (p, r) => ({
  ...p,
  trading: { ...p.trading, buyTax: r.int(5, 15), sellTax: r.int(50, 95) }
})
const nonTransferable: Issue = (p) => ({
  ...p,
  tokenProgram: "token-2022",
  extensions: { ...p.extensions, nonTransferable: true }
})
const frozenByDefault: Issue = (p, r) => ({
  ...p,
  tokenProgram: "token-2022",
  freezeAuthority: r.address(),
  extensions: { ...p.extensions, defaultAccountStateFrozen: true }
})
const abandoned: Issue = (p, r) => ({
  ...p,
  outcome: "abandoned",
  ageHours: r.float(60, 300) * 24,
  market: {
    ...p.market,
    volume24h: round2(r.float(0, 40)),
    buys: r.int(0, 3),
    sells: r.int(0, 5),
    uniqueTraders: r.int(0, 3)
  }
})
const copycatLaunch: Issue = (p, r) => {
  const original = r.pick(IMITATED_TOKENS)
  const usd = round2(r.float(1_000, 8_000))
  return {
    ...p,
    name: original.name,
    symbol: original.symbol,
    ageHours: r.float(1, 12),
    metadata: { ...p.metadata, mutable: true, copycatOf: original.symbol },
    liquidity: unlockedLiquidity(p.liquidity, usd),
    market: marketFor(usd, r)
  }
}

const DECISIVE_ISSUES: ReadonlyArray<Issue> = [
  honeypot,
  rugPulled,
  serialRugger,
  honeypotDeployer,
  noMarket,
  extremeSellTax,
  nonTransferable,
  frozenByDefault,
  abandoned,
  copycatLaunch
]

const applyIssues = (profile: TokenProfile, issues: ReadonlyArray<Issue>, random: Random, book: DeployerBook) =>
  issues.reduce((shaped, issue) => issue(shaped, random, book), profile)

const someModerate = (random: Random, howMany: number): ReadonlyArray<Issue> =>
  random.shuffle(MODERATE_ISSUES).slice(0, howMany)

// A candidate token aimed at a verdict; the generator checks it with the scoring engine and draws again on a miss.
export const candidateFor = (
  target: Exclude<Verdict, "unknown">,
  random: Random,
  mint: string,
  book: DeployerBook
): TokenProfile => {
  const healthy = healthyProfile(random, mint, random.pick(book.clean))
  switch (target) {
    case "ok":
      // A few tokens were only read for metadata: nothing to object to, but little to be confident about.
      return random.chance(0.05) ? { ...healthy, scanDepth: "metadata_only" } : healthy
    case "warn":
      return applyIssues(healthy, someModerate(random, random.int(2, 3)), random, book)
    case "block":
      return random.chance(0.8)
        ? applyIssues(healthy, [random.pick(DECISIVE_ISSUES), ...someModerate(random, random.int(0, 2))], random, book)
        : applyIssues(healthy, someModerate(random, random.int(5, 7)), random, book)
  }
}

// Used when the draws keep missing the target verdict: each lands on it whatever the healthy base drew.
export const fallbackFor = (
  target: Exclude<Verdict, "unknown">,
  random: Random,
  mint: string,
  book: DeployerBook
): TokenProfile => {
  const healthy: TokenProfile = { ...healthyProfile(random, mint, random.pick(book.clean)), scanDepth: "full" }
  switch (target) {
    case "ok":
      return healthy
    case "warn":
      return applyIssues(healthy, [mintAuthorityKept, freezeAuthorityKept, mutableMetadata], random, book)
    case "block":
      return honeypot(healthy, random, book)
  }
}
