import { describe, expect, test } from "bun:test"
import fc from "fast-check"
import { seededRandom } from "../../../src/features/Demo/random.ts"
import type { ScanEvidence } from "../../../src/domain/ScanEvidence.ts"
import { assessToken, type TokenAssessment } from "../../../src/engines/TokenScoring/index.ts"
import { randomEvidence } from "./randomEvidence.ts"

// 2.1, "missing is never better": for every fact the rules read, the answer with the fact not observed is no
// better (score, riskLevel, recommendedAction, verdict) than with the fact observed at its most favourable
// value; where the fact decides sellability or liquidity, not observed keeps the token at `warn` at best.
// Checked with fast-check over generated evidence; a failure prints the seed.
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000)
const params = { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20_261_125) }
const evidence = fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((seed) => randomEvidence(seededRandom(seed)))

const HOUR_MS = 60 * 60 * 1000
const hoursBefore = (e: ScanEvidence, hours: number) =>
  new Date(Date.parse(e.scannedAt) - hours * HOUR_MS).toISOString()
const HOLDER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM" as ScanEvidence["mint"]
const DEEP = 1e12

interface Fact {
  /** The fact, and the rules that read it. */
  readonly name: string
  readonly forget: (e: ScanEvidence) => ScanEvidence
  /** Observed values of the fact, the most favourable among them. */
  readonly observedAs: ReadonlyArray<(e: ScanEvidence) => ScanEvidence>
  /** Decides sellability or liquidity: not observed, the token is `warn` at best. */
  readonly sellability?: (e: ScanEvidence) => ScanEvidence
}

const withLiquidity = (e: ScanEvidence, liquidity: Partial<ScanEvidence["liquidity"]>): ScanEvidence => ({
  ...e,
  liquidity: { ...e.liquidity, ...liquidity }
})
const withMarket = (e: ScanEvidence, market: Partial<ScanEvidence["market"]>): ScanEvidence => ({
  ...e,
  market: { ...e.market, ...market }
})
const unlockedLp = {
  lpLocked: null,
  lpLockPercentage: null,
  lpLockExpiresAt: null,
  lpBurnedPct: null,
  positionsCreatorPct: null,
  bondingCurveOnly: false
} as const

// The depth a sell meets (docs/scoring-model.md, derived values): liquidity, or a live curve's depth when larger.
const depthOf = (e: ScanEvidence): number => {
  const liquidity = e.liquidity.liquidityUsd ?? e.market.liquidityUsd ?? 1e6
  const curve = e.liquidity.curve === "live" ? (e.liquidity.curveDepthUsd ?? null) : null
  return curve === null ? liquidity : Math.max(liquidity, curve)
}

