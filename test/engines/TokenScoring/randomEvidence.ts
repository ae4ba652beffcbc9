import type { HolderKind, ScanEvidence, ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"
import type { Random } from "../../../src/features/Demo/random.ts"
import { ADDRESSES, decodeEvidence, WALLETS } from "./fixtures.ts"

const HOUR_MS = 60 * 60 * 1000
const BASE_MS = Date.parse("2026-06-01T12:00:00.000Z")

// Each field is null, benign or risky; riskiness varies per evidence so that scores spread over 0..100,
// and risky values sit on the thresholds of the rules often.
interface Draw {
  readonly random: Random
  readonly riskiness: number
}

const field = <A>({ random, riskiness }: Draw, benign: () => A, risky: () => A): A | null => {
  const roll = random.next()
  return roll < 0.2 ? null : roll < 0.2 + riskiness ? risky() : benign()
}
const edgeOr = (random: Random, edges: ReadonlyArray<number>, make: () => number): number =>
  random.chance(0.5) ? random.pick(edges) : make()
const iso = (ms: number) => new Date(ms).toISOString()

const KINDS: ReadonlyArray<HolderKind> = ["holder", "pool", "locker", "burn", "creator", "insider", "exchange"]

const randomHolders = (draw: Draw): ScanEvidenceEncoded["holders"] => {
  const { random } = draw
  return {
    holderCount: field(
      draw,
      () => random.int(200, 100_000),
      () => random.pick([0, 49, 50, 199, random.int(0, 300)])
    ),
    top: random.chance(0.2)
      ? []
      : Array.from({ length: random.int(1, 14) }, () => {
          const risky = random.chance(draw.riskiness)
          return {
            address: random.pick(WALLETS),
            pct: risky ? edgeOr(random, [5, 20, 50, 100], () => random.float(0, 100)) : random.float(0, 3),
            kind: risky ? random.pick(KINDS) : random.pick(["holder", "pool", "locker", "burn", "exchange"] as const)
          }
        }),
    creatorPct: field(
      draw,
      () => random.float(0, 4.9),
      () => edgeOr(random, [5, 20, 100], () => random.float(0, 100))
    ),
    bundledLaunchPct: field(
      draw,
      () => random.float(0, 9.9),
      () => edgeOr(random, [10, 30, 100], () => random.float(0, 100))
    )
  }
}

const randomMarket = (draw: Draw): ScanEvidenceEncoded["market"] => {
  const { random } = draw
  const usd = (edges: ReadonlyArray<number>) => edgeOr(random, [0, ...edges], () => random.logUniform(1, 50_000))
  const change = (max: number) =>
    field(
      draw,
      () => random.float(-20, 20),
      () => edgeOr(random, [50, -50, 100, -100], () => random.float(-100, max))
    )
  return {
    priceUsd: field(
      draw,
      () => random.logUniform(1e-9, 10),
      () => 0
    ),
    liquidityUsd: field(
      draw,
      () => random.logUniform(10_000, 1e7),
      () => usd([2_999, 10_000])
    ),
    marketCap: field(
      draw,
      () => random.logUniform(50_000, 1e9),
      () => usd([9_999, 10_000, 49_999])
    ),
    volume24h: field(
      draw,
      () => random.logUniform(100, 1e6),
      () => random.logUniform(1e6, 1e9)
    ),
    priceChange5m: change(200),
    priceChange1h: change(300),
    priceChange6h: change(300),
    priceChange24h: change(1_000),
    buyCount24h: field(
      draw,
      () => random.int(100, 5_000),
      () => random.int(0, 30)
    ),
    sellCount24h: field(
      draw,
      () => random.int(100, 5_000),
      () => random.int(0, 10_000)
    ),
    tradeCount24h: field(
      draw,
      () => random.int(200, 10_000),
      () => random.pick([49, 50, random.int(0, 100_000)])
    ),
    uniqueTraders24h: field(
      draw,
      () => random.int(200, 5_000),
      () => random.int(0, 10)
    )
  }
}

const randomScan = (random: Random): ScanEvidenceEncoded => {
  const draw: Draw = { random, riskiness: random.float(0, 0.12) }
  const scannedMs = BASE_MS + random.int(0, 1000) * HOUR_MS
  const pct = (edges: ReadonlyArray<number>) => edgeOr(random, [100, ...edges], () => random.float(0, 100))
  const authority = () => (random.chance(draw.riskiness) ? random.pick(WALLETS) : null)
  return {
    mint: random.pick(WALLETS),
    scannedAt: iso(scannedMs),
    scanDepth: random.pick(["full", "full", "partial", "metadata_only"] as const),
    name: field(
      draw,
      () => "Otter",
      () => random.pick(["", " ", "USD Coin"])
    ),
    symbol: field(
      draw,
      () => "OTR",
      () => random.pick(["", "USDC"])
    ),
    decimals: field(
      draw,
      () => random.int(0, 9),
      () => 9
    ),
    supply: field(
      draw,
      () => random.logUniform(1, 1e12),
      () => 0
    ),
    tokenProgram: random.pick(["spl-token", "token-2022"] as const),
    createdAt: field(
      draw,
      () => iso(scannedMs - random.float(168, 20_000) * HOUR_MS),
      () => iso(scannedMs - edgeOr(random, [1, 24, 168, -1], () => random.float(0, 200)) * HOUR_MS)
    ),
    mintAuthority: authority(),
    freezeAuthority: authority(),
    extensions: {
      transferFeeBps: field(
        draw,
        () => 0,
        () => Math.round(edgeOr(random, [1, 100, 500, 1_000, 5_000, 10_000], () => random.float(0, 10_000)))
      ),
      permanentDelegate: authority(),
      transferHook: authority(),
      defaultAccountStateFrozen: field(
        draw,
        () => false,
        () => true
      ),
      nonTransferable: field(
        draw,
        () => false,
        () => random.chance(0.3)
      ),
      mintCloseAuthority: authority()
    },
    trading: {
      isHoneypot: field(
        draw,
        () => false,
        () => random.chance(0.5)
      ),
      buyTax: field(
        draw,
        () => random.float(0, 0.99),
        () => pct([1, 5, 10, 25])
      ),
      sellTax: field(
        draw,
        () => random.float(0, 0.99),
        () => pct([1, 5, 10, 25, 50])
      )
    },
    liquidity: {
      liquidityUsd: field(
        draw,
        () => random.logUniform(10_000, 1e7),
        () => edgeOr(random, [0, 2_999, 3_000, 9_999], () => random.float(0, 10_000))
      ),
      lpLocked: field(
        draw,
        () => true,
        () => false
      ),
      lpLockPercentage: field(
        draw,
        () => random.float(90, 100),
        () => pct([0, 49, 50, 89])
      ),
      lpLockExpiresAt: field(
        draw,
        () => iso(scannedMs + random.float(170, 10_000) * HOUR_MS),
        () => iso(scannedMs + random.float(-30 * 24, 10 * 24) * HOUR_MS)
      ),
      poolCount: field(
        draw,
        () => random.int(1, 4),
        () => 0
      )
    },
    holders: randomHolders(draw),
    deployer: {
      address: field(
        draw,
        () => random.pick(WALLETS),
        () => random.pick(WALLETS)
      ),
      priorLaunches: field(
        draw,
        () => random.int(0, 20),
        () => random.int(0, 20)
      ),
      priorRugs: field(
        draw,
        () => 0,
        () => random.int(1, 3)
      ),
      priorHoneypots: field(
        draw,
        () => 0,
        () => random.int(1, 3)
      ),
      flagged: field(
        draw,
        () => false,
        () => true
      )
    },
    market: randomMarket(draw),
    metadata: {
      mutable: field(
        draw,
        () => false,
        () => true
      ),
      uri: field(
        draw,
        () => "https://arweave.net/x",
        () => ""
      ),
      copycatOf: field(
        draw,
        () => null,
        () => random.pick(["USDC", "", "BONK"])
      )
    },
    aml: {
      flaggedHolderCount: field(
        draw,
        () => 0,
        () => random.int(1, 5)
      ),
      flaggedHolderPct: field(
        draw,
        () => 0,
        () => pct([5, 20])
      )
    },
    verified: random.chance(0.15),
    outcome: field(
      draw,
      () => "active",
      () => random.pick(["rugged", "abandoned"] as const)
    )
  }
}

// 2.1: the launch figures (snipers, dev sold %), drawn after the rest so that a seed's other fields stay as
// they were before them.
const withLaunch = (scan: ScanEvidenceEncoded, random: Random): ScanEvidenceEncoded => {
  const draw: Draw = { random, riskiness: random.float(0, 0.3) }
  return {
    ...scan,
    holders: {
      ...scan.holders,
      sniperPct: field(
        draw,
        () => random.float(0, 9.9),
        () => edgeOr(random, [10, 30, 50, 100], () => random.float(0, 100))
      )
    },
    deployer: {
      ...scan.deployer,
      initialPct: field(
        draw,
        () => random.float(1, 20),
        () => edgeOr(random, [0, 0.99, 1], () => random.float(0, 100))
      ),
      soldPct: field(
        draw,
        () => random.float(0, 49.9),
        () => edgeOr(random, [50, 80, 100], () => random.float(0, 100))
      )
    }
  }
}

// 2.1: the deployer's share of the concentrated liquidity in unlocked positions, drawn after everything else
// (the launch figures included) so that a seed's other fields stay as they were before it.
const withPositions = (scan: ScanEvidenceEncoded, random: Random): ScanEvidenceEncoded => {
  const draw: Draw = { random, riskiness: random.float(0, 0.3) }
  return {
    ...scan,
    liquidity: {
      ...scan.liquidity,
      positionsCreatorPct: field(
        draw,
        () => random.float(0, 19.9),
        () => edgeOr(random, [20, 49.99, 50, 100], () => random.float(0, 100))
      )
    }
  }
}

// 2.1: a bonding curve among the pools, drawn last too: none (most), live with its depth (read, or not: Meteora
// DBC), or every curve complete. A curve is then the only pool, or one beside others.
const withCurve = (scan: ScanEvidenceEncoded, random: Random): ScanEvidenceEncoded => {
  const draw: Draw = { random, riskiness: random.float(0, 0.5) }
  const state = random.pick(["none", "none", "live", "live", "complete"] as const)
  if (state === "none") return scan
  return {
    ...scan,
    liquidity: {
      ...scan.liquidity,
      bondingCurveOnly: random.pick([true, false]),
      curve: state,
      ...(state === "live"
        ? {
            curveDepthUsd: field(
              draw,
              () => random.logUniform(10_000, 1e6),
              () => edgeOr(random, [0, 2_999, 3_000, 9_999], () => random.float(0, 10_000))
            )
          }
        : {})
    }
  }
}

export const randomEvidence = (random: Random): ScanEvidence =>
  decodeEvidence(withCurve(withPositions(withLaunch(randomScan(random), random), random), random))

// Each turns one observed signal worse (or leaves it as is); none may raise the score. 2.1: a red flag worsens
// a fact already observed; turning a missing fact into an observed one is the "missing is never better"
// property's business (missing reads no better than the best observed value, so observing can lift a score).
export interface RedFlag {
  readonly name: string
  readonly apply: (evidence: ScanEvidence, random: Random) => ScanEvidence
}

const address = (random: Random) => random.pick(ADDRESSES)
const lpObserved = (e: ScanEvidence): boolean =>
  e.liquidity.lpLocked !== null || e.liquidity.lpLockPercentage !== null || (e.liquidity.lpBurnedPct ?? null) !== null
const lower = (value: number | null, random: Random): number | null =>
  value === null ? null : value * random.pick([0, random.next()])
const raise = (value: number | null, random: Random, max: number): number =>
  Math.min(max, (value ?? 0) + random.float(0, max))
const later = (at: string, random: Random, maxHours: number) =>
  iso(Date.parse(at) + random.float(0, maxHours) * HOUR_MS)

const withHolder = (
  e: ScanEvidence,
  random: Random,
  change: (holder: ScanEvidence["holders"]["top"][number]) => ScanEvidence["holders"]["top"][number]
): ScanEvidence => {
  if (e.holders.top.length === 0) return e
  const index = random.int(0, e.holders.top.length - 1)
  return {
    ...e,
    holders: { ...e.holders, top: e.holders.top.map((holder, at) => (at === index ? change(holder) : holder)) }
  }
}

export const RED_FLAGS: ReadonlyArray<RedFlag> = [
  { name: "honeypot", apply: (e) => ({ ...e, trading: { ...e.trading, isHoneypot: true } }) },
  { name: "mint authority", apply: (e, r) => ({ ...e, mintAuthority: e.mintAuthority ?? address(r) }) },
  { name: "freeze authority", apply: (e, r) => ({ ...e, freezeAuthority: e.freezeAuthority ?? address(r) }) },
  {
    name: "permanent delegate",
    apply: (e, r) => ({ ...e, extensions: { ...e.extensions, permanentDelegate: address(r) } })
  },
  { name: "transfer hook", apply: (e, r) => ({ ...e, extensions: { ...e.extensions, transferHook: address(r) } }) },
  {
    name: "mint close authority",
    apply: (e, r) => ({ ...e, extensions: { ...e.extensions, mintCloseAuthority: address(r) } })
  },
  {
    name: "default frozen",
    apply: (e) => ({ ...e, extensions: { ...e.extensions, defaultAccountStateFrozen: true } })
  },
  { name: "non-transferable", apply: (e) => ({ ...e, extensions: { ...e.extensions, nonTransferable: true } }) },
  {
    name: "higher transfer fee",
    apply: (e, r) => ({
      ...e,
      extensions: { ...e.extensions, transferFeeBps: Math.round(raise(e.extensions.transferFeeBps, r, 10_000)) }
    })
  },
  {
    name: "higher buy tax",
    apply: (e, r) =>
      e.trading.buyTax === null ? e : { ...e, trading: { ...e.trading, buyTax: raise(e.trading.buyTax, r, 100) } }
  },
  {
    name: "higher sell tax",
    apply: (e, r) =>
      e.trading.sellTax === null ? e : { ...e, trading: { ...e.trading, sellTax: raise(e.trading.sellTax, r, 100) } }
  },
  {
    name: "lower liquidity",
    apply: (e, r) => ({
      ...e,
      liquidity: { ...e.liquidity, liquidityUsd: lower(e.liquidity.liquidityUsd, r) },
      market: { ...e.market, liquidityUsd: lower(e.market.liquidityUsd, r) }
    })
  },
  { name: "no pool", apply: (e) => ({ ...e, liquidity: { ...e.liquidity, poolCount: 0 } }) },
  {
    name: "the bonding curve completes, no migration pool seen",
    apply: (e) =>
      e.liquidity.curve === undefined
        ? e
        : { ...e, liquidity: { ...e.liquidity, curve: "complete", curveDepthUsd: null } }
  },
  {
    name: "a shallower bonding curve",
    apply: (e, r) =>
      (e.liquidity.curveDepthUsd ?? null) === null
        ? e
        : { ...e, liquidity: { ...e.liquidity, curveDepthUsd: lower(e.liquidity.curveDepthUsd ?? null, r) } }
  },
  { name: "LP unlocked", apply: (e) => (lpObserved(e) ? { ...e, liquidity: { ...e.liquidity, lpLocked: false } } : e) },
  {
    name: "deployer owns more of the concentrated liquidity",
    apply: (e, r) =>
      (e.liquidity.positionsCreatorPct ?? null) === null
        ? e
        : {
            ...e,
            liquidity: { ...e.liquidity, positionsCreatorPct: raise(e.liquidity.positionsCreatorPct ?? 0, r, 100) }
          }
  },
  {
    name: "less LP locked",
    apply: (e, r) =>
      lpObserved(e)
        ? { ...e, liquidity: { ...e.liquidity, lpLockPercentage: lower(e.liquidity.lpLockPercentage ?? 100, r) } }
        : e
  },
  {
    name: "LP lock expires sooner",
    apply: (e, r) => {
      const expiresMs =
        e.liquidity.lpLockExpiresAt === null
          ? Date.parse(e.scannedAt) + 30 * 24 * HOUR_MS
          : Date.parse(e.liquidity.lpLockExpiresAt)
      return {
        ...e,
        liquidity: {
          ...e.liquidity,
          lpLockExpiresAt: new Date(expiresMs - r.float(0, 40 * 24) * HOUR_MS).toISOString()
        }
      }
    }
  },
  {
    name: "larger holder",
    apply: (e, r) => withHolder(e, r, (holder) => ({ ...holder, pct: raise(holder.pct, r, 100) }))
  },
  {
    name: "vault becomes a wallet",
    apply: (e, r) =>
      withHolder(e, r, (holder) =>
        ["pool", "locker", "burn"].includes(holder.kind) ? { ...holder, kind: "holder" } : holder
      )
  },
  {
    name: "wallet becomes an insider",
    apply: (e, r) => withHolder(e, r, (holder) => (holder.kind === "holder" ? { ...holder, kind: "insider" } : holder))
  },
  {
    name: "new whale",
    apply: (e, r) =>
      e.holders.top.length === 0
        ? e
        : {
            ...e,
            holders: {
              ...e.holders,
              top: [...e.holders.top, { address: address(r), pct: r.float(0, 60), kind: "holder" as const }]
            }
          }
  },
  {
    name: "creator holds more",
    apply: (e, r) =>
      e.holders.creatorPct === null
        ? e
        : { ...e, holders: { ...e.holders, creatorPct: raise(e.holders.creatorPct, r, 100) } }
  },
  {
    name: "more bundled",
    apply: (e, r) =>
      e.holders.bundledLaunchPct === null
        ? e
        : { ...e, holders: { ...e.holders, bundledLaunchPct: raise(e.holders.bundledLaunchPct, r, 100) } }
  },
  {
    name: "more sniped",
    apply: (e, r) =>
      (e.holders.sniperPct ?? null) === null
        ? e
        : { ...e, holders: { ...e.holders, sniperPct: raise(e.holders.sniperPct ?? 0, r, 100) } }
  },
  {
    name: "fewer holders",
    apply: (e, r) => ({
      ...e,
      holders: {
        ...e.holders,
        holderCount: e.holders.holderCount === null ? null : Math.floor(e.holders.holderCount * r.next())
      }
    })
  },
  {
    name: "prior rug",
    apply: (e, r) =>
      e.deployer.priorRugs === null
        ? e
        : { ...e, deployer: { ...e.deployer, priorRugs: e.deployer.priorRugs + r.int(1, 3) } }
  },
  {
    name: "prior honeypot",
    apply: (e, r) =>
      e.deployer.priorHoneypots === null
        ? e
        : { ...e, deployer: { ...e.deployer, priorHoneypots: e.deployer.priorHoneypots + r.int(1, 3) } }
  },
  {
    name: "dev sold more",
    apply: (e, r) =>
      (e.deployer.soldPct ?? null) === null
        ? e
        : { ...e, deployer: { ...e.deployer, soldPct: raise(e.deployer.soldPct ?? 0, r, 100) } }
  },
  {
    name: "deployer flagged",
    apply: (e) => (e.deployer.flagged === null ? e : { ...e, deployer: { ...e.deployer, flagged: true } })
  },
  {
    name: "younger token",
    apply: (e, r) => (e.createdAt === null ? e : { ...e, createdAt: later(e.createdAt, r, 24 * 30) })
  },
  {
    name: "fewer unique traders",
    apply: (e, r) => ({
      ...e,
      market: {
        ...e.market,
        uniqueTraders24h: e.market.uniqueTraders24h === null ? null : Math.floor(e.market.uniqueTraders24h * r.next())
      }
    })
  },
  {
    name: "more sells",
    apply: (e, r) =>
      e.market.sellCount24h === null
        ? e
        : { ...e, market: { ...e.market, sellCount24h: e.market.sellCount24h + r.int(1, 500) } }
  },
  {
    name: "wilder price",
    apply: (e, r) => ({
      ...e,
      market: { ...e.market, priceChange1h: (e.market.priceChange1h ?? 0) * (1 + r.float(0, 5)) }
    })
  },
  // Not "smaller market cap": in 2.0 it cuts both ways (a micro cap costs points, a cap far above the
  // liquidity does too), so it is no red flag on its own. A vanishing market with liquidity is:
  {
    name: "smaller market, same depth gone",
    apply: (e, r) => {
      const factor = r.pick([0, r.next()])
      const scaled = (value: number | null) => (value === null ? null : value * factor)
      return {
        ...e,
        market: { ...e.market, marketCap: scaled(e.market.marketCap), liquidityUsd: scaled(e.market.liquidityUsd) },
        liquidity: {
          ...e.liquidity,
          liquidityUsd: scaled(e.liquidity.liquidityUsd),
          ...(e.liquidity.curveDepthUsd === undefined ? {} : { curveDepthUsd: scaled(e.liquidity.curveDepthUsd) })
        }
      }
    }
  },
  {
    name: "mutable metadata",
    apply: (e) => (e.metadata.mutable === null ? e : { ...e, metadata: { ...e.metadata, mutable: true } })
  },
  { name: "copycat", apply: (e) => ({ ...e, metadata: { ...e.metadata, copycatOf: "USDC" } }) },
  // An impersonating name ("USD Coin") blanked trades one red flag for another (impersonation is the worse):
  // only a harmless name is blanked.
  { name: "blank name", apply: (e) => (e.name === "USD Coin" || e.name === null ? e : { ...e, name: "" }) },

  {
    name: "more flagged holders",
    apply: (e, r) =>
      e.aml.flaggedHolderCount === null
        ? e
        : { ...e, aml: { ...e.aml, flaggedHolderCount: e.aml.flaggedHolderCount + r.int(1, 4) } }
  },
  {
    name: "flagged holders hold more",
    apply: (e, r) =>
      e.aml.flaggedHolderPct === null
        ? e
        : { ...e, aml: { ...e.aml, flaggedHolderPct: raise(e.aml.flaggedHolderPct, r, 100) } }
  },
  { name: "abandoned", apply: (e) => (e.outcome === "rugged" ? e : { ...e, outcome: "abandoned" }) },
  { name: "rugged", apply: (e) => ({ ...e, outcome: "rugged" }) },
  { name: "not verified", apply: (e) => ({ ...e, verified: false }) }
]
