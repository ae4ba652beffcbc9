import type { Verdict } from "../../../src/domain/Verdict.ts"
import { type EvidencePatch, hoursAfterScan, WALLETS } from "./fixtures.ts"

// Scenario corpus: scan evidence written from public patterns (known rug and honeypot shapes, regulated
// stablecoins, wrapped assets, memecoins, Token-2022 fee tokens, impersonations, thin scans), each with
// the verdict a trading desk expects and why. Written from the patterns, not from the weights: when the
// model disagrees, the model is what is wrong. Patches apply to the clean, mature token of fixtures.ts.

export interface CorpusCase {
  readonly note: string
  readonly expect: Exclude<Verdict, "unknown">
  /** A flag or hard cap ("Name:ceiling") the answer must carry, when one explains the verdict. */
  readonly because?: string
  /** The safety score band the answer must fall in (inclusive), when the pattern says more than the verdict. */
  readonly score?: readonly [number, number]
  readonly evidence: EvidencePatch
}

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
const PYUSD = "2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo"
const ISSUER = WALLETS[0]
const fresh = (hours: number) => hoursAfterScan(-hours)
const t22 = { tokenProgram: "token-2022" as const }
// A token whose only pools are concentrated (Whirlpool, CLMM, DLMM): no LP mint, so no LP lock fact.
const clOnly = { lpLocked: null, lpLockPercentage: null, lpLockExpiresAt: null, poolCount: 1 }
const memecoin: EvidencePatch = {
  name: "Frog Coin",
  symbol: "FROG",
  metadata: { mutable: false, uri: "https://ipfs.io/frog", copycatOf: null }
}
// A pump.fun token still on its bonding curve, `hours` after creation, with the launch figures given.
const pumpLaunch = (
  hours: number,
  launch: { readonly holders?: EvidencePatch["holders"]; readonly deployer?: EvidencePatch["deployer"] }
): EvidencePatch => ({
  ...memecoin,
  createdAt: fresh(hours),
  liquidity: { liquidityUsd: 25_000, lpLocked: null, lpLockPercentage: null, bondingCurveOnly: true, poolCount: 1 },
  market: { liquidityUsd: 25_000, marketCap: 80_000 },
  holders: { holderCount: 400, bundledLaunchPct: 0, sniperPct: 0, ...launch.holders },
  deployer: { initialPct: 3, soldPct: 0, ...launch.deployer }
})

// 2.1: a pump.fun launch seconds after its create, before any buy: the curve holds no SOL of its own (real
// reserve $0) but quotes buys and sells from its virtual reserve of 30 SOL (4,500 USD at 150 USD a SOL); the
// whole supply sits on the curve (a pool account, not a holder) and nobody else holds any.
const launchSeconds: EvidencePatch = {
  ...memecoin,
  createdAt: fresh(0.01),
  liquidity: {
    liquidityUsd: 0,
    lpLocked: null,
    lpLockPercentage: null,
    lpLockExpiresAt: null,
    bondingCurveOnly: true,
    poolCount: 1,
    curve: "live",
    curveDepthUsd: 4_500
  },
  market: {
    priceUsd: 0.0000042,
    liquidityUsd: 0,
    marketCap: 4_200,
    volume24h: 0,
    priceChange5m: null,
    priceChange1h: null,
    priceChange6h: null,
    priceChange24h: null,
    buyCount24h: 0,
    sellCount24h: 0,
    tradeCount24h: 0,
    uniqueTraders24h: 0
  },
  holders: {
    holderCount: 1,
    top: [{ address: WALLETS[0], pct: 100, kind: "pool" }],
    creatorPct: 0,
    bundledLaunchPct: 0,
    sniperPct: 0
  },
  deployer: { initialPct: 0, soldPct: null }
}