const FACTS: ReadonlyArray<Fact> = [
  {
    name: "sell simulation (honeypot, thin_evidence)",
    forget: (e) => ({ ...e, trading: { ...e.trading, isHoneypot: null } }),
    observedAs: [(e) => ({ ...e, trading: { ...e.trading, isHoneypot: false } })],
    // No simulation and a freeze authority: no static equivalent either.
    sellability: (e) => ({
      ...e,
      trading: { ...e.trading, isHoneypot: null },
      freezeAuthority: e.freezeAuthority ?? HOLDER
    })
  },
  {
    name: "taxes (buy_tax, sell_tax)",
    forget: (e) => ({ ...e, trading: { ...e.trading, buyTax: null, sellTax: null } }),
    observedAs: [(e) => ({ ...e, trading: { ...e.trading, buyTax: 0, sellTax: 0 } })]
  },
  {
    name: "pools and liquidity (no_market, low_liquidity, thin_liquidity_for_cap, liquidity_drop, wash_trading)",
    forget: (e) => withMarket(withLiquidity(e, { liquidityUsd: null, poolCount: null }), { liquidityUsd: null }),
    observedAs: [
      (e) => withMarket(withLiquidity(e, { liquidityUsd: DEEP, poolCount: 1 }), { liquidityUsd: DEEP }),
      (e) => withMarket(withLiquidity(e, { liquidityUsd: 0, poolCount: 0 }), { liquidityUsd: 0 })
    ],
    sellability: (e) => withMarket(withLiquidity(e, { liquidityUsd: null, poolCount: null }), { liquidityUsd: null })
  },
  {
    name: "bonding curve depth (low_liquidity, thin_liquidity_for_cap on a live curve)",
    forget: (e) => withLiquidity(e, { curveDepthUsd: null }),
    observedAs: [(e) => withLiquidity(e, { curveDepthUsd: DEEP })],
    // A live curve with little real quote in it (a launch's first minutes) and its depth not read (Meteora DBC).
    sellability: (e) =>
      withMarket(
        withLiquidity(e, {
          liquidityUsd: 500,
          poolCount: 1,
          bondingCurveOnly: true,
          curve: "live",
          curveDepthUsd: null
        }),
        { liquidityUsd: 500 }
      )
  },
  {
    name: "LP lock (lp_unlocked, lp_partially_locked, lp_lock_expiring)",
    forget: (e) => withLiquidity(e, unlockedLp),
    observedAs: [
      (e) => withLiquidity(e, { ...unlockedLp, lpLocked: true, lpLockPercentage: 100 }),
      (e) => withLiquidity(e, { ...unlockedLp, lpLocked: false, lpLockPercentage: 0 }),
      (e) => withLiquidity(e, { ...unlockedLp, lpBurnedPct: 100 })
    ],
    // Unverified, with a market.
    sellability: (e) =>
      withMarket(withLiquidity({ ...e, verified: false }, { ...unlockedLp, liquidityUsd: DEEP, poolCount: 1 }), {
        liquidityUsd: DEEP
      })
  },
  {
    name: "concentrated-liquidity positions (positions_unlocked, Pullable Liquidity)",
    forget: (e) => withLiquidity(e, { positionsCreatorPct: null }),
    observedAs: [(e) => withLiquidity(e, { positionsCreatorPct: 0 })],
    // A token whose only pools are concentrated (no LP fact), unverified, with a market: positions not read.
    sellability: (e) =>
      withMarket(withLiquidity({ ...e, verified: false }, { ...unlockedLp, liquidityUsd: DEEP, poolCount: 1 }), {
        liquidityUsd: DEEP
      })
  },
  {
    name: "holders (top10_concentration, single_holder_concentration, insider_holding)",
    forget: (e) => ({ ...e, holders: { ...e.holders, top: [] } }),
    observedAs: [(e) => ({ ...e, holders: { ...e.holders, top: [{ address: HOLDER, pct: 1, kind: "holder" }] } })],
    sellability: (e) => ({ ...e, holders: { ...e.holders, top: [] } })
  },
  {
    name: "holder count (few_holders)",
    forget: (e) => ({ ...e, holders: { ...e.holders, holderCount: null } }),
    observedAs: [(e) => ({ ...e, holders: { ...e.holders, holderCount: 100_000 } })]
  },
  {
    name: "creator and bundled shares (creator_holding, bundled_launch)",
    forget: (e) => ({ ...e, holders: { ...e.holders, creatorPct: null, bundledLaunchPct: null } }),
    observedAs: [(e) => ({ ...e, holders: { ...e.holders, creatorPct: 0, bundledLaunchPct: 0 } })]
  },
  {
    name: "sniped share (sniped_launch, Launch Capture)",
    forget: (e) => ({ ...e, holders: { ...e.holders, sniperPct: null } }),
    observedAs: [(e) => ({ ...e, holders: { ...e.holders, sniperPct: 0 } })]
  },
  {
    name: "deployer holding (dev_sold, Dev Sold)",
    forget: (e) => ({ ...e, deployer: { ...e.deployer, initialPct: null, soldPct: null } }),
    observedAs: [
      (e) => ({ ...e, deployer: { ...e.deployer, initialPct: e.deployer.initialPct ?? 10, soldPct: 0 } }),
      (e) => ({ ...e, deployer: { ...e.deployer, initialPct: 0, soldPct: null } })
    ]
  },
  {
    name: "deployer's initial holding (dev_sold's size gate)",
    forget: (e) => ({ ...e, deployer: { ...e.deployer, initialPct: null } }),
    observedAs: [(e) => ({ ...e, deployer: { ...e.deployer, initialPct: 0.5 } })]
  },
  {
    name: "deployer record (deployer_prior_rugs, deployer_prior_honeypots, deployer_flagged)",
    forget: (e) => ({ ...e, deployer: { ...e.deployer, priorRugs: null, priorHoneypots: null, flagged: null } }),
    observedAs: [(e) => ({ ...e, deployer: { ...e.deployer, priorRugs: 0, priorHoneypots: 0, flagged: false } })]
  },
  {
    name: "creation time (new_token)",
    forget: (e) => ({ ...e, createdAt: null }),
    observedAs: [(e) => ({ ...e, createdAt: hoursBefore(e, 24 * 365) })]
  },
  {
    name: "mint account (thin_evidence's static sell path)",
    forget: (e) => ({ ...e, decimals: null, supply: null }),
    observedAs: [(e) => ({ ...e, decimals: 9, supply: 1e9 })]
  },
  {
    name: "Token-2022 transfer blockers (non_transferable, default_frozen)",
    forget: (e) => ({ ...e, extensions: { ...e.extensions, nonTransferable: null, defaultAccountStateFrozen: null } }),
    observedAs: [
      (e) => ({ ...e, extensions: { ...e.extensions, nonTransferable: false, defaultAccountStateFrozen: false } })
    ]
  },
  {
    name: "market figures (micro_market_cap, wash_trading, extreme_volatility, sell_pressure, low_organic_volume)",
    forget: (e) =>
      withMarket(e, {
        marketCap: null,
        volume24h: null,
        priceChange5m: null,
        priceChange1h: null,
        priceChange6h: null,
        priceChange24h: null,
        buyCount24h: null,
        sellCount24h: null,
        tradeCount24h: null,
        uniqueTraders24h: null
      }),
    observedAs: [50_000, 1e9, null].map(
      (cap) => (e: ScanEvidence) =>
        withMarket(e, {
          marketCap: cap ?? depthOf(e) * 50,
          volume24h: 0,
          priceChange5m: 0,
          priceChange1h: 0,
          priceChange6h: 0,
          priceChange24h: 0,
          buyCount24h: 100,
          sellCount24h: 100,
          tradeCount24h: 200,
          uniqueTraders24h: 200
        })
    )
  },
  {
    name: "metadata (mutable_metadata, missing_name_or_symbol, impersonation)",
    forget: (e) => ({ ...e, name: null, symbol: null, metadata: { ...e.metadata, mutable: null } }),
    observedAs: [(e) => ({ ...e, name: "Otter", symbol: "OTR", metadata: { ...e.metadata, mutable: false } })]
  },
  {
    name: "aml (flagged_holders)",
    forget: (e) => ({ ...e, aml: { flaggedHolderCount: null, flaggedHolderPct: null } }),
    observedAs: [(e) => ({ ...e, aml: { flaggedHolderCount: 0, flaggedHolderPct: 0 } })]
  }
]

