import type { HolderKind, Outcome, ScanDepth } from "../../domain/ScanEvidence.ts"
import { tokenNameOf } from "./names.ts"
import type { Random } from "./random.ts"

// What a demo token is like; render.ts turns it into scans at given moments.

export interface DeployerRecord {
  readonly address: string
  readonly priorLaunches: number
  readonly priorRugs: number
  readonly priorHoneypots: number
  readonly flagged: boolean
}

export interface HolderShare {
  readonly address: string
  readonly pct: number
  readonly kind: HolderKind
}

export interface TokenProfile {
  readonly mint: string
  readonly name: string
  readonly symbol: string
  readonly decimals: number
  readonly supply: number
  readonly tokenProgram: "spl-token" | "token-2022"
  readonly ageHours: number
  readonly mintAuthority: string | null
  readonly freezeAuthority: string | null
  readonly extensions: {
    readonly transferFeeBps: number | null
    readonly permanentDelegate: string | null
    readonly transferHook: string | null
    readonly defaultAccountStateFrozen: boolean | null
    readonly nonTransferable: boolean | null
    readonly mintCloseAuthority: string | null
  }
  readonly trading: { readonly isHoneypot: boolean; readonly buyTax: number; readonly sellTax: number }
  readonly liquidity: {
    readonly usd: number
    readonly lpLocked: boolean | null
    readonly lpLockPct: number | null
    readonly lockExpiresInHours: number | null
    readonly poolCount: number
  }
  readonly holders: {
    readonly count: number
    readonly top: ReadonlyArray<HolderShare>
    readonly creatorPct: number
    readonly bundledPct: number
  }
  readonly deployer: DeployerRecord
  readonly market: {
    readonly marketCap: number
    readonly volume24h: number
    readonly priceChanges: readonly [number, number, number, number]
    readonly buys: number
    readonly sells: number
    readonly uniqueTraders: number
  }
  readonly metadata: { readonly mutable: boolean; readonly uri: string; readonly copycatOf: string | null }
  readonly aml: { readonly flaggedHolderCount: number; readonly flaggedHolderPct: number }
  readonly verified: boolean
  readonly outcome: Outcome | null
  readonly scanDepth: ScanDepth
}

const HOURS_PER_DAY = 24

const roundTo = (value: number, decimals: number): number => Number(value.toFixed(decimals))

// Pools and lockers first, then ordinary wallets each well under 5%: nothing a concentration rule flags.
const spreadHolders = (random: Random): ReadonlyArray<HolderShare> => {
  const vaults: Array<HolderShare> = [{ address: random.address(), pct: roundTo(random.float(8, 25), 2), kind: "pool" }]
  if (random.chance(0.5))
    vaults.push({ address: random.address(), pct: roundTo(random.float(3, 10), 2), kind: "locker" })
  if (random.chance(0.3)) vaults.push({ address: random.address(), pct: roundTo(random.float(2, 10), 2), kind: "burn" })
  const wallets = Array.from(
    { length: 10 },
    (_, rank): HolderShare => ({
      address: random.address(),
      pct: roundTo(random.float(1.2, 2.6) / (1 + rank * 0.25), 2),
      kind: random.chance(0.1) ? "exchange" : "holder"
    })
  )
  return [...vaults, ...wallets].sort((a, b) => b.pct - a.pct)
}

export const marketFor = (liquidityUsd: number, random: Random): TokenProfile["market"] => {
  const volume24h = roundTo(liquidityUsd * random.float(0.2, 4), 2)
  const trades = Math.max(20, Math.round(volume24h / random.float(300, 1_500)))
  const buys = Math.round(trades * random.float(0.45, 0.6))
  return {
    marketCap: roundTo(liquidityUsd * random.float(3, 15), 2),
    volume24h,
    priceChanges: [
      roundTo(random.float(-3, 3), 2),
      roundTo(random.float(-8, 8), 2),
      roundTo(random.float(-15, 15), 2),
      roundTo(random.float(-25, 25), 2)
    ],
    buys,
    sells: trades - buys,
    uniqueTraders: Math.max(1, Math.round(trades / random.float(1.5, 5)))
  }
}

// A token no rule objects to: revoked authorities, deep locked liquidity, spread holders, a clean deployer.
export const healthyProfile = (random: Random, mint: string, deployer: DeployerRecord): TokenProfile => {
  const { name, symbol } = tokenNameOf(random)
  const liquidityUsd = roundTo(random.logUniform(15_000, 3_000_000), 2)
  return {
    mint,
    name,
    symbol,
    decimals: random.pick([6, 9]),
    supply: random.pick([1e9, 1e9, 1e8, 1e10, 420_690_000_000]),
    tokenProgram: "spl-token",
    ageHours: random.logUniform(8 * HOURS_PER_DAY, 700 * HOURS_PER_DAY),
    mintAuthority: null,
    freezeAuthority: null,
    extensions: {
      transferFeeBps: null,
      permanentDelegate: null,
      transferHook: null,
      defaultAccountStateFrozen: null,
      nonTransferable: null,
      mintCloseAuthority: null
    },
    trading: { isHoneypot: false, buyTax: 0, sellTax: 0 },
    liquidity: {
      usd: liquidityUsd,
      lpLocked: true,
      lpLockPct: random.int(92, 100),
      lockExpiresInHours: random.chance(0.5) ? null : random.float(30, 400) * HOURS_PER_DAY,
      poolCount: random.int(1, 3)
    },
    holders: {
      count: Math.round(random.logUniform(400, 60_000)),
      top: spreadHolders(random),
      creatorPct: roundTo(random.float(0, 3), 2),
      bundledPct: roundTo(random.float(0, 6), 2)
    },
    deployer,
    market: marketFor(liquidityUsd, random),
    metadata: { mutable: random.chance(0.25), uri: `https://arweave.net/${random.address()}`, copycatOf: null },
    aml: { flaggedHolderCount: 0, flaggedHolderPct: 0 },
    verified: false,
    outcome: random.chance(0.3) ? "active" : null,
    scanDepth: random.chance(0.85) ? "full" : "partial"
  }
}