export const CORPUS: ReadonlyArray<CorpusCase> = [
  // Issuer-verified assets keep powers by design.
  {
    note: "USDC: regulated stablecoin, issuer keeps mint and freeze authority",
    expect: "ok",
    evidence: {
      mint: USDC,
      symbol: "USDC",
      name: "USD Coin",
      verified: true,
      mintAuthority: ISSUER,
      freezeAuthority: ISSUER,
      metadata: { mutable: true }
    }
  },
  {
    note: "USDT: issuer keeps freeze authority",
    expect: "ok",
    evidence: {
      mint: USDT,
      symbol: "USDT",
      name: "USDT",
      verified: true,
      freezeAuthority: ISSUER,
      mintAuthority: ISSUER
    }
  },
  {
    note: "PYUSD on Token-2022: permanent delegate, transfer hook, pausable, all issuer-held",
    expect: "ok",
    evidence: {
      mint: PYUSD,
      symbol: "PYUSD",
      name: "PayPal USD",
      verified: true,
      ...t22,
      mintAuthority: ISSUER,
      freezeAuthority: ISSUER,
      extensions: {
        permanentDelegate: ISSUER,
        transferHook: ISSUER,
        pausableAuthority: ISSUER,
        paused: false,
        transferFeeBps: 0,
        nonTransferable: false,
        defaultAccountStateFrozen: false
      }
    }
  },
  {
    note: "a verified stablecoin whose issuer has paused transfers: nobody can sell now",
    expect: "warn",
    because: "Pausable:59",
    evidence: {
      mint: PYUSD,
      symbol: "PYUSD",
      verified: true,
      ...t22,
      extensions: { pausableAuthority: ISSUER, paused: true, nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },

  // Impersonation of verified tokens.
  {
    note: "fake USDC under another mint, mint authority live",
    expect: "block",
    because: "Impersonation:20",
    evidence: { symbol: "USDC", name: "USD Coin", mintAuthority: WALLETS[5] }
  },
  {
    note: "bridged-looking copy 'USDC.e'",
    expect: "block",
    because: "impersonation",
    evidence: { symbol: "USDC.e", name: "Bridged USDC" }
  },
  {
    note: "'USDCoin' as the name, a different symbol",
    expect: "block",
    because: "impersonation",
    evidence: { symbol: "USDCN", name: "USDCoin" }
  },
  {
    note: "Cyrillic С in 'USDС'",
    expect: "block",
    because: "impersonation",
    evidence: { symbol: "USDС", name: "Tether-ish" }
  },
  {
    note: "wrapped-prefix copy of JUP",
    expect: "block",
    because: "impersonation",
    evidence: { symbol: "wJUP", name: "Wrapped Jupiter" }
  },
  {
    note: "homoglyph copy of USDT: a 5 for the S",
    expect: "block",
    because: "impersonation",
    evidence: { symbol: "U5DT", name: "Tether" }
  },
  { note: "a symbol that only resembles: 'USDX'", expect: "ok", evidence: { symbol: "USDX", name: "USD Extra Yield" } },

  // Live powers on unverified tokens.
  {
    note: "freeze authority kept by an anonymous deployer",
    expect: "warn",
    because: "Freeze Authority:59",
    evidence: { freezeAuthority: WALLETS[5] }
  },
  {
    note: "mint authority kept: supply can be inflated",
    expect: "warn",
    because: "Mint Authority:59",
    evidence: { mintAuthority: WALLETS[5] }
  },
  {
    note: "Token-2022 permanent delegate: can take any balance (2.1: worse than a 25% fee, so a block)",
    expect: "block",
    because: "Permanent Delegate:25",
    evidence: {
      ...t22,
      extensions: { permanentDelegate: WALLETS[5], nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "Token-2022 transfer hook to an unknown program",
    expect: "warn",
    because: "Transfer Hook:59",
    evidence: {
      ...t22,
      extensions: { transferHook: WALLETS[1], nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "Token-2022 pausable by the deployer",
    expect: "warn",
    because: "Pausable:59",
    evidence: {
      ...t22,
      extensions: {
        pausableAuthority: WALLETS[5],
        paused: false,
        nonTransferable: false,
        defaultAccountStateFrozen: false
      }
    }
  },
  {
    note: "accounts start frozen (default state frozen), unverified",
    expect: "block",
    because: "Default Frozen:25",
    evidence: {
      ...t22,
      freezeAuthority: WALLETS[5],
      extensions: { defaultAccountStateFrozen: true, nonTransferable: false }
    }
  },
  {
    note: "soulbound (non-transferable) token sold as a memecoin",
    expect: "block",
    because: "Non-Transferable:10",
    evidence: { ...t22, extensions: { nonTransferable: true, defaultAccountStateFrozen: false } }
  },
  {
    note: "wrapped bridge asset: the bridge keeps mint authority, not on the issuer list",
    expect: "warn",
    because: "Mint Authority:59",
    evidence: { symbol: "WETHX", name: "Wrapped Ether (bridge X)", mintAuthority: WALLETS[5] }
  },

  // Taxes.
  {
    note: "Token-2022 fee token charging 25% per transfer",
    expect: "block",
    because: "Severe Tax:29",
    evidence: {
      ...t22,
      extensions: { transferFeeBps: 2_500, nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "Token-2022 12% transfer fee",
    expect: "warn",
    because: "High Tax:59",
    evidence: {
      ...t22,
      extensions: { transferFeeBps: 1_200, nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "Token-2022 1% reflection-style fee, otherwise clean",
    expect: "ok",
    because: "transfer_fee",
    evidence: { ...t22, extensions: { transferFeeBps: 100, nonTransferable: false, defaultAccountStateFrozen: false } }
  },
  {
    note: "fee token whose scheduled fee jumps from 1% to 30%",
    expect: "block",
    because: "Severe Tax:29",
    evidence: {
      ...t22,
      extensions: { transferFeeBps: 3_000, nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "70% sell tax measured by simulation (tax honeypot)",
    expect: "block",
    because: "Extreme Tax:10",
    evidence: { trading: { isHoneypot: false, buyTax: 5, sellTax: 70 } }
  },
  {
    note: "3% buy and sell tax, otherwise a clean token",
    expect: "ok",
    evidence: { trading: { isHoneypot: false, buyTax: 3, sellTax: 3 } }
  },

  // Honeypots and exits.
  {
    note: "classic honeypot: the simulated sell fails",
    expect: "block",
    because: "Honeypot:5",
    evidence: { trading: { isHoneypot: true, buyTax: 0, sellTax: null } }
  },
  {
    note: "rugged: liquidity pulled, outcome recorded",
    expect: "block",
    because: "Rugged:5",
    evidence: { outcome: "rugged", liquidity: { liquidityUsd: 40, poolCount: 1 } }
  },
  {
    note: "rug in progress: liquidity down 70% from the 24 h high",
    expect: "block",
    because: "Liquidity Pull:20",
    evidence: { liquidity: { liquidityUsd: 60_000, peak24hUsd: 200_000 }, market: { liquidityUsd: 60_000 } }
  },
  {
    note: "no pool at all",
    expect: "block",
    because: "No Market:20",
    evidence: { liquidity: { liquidityUsd: 0, poolCount: 0 }, market: { liquidityUsd: 0 } }
  },
  { note: "abandoned project", expect: "block", because: "Abandoned:25", evidence: { outcome: "abandoned" } },

  // Memecoins.
  {
    note: "memecoin with burnt LP, renounced authorities, deep pool",
    expect: "ok",
    evidence: { ...memecoin, liquidity: { lpLocked: false, lpLockPercentage: null, lpBurnedPct: 100 } }
  },
  {
    note: "memecoin, LP unlocked and thin: 8k liquidity",
    expect: "warn",
    because: "lp_unlocked",
    evidence: {
      ...memecoin,
      liquidity: { liquidityUsd: 8_000, lpLocked: false, lpLockPercentage: null },
      market: { liquidityUsd: 8_000, marketCap: 300_000 }
    }
  },
  {
    note: "fresh launch, snipers bundled 40% in the launch block, LP unlocked",
    expect: "warn",
    because: "bundled_launch",
    evidence: {
      ...memecoin,
      createdAt: fresh(2),
      holders: { bundledLaunchPct: 40 },
      liquidity: { lpLocked: false, lpLockPercentage: null }
    }
  },
  {
    note: "team wallet holds half the supply, top 10 hold 85%",
    expect: "warn",
    because: "single_holder_concentration",
    evidence: {
      ...memecoin,
      holders: {
        top: [
          { address: WALLETS[1]!, pct: 50, kind: "holder" },
          { address: WALLETS[2]!, pct: 35, kind: "holder" }
        ]
      }
    }
  },
  {
    note: "40% of supply on an exchange hot wallet is not concentration",
    expect: "ok",
    evidence: {
      holders: {
        top: [
          { address: WALLETS[3]!, pct: 40, kind: "exchange" },
          { address: WALLETS[1]!, pct: 3, kind: "holder" }
        ]
      }
    }
  },
  {
    note: "micro-cap launch an hour old with 2k liquidity",
    expect: "warn",
    because: "low_liquidity",
    evidence: {
      ...memecoin,
      createdAt: fresh(0.5),
      liquidity: { liquidityUsd: 2_000 },
      market: {
        liquidityUsd: 2_000,
        marketCap: 8_000,
        volume24h: 3_000,
        buyCount24h: 40,
        sellCount24h: 20,
        tradeCount24h: 60,
        uniqueTraders24h: 35
      }
    }
  },
  {
    note: "market cap 500× its liquidity (inflated valuation)",
    expect: "ok",
    because: "thin_liquidity_for_cap",
    evidence: { liquidity: { liquidityUsd: 100_000 }, market: { liquidityUsd: 100_000, marketCap: 50_000_000 } }
  },

  // Deployers.
  {
    note: "serial rugger: 3 rugs out of 3 launches",
    expect: "block",
    because: "Serial Rugger:20",
    evidence: { deployer: { priorLaunches: 3, priorRugs: 3 } }
  },
  {
    note: "launchpad-scale deployer: 3 rugs out of 300 launches",
    expect: "ok",
    because: "deployer_prior_rugs",
    evidence: { deployer: { priorLaunches: 300, priorRugs: 3 } }
  },
  {
    note: "sanctioned deployer, a quarter of supply in flagged wallets",
    expect: "warn",
    because: "flagged_holders",
    evidence: { deployer: { flagged: true }, aml: { flaggedHolderCount: 12, flaggedHolderPct: 25 } }
  },

  // Listed tokens.
  {
    note: "community-listed token with mutable metadata",
    expect: "ok",
    evidence: {
      metadata: { mutable: true },
      listed: [{ list: "community-strict", source: "https://lists.example/strict.json" }]
    }
  },

  // Thin evidence.
  {
    note: "scanner saw only the mint account (no market data, no simulation)",
    expect: "warn",
    because: "thin_evidence",
    evidence: {
      scanDepth: "partial",
      trading: { isHoneypot: null, buyTax: null, sellTax: null },
      liquidity: { liquidityUsd: null, lpLocked: null, lpLockPercentage: null, poolCount: null },
      market: {
        liquidityUsd: null,
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
      },
      holders: { holderCount: null, top: [], creatorPct: null, bundledLaunchPct: null },
      deployer: { priorRugs: null, priorHoneypots: null, flagged: null },
      aml: { flaggedHolderCount: null, flaggedHolderPct: null }
    }
  },
  {
    note: "no sell simulation and a Token-2022 hook not ruled out",
    expect: "warn",
    because: "Thin Evidence:59",
    evidence: {
      ...t22,
      trading: { isHoneypot: null, buyTax: null, sellTax: null },
      extensions: { nonTransferable: null, defaultAccountStateFrozen: null }
    }
  },
  {
    note: "no simulation, but an SPL token with no freeze authority: statically sellable",
    expect: "ok",
    evidence: { trading: { isHoneypot: null, buyTax: null, sellTax: null } }
  },

  // 2.1: missing is never better.
  {
    note: "scanner call budget ran out before pool discovery finished: pools and liquidity not observed",
    expect: "warn",
    because: "Thin Evidence:59",
    evidence: {
      scanDepth: "partial",
      liquidity: { liquidityUsd: null, poolCount: null },
      market: { liquidityUsd: null }
    }
  },
  {
    note: "more pools than the scanner reads: 120 pools found, their liquidity not valued",
    expect: "warn",
    because: "thin_evidence",
    evidence: { liquidity: { liquidityUsd: null, poolCount: 120 }, market: { liquidityUsd: null } }
  },
  {
    note: "getTokenLargestAccounts failed: the holder list was not read",
    expect: "warn",
    because: "thin_evidence",
    evidence: { holders: { top: [] } }
  },
  {
    note: "Raydium AMM pool found, its LP lock status not read",
    expect: "warn",
    because: "thin_evidence",
    evidence: { liquidity: { lpLocked: null, lpLockPercentage: null } }
  },
  {
    note: "Orca Whirlpool (CLMM) only: no LP mint, position owners not read",
    expect: "warn",
    because: "thin_evidence",
    evidence: { liquidity: { lpLocked: null, lpLockPercentage: null, poolCount: 1 } }
  },
  {
    note: "pump.fun token still on its bonding curve: no LP anyone could pull",
    expect: "ok",
    evidence: {
      ...memecoin,
      createdAt: fresh(30),
      liquidity: { lpLocked: null, lpLockPercentage: null, bondingCurveOnly: true, poolCount: 1 }
    }
  },
  {
    note: "verified stablecoin with hundreds of pools, LP lock not read",
    expect: "ok",
    evidence: {
      mint: USDC,
      symbol: "USDC",
      name: "USD Coin",
      verified: true,
      mintAuthority: ISSUER,
      freezeAuthority: ISSUER,
      liquidity: { lpLocked: null, lpLockPercentage: null, poolCount: 400 }
    }
  },
  {
    note: "partial scan: the sell was simulated, holders and deployer record not read",
    expect: "warn",
    because: "thin_evidence",
    evidence: {
      scanDepth: "partial",
      holders: { top: [], holderCount: null, creatorPct: null, bundledLaunchPct: null },
      deployer: { priorRugs: null, priorHoneypots: null, flagged: null }
    }
  },
  {
    note: "deployer history longer than the scanner's budget: record not read, otherwise clean",
    expect: "ok",
    evidence: { deployer: { priorLaunches: null, priorRugs: null, priorHoneypots: null, flagged: null } }
  },

  // 2.1: standing powers.
  {
    note: "Raydium pool whose LP sits unlocked in the deployer's wallet (the classic pull setup)",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: { ...memecoin, liquidity: { lpLocked: false, lpLockPercentage: 0, lpTopWalletsPct: 100 } }
  },
  {
    note: "LP unlocked, LP holders not read: an unknown few can pull it",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: { ...memecoin, liquidity: { lpLocked: false, lpLockPercentage: 0 } }
  },
  {
    note: "LP unlocked but spread over many liquidity providers (3 largest hold 12%)",
    expect: "ok",
    because: "lp_unlocked",
    evidence: { ...memecoin, liquidity: { lpLocked: false, lpLockPercentage: 0, lpTopWalletsPct: 12 } }
  },
  {
    note: "a 30-day LP lock that expired yesterday, LP still in the team wallet",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: {
      ...memecoin,
      liquidity: { lpLocked: true, lpLockPercentage: 100, lpLockExpiresAt: fresh(24), lpTopWalletsPct: 95 }
    }
  },
  // 2.1: concentrated liquidity (CLMM, Whirlpool, DLMM): who owns the positions, and whether they are locked.
  {
    note: "Meteora DLMM launch: the deployer seeded one single-sided position holding all the liquidity, unlocked",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: { ...memecoin, createdAt: fresh(6), liquidity: { ...clOnly, positionsCreatorPct: 100 } }
  },
  {
    note: "Meteora DLMM position locked until a release point already passed: the deployer's bins are free again",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: { ...memecoin, liquidity: { ...clOnly, positionsCreatorPct: 92 } }
  },
  {
    note: "the deployer pulled its DLMM position: liquidity fell from $400,000 to $30,000 within the day",
    expect: "block",
    because: "Liquidity Pull:20",
    evidence: {
      ...memecoin,
      liquidity: { ...clOnly, liquidityUsd: 30_000, peak24hUsd: 400_000, positionsCreatorPct: 0 },
      market: { liquidityUsd: 30_000 }
    }
  },
  {
    note: "Orca Whirlpool whose team position is locked through Orca's lock_position: nothing the team can pull",
    expect: "ok",
    score: [80, 100],
    evidence: { ...memecoin, liquidity: { ...clOnly, positionsCreatorPct: 0 } }
  },
  {
    note: "Raydium CLMM token on a locked position held by Raydium's locking program (Burn & Earn for CLMM)",
    expect: "ok",
    score: [80, 100],
    evidence: { ...memecoin, liquidity: { ...clOnly, positionsCreatorPct: 0 } }
  },
  {
    note: "Whirlpool-only token whose positions belong to market makers and vaults, none linked to the deployer",
    expect: "ok",
    score: [80, 100],
    evidence: { ...memecoin, liquidity: { ...clOnly, positionsCreatorPct: 0 } }
  },
  {
    note: "CLMM where a deployer-funded wallet owns 35% of the depth, unlocked: watch it, not a block",
    expect: "ok",
    because: "lp_unlocked",
    score: [60, 89],
    evidence: { ...memecoin, liquidity: { ...clOnly, positionsCreatorPct: 35 } }
  },
  {
    note: "DLMM-only token whose positions were not read (call budget spent): not better than read and safe",
    expect: "warn",
    because: "Thin Evidence:59",
    evidence: { ...memecoin, scanDepth: "partial", liquidity: { ...clOnly, positionsCreatorPct: null } }
  },
  {
    note: "a verified issuer's own unlocked Whirlpool position holding most of the depth",
    expect: "ok",
    evidence: {
      mint: USDC,
      symbol: "USDC",
      name: "USD Coin",
      verified: true,
      mintAuthority: ISSUER,
      freezeAuthority: ISSUER,
      liquidity: { ...clOnly, positionsCreatorPct: 80 }
    }
  },
  {
    note: "Raydium LP burned, plus a side DLMM pool the deployer can pull holding most of the concentrated depth",
    expect: "warn",
    because: "Pullable Liquidity:59",
    evidence: {
      ...memecoin,
      liquidity: { lpLocked: false, lpLockPercentage: 0, lpBurnedPct: 100, positionsCreatorPct: 70 }
    }
  },
  {
    note: "a scanned copy of USDC: the scanner's copycat check and the impersonation rule name the same fact",
    expect: "block",
    because: "Impersonation:20",
    score: [20, 20],
    evidence: { symbol: "USDC", name: "USD Coin", metadata: { copycatOf: "USDC" } }
  },
  {
    note: "pump.fun graduate: LP burned on migration",
    expect: "ok",
    evidence: { ...memecoin, liquidity: { lpLocked: false, lpLockPercentage: 0, lpBurnedPct: 100 } }
  },
  {
    note: "freeze authority kept and LP unlocked in the same hands",
    expect: "warn",
    because: "Freeze Authority:59",
    evidence: {
      ...memecoin,
      freezeAuthority: WALLETS[5],
      liquidity: { lpLocked: false, lpLockPercentage: 0, lpTopWalletsPct: 100 }
    }
  },
  {
    note: "serial rugger's new launch with LP unlocked",
    expect: "block",
    because: "Serial Rugger:20",
    evidence: {
      ...memecoin,
      createdAt: fresh(3),
      deployer: { priorLaunches: 4, priorRugs: 3 },
      liquidity: { lpLocked: false, lpLockPercentage: 0 }
    }
  },
  {
    note: "Token-2022 'compliance' token, not on the issuer list, with a permanent delegate and a freeze authority",
    expect: "block",
    because: "Permanent Delegate:25",
    evidence: {
      ...t22,
      freezeAuthority: WALLETS[5],
      extensions: { permanentDelegate: WALLETS[5], nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },

  // 2.1: evidence the format can now say.
  {
    note: "fee bait-and-switch: 1% transfer fee now, 30% scheduled from epoch 812",
    expect: "block",
    because: "Severe Tax:29",
    evidence: {
      ...t22,
      extensions: {
        transferFeeBps: 3_000,
        transferFeeNowBps: 100,
        transferFeeScheduledEpoch: 812,
        nonTransferable: false,
        defaultAccountStateFrozen: false
      }
    }
  },
  {
    note: "transfer hook to an immutable program, sell simulated fine",
    expect: "ok",
    because: "transfer_hook",
    evidence: {
      ...t22,
      extensions: {
        transferHook: WALLETS[1],
        transferHookUpgradeable: false,
        nonTransferable: false,
        defaultAccountStateFrozen: false
      }
    }
  },
  {
    note: "transfer hook program the deployer can upgrade at will",
    expect: "warn",
    because: "Transfer Hook:59",
    evidence: {
      ...t22,
      extensions: {
        transferHook: WALLETS[1],
        transferHookUpgradeable: true,
        transferHookAuthority: WALLETS[5],
        nonTransferable: false,
        defaultAccountStateFrozen: false
      }
    }
  },
  {
    note: "honeypot through a transfer hook: the simulated sell fails",
    expect: "block",
    because: "Honeypot:5",
    evidence: {
      ...t22,
      trading: { isHoneypot: true },
      extensions: { transferHook: WALLETS[1], nonTransferable: false, defaultAccountStateFrozen: false }
    }
  },
  {
    note: "team vesting lock of 40% releasing in 2 days: counted as held, not as a permanent lock",
    expect: "ok",
    because: "single_holder_concentration",
    evidence: {
      holders: {
        top: [
          { address: WALLETS[3]!, pct: 40, kind: "locker", unlockAt: fresh(-48) },
          { address: WALLETS[1]!, pct: 3, kind: "holder" }
        ]
      }
    }
  },
  {
    note: "12% sell tax measured by a swap simulation",
    expect: "warn",
    because: "High Tax:59",
    evidence: { trading: { isHoneypot: false, buyTax: 0, sellTax: 12 } }
  },

  // Insiders, bundles, snipers, dev sold (issue 27; docs/scoring-model.md, Ownership and Deployer).
  {
    note: "pump.fun launch: the dev bought 8% in the creation transaction and sold all of it within minutes",
    expect: "warn",
    because: "Dev Sold:59",
    score: [30, 59],
    evidence: pumpLaunch(0.25, { deployer: { initialPct: 8, soldPct: 100 } })
  },
  {
    note: "pump.fun launch where sniper bots took 40% of supply in slots +1 to +3",
    expect: "warn",
    because: "Launch Capture:59",
    score: [30, 59],
    evidence: pumpLaunch(1.5, { holders: { sniperPct: 40 } })
  },
  {
    note: "a ring split its buys: 18% in the creation slot's Jito bundle, 17% in the next two slots",
    expect: "warn",
    because: "Launch Capture:59",
    score: [30, 59],
    evidence: pumpLaunch(2, { holders: { bundledLaunchPct: 18, sniperPct: 17 } })
  },
  {
    note: "pump.fun launch sniped a little: bots bought 4% in the slots after creation (the common case)",
    expect: "ok",
    score: [80, 100],
    evidence: pumpLaunch(3, { holders: { sniperPct: 4 } })
  },
  {
    note: "dev sold all of a 0.3% dust buy an hour after launch: no exit worth the name",
    expect: "ok",
    score: [80, 100],
    evidence: pumpLaunch(1, { deployer: { initialPct: 0.3, soldPct: 100 } })
  },
  {
    note: "dev sold 60% of a 4% buy on day 2, snipers took 12%: a partial exit, watch it",
    expect: "ok",
    because: "dev_sold",
    score: [60, 79],
    evidence: pumpLaunch(30, { holders: { sniperPct: 12 }, deployer: { initialPct: 4, soldPct: 60 } })
  },
  {
    note: "community takeover: a year-old token whose deployer sold its launch buy long ago",
    expect: "ok",
    because: "dev_sold",
    score: [60, 100],
    evidence: { ...memecoin, deployer: { initialPct: 5, soldPct: 100 } }
  },
  {
    note: "the supply trick: a deployer-funded ring bought 35% in a bundle and holds 25%, the dev sold 90%",
    expect: "block",
    because: "insider_holding",
    score: [0, 29],
    evidence: pumpLaunch(0.5, {
      holders: {
        bundledLaunchPct: 35,
        top: [
          { address: WALLETS[0]!, pct: 20, kind: "pool" },
          ...[1, 2, 3, 4, 5].map((i) => ({ address: WALLETS[i]!, pct: 5, kind: "insider" as const }))
        ]
      },
      deployer: { initialPct: 10, soldPct: 90 }
    })
  },

  // Bonding curves as markets (2.1; docs/scoring-model.md, Liquidity): a live curve quotes buys from its virtual
  // reserves, a completed one trades nothing until its migration pool exists.
  {
    note: "pump.fun launch seconds old, before its first buy: the curve holds no SOL yet but quotes from its 30 SOL virtual reserve",
    expect: "warn",
    because: "low_liquidity",
    score: [30, 59],
    evidence: launchSeconds
  },
  {
    note: "the same launch from a curve whose depth was not read (Meteora DBC): young and thin, never ok on what was not seen",
    expect: "warn",
    because: "thin_evidence",
    score: [30, 59],
    evidence: { ...launchSeconds, liquidity: { ...launchSeconds.liquidity, curveDepthUsd: null } }
  },
  {
    note: "a curve launch seconds old whose creator kept the mint authority: a market, but new supply at will on a token this young",
    expect: "block",
    because: "mint_authority_active",
    score: [0, 29],
    evidence: { ...launchSeconds, mintAuthority: WALLETS[1] }
  },
  {
    note: "pump.fun launch seconds old, bundled: linked wallets bought 45% in the creation slot",
    expect: "warn",
    because: "Launch Capture:59",
    evidence: {
      ...launchSeconds,
      liquidity: { ...launchSeconds.liquidity, liquidityUsd: 3_700 },
      market: { ...launchSeconds.market, liquidityUsd: 3_700, marketCap: 15_000 },
      holders: { ...launchSeconds.holders, holderCount: 12, bundledLaunchPct: 45 }
    }
  },
  {
    note: "pump.fun curve complete (85 SOL still on it), migration pool not yet seen: nothing can be traded",
    expect: "block",
    because: "no_market",
    evidence: {
      ...memecoin,
      createdAt: fresh(5),
      liquidity: {
        liquidityUsd: 12_750,
        lpLocked: null,
        lpLockPercentage: null,
        bondingCurveOnly: true,
        poolCount: 1,
        curve: "complete"
      },
      market: { liquidityUsd: 12_750, marketCap: 60_000 }
    }
  },
  {
    note: "pump.fun graduate seen with its migration pool: the completed curve beside a PumpSwap pool whose LP was burned",
    expect: "ok",
    evidence: {
      ...memecoin,
      createdAt: fresh(30),
      liquidity: {
        liquidityUsd: 25_000,
        lpLocked: true,
        lpLockPercentage: 100,
        lpBurnedPct: 100,
        bondingCurveOnly: false,
        poolCount: 2,
        curve: "complete"
      },
      market: { liquidityUsd: 25_000, marketCap: 90_000 }
    }
  }
]