const LEVEL_RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const
const ACTION_RANK = { proceed: 0, monitor: 1, caution: 2, avoid: 3 } as const
const VERDICT_RANK = { ok: 0, warn: 1, block: 2 } as const

// `missing` is no better than `best` on any of the four answers.
const noBetter = (missing: TokenAssessment, best: TokenAssessment): boolean =>
  missing.safetyScore <= best.safetyScore &&
  LEVEL_RANK[missing.riskLevel] >= LEVEL_RANK[best.riskLevel] &&
  ACTION_RANK[missing.recommendedAction] >= ACTION_RANK[best.recommendedAction] &&
  VERDICT_RANK[missing.verdict] >= VERDICT_RANK[best.verdict]

const bestOf = (assessments: ReadonlyArray<TokenAssessment>): TokenAssessment =>
  assessments.reduce((best, next) => (next.safetyScore > best.safetyScore ? next : best))

describe(`missing is never better (fast-check, ${RUNS} runs each)`, () => {
  for (const fact of FACTS) {
    test(`${fact.name}: not observed is no better than observed at its best`, () => {
      fc.assert(
        fc.property(evidence, (e) => {
          const missing = assessToken(fact.forget(e))
          const best = bestOf(fact.observedAs.map((observe) => assessToken(observe(e))))
          if (noBetter(missing, best)) return true
          throw new Error(
            `missing ${JSON.stringify({ score: missing.safetyScore, level: missing.riskLevel, verdict: missing.verdict })} ` +
              `beats observed ${JSON.stringify({ score: best.safetyScore, level: best.riskLevel, verdict: best.verdict })}`
          )
        }),
        params
      )
    }, 120_000)
  }

  for (const fact of FACTS.filter((item) => item.sellability !== undefined)) {
    test(`${fact.name}: not observed keeps the token at warn at best`, () => {
      fc.assert(
        fc.property(evidence, (e) => {
          const answer = assessToken(fact.sellability!(e))
          return (
            answer.verdict !== "ok" &&
            answer.safetyScore < 60 &&
            LEVEL_RANK[answer.riskLevel] >= LEVEL_RANK.high &&
            ACTION_RANK[answer.recommendedAction] >= ACTION_RANK.caution &&
            answer.flags.includes("thin_evidence")
          )
        }),
        params
      )
    }, 120_000)
  }

  test("a token whose only pool is a Whirlpool: positions not read reads no better than read and safe", () => {
    const e = randomEvidence(seededRandom(1))
    const start: ScanEvidence = {
      ...e,
      verified: false,
      outcome: null,
      mintAuthority: null,
      freezeAuthority: null,
      tokenProgram: "spl-token",
      extensions: {
        ...e.extensions,
        permanentDelegate: null,
        transferHook: null,
        mintCloseAuthority: null,
        transferFeeBps: null
      },
      liquidity: { ...e.liquidity, peak24hUsd: null },
      metadata: { ...e.metadata, copycatOf: null }
    }
    const clean = FACTS.map((fact) => fact.observedAs[0]!).reduce((acc, observe) => observe(acc), start)
    const whirlpoolOnly = (positionsCreatorPct: number | null) =>
      assessToken(withLiquidity(clean, { ...unlockedLp, positionsCreatorPct }))
    const answer = (a: TokenAssessment) => ({ verdict: a.verdict, score: a.safetyScore, caps: a.hardCaps })
    expect(answer(whirlpoolOnly(0))).toEqual({ verdict: "ok", score: 100, caps: [] })
    expect(answer(whirlpoolOnly(null))).toEqual({ verdict: "warn", score: 59, caps: ["Thin Evidence:59"] })
    expect(answer(whirlpoolOnly(80))).toEqual({ verdict: "warn", score: 59, caps: ["Pullable Liquidity:59"] })
    expect(answer(whirlpoolOnly(30))).toEqual({ verdict: "ok", score: 85, caps: [] })
  })

  test("the issue's case: a token whose pools were not observed is no longer ok 100", () => {
    const e = randomEvidence(seededRandom(1))
    const start: ScanEvidence = {
      ...e,
      verified: false,
      outcome: null,
      mintAuthority: null,
      freezeAuthority: null,
      tokenProgram: "spl-token",
      extensions: {
        ...e.extensions,
        permanentDelegate: null,
        transferHook: null,
        mintCloseAuthority: null,
        transferFeeBps: null
      },
      liquidity: { ...e.liquidity, peak24hUsd: null },
      metadata: { ...e.metadata, copycatOf: null }
    }
    const clean = FACTS.map((fact) => fact.observedAs[0]!).reduce((acc, observe) => observe(acc), start)
    expect(assessToken(clean).safetyScore).toBe(100)
    const unobserved = assessToken(
      withMarket(withLiquidity(clean, { liquidityUsd: null, poolCount: null }), { liquidityUsd: null })
    )
    expect({
      verdict: unobserved.verdict,
      score: unobserved.safetyScore,
      riskLevel: unobserved.riskLevel,
      action: unobserved.recommendedAction
    }).toEqual({ verdict: "warn", score: 59, riskLevel: "high", action: "caution" })
    expect(unobserved.risks).toEqual([
      "Thin evidence: pools and liquidity not observed; the token cannot be rated ok on it"
    ])
  })
})
